"""oslo.middleware internals: where the body size limiter reads its
limit.

- ``RequestBodySizeLimiter._conf_get``: oslo.middleware reads the limit
  through it, from ``[oslo_middleware] max_request_body_size``.
  LimitedBodySize answers with the limit its subclass gives
  (nova_lite's ``[api] max_request_body_size``, read on every request).
  The public alternatives change what operators see: a paste
  ``local_conf`` value fixes the limit when the pipeline is built (an
  override at run time is no longer seen), and switching to the
  library's own option renames an option operators already set
  (oslo.config cannot give a library's option a deprecated name of
  ours). Gone when RequestBodySizeLimiter takes the limit as a callable
  (or reads ``[oslo_middleware]`` options that may be overridden at run
  time through a group of the caller's choosing).

tests/unit/compat/test_oslo_middleware.py is the canary.
"""
from oslo_middleware import sizelimit

INTERNALS = (
    'oslo_middleware.sizelimit.RequestBodySizeLimiter._conf_get',
)


class LimitedBodySize(sizelimit.RequestBodySizeLimiter):
    """oslo.middleware's body limit (413), at max_request_body_size()
    bytes, asked on every request."""

    def max_request_body_size(self):
        raise NotImplementedError()

    def _conf_get(self, key, group='oslo_middleware'):
        if key == 'max_request_body_size':
            return self.max_request_body_size()
        return super()._conf_get(key, group)
