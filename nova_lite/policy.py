"""oslo.policy enforcement: defaults from nova_lite.policies, overridable
by policy.yaml ([oslo_policy] policy_file)."""
import sys
import time

from oslo_config import cfg
from oslo_log import log as logging
from oslo_policy import policy

from nova_lite._compat import oslo_policy as policy_compat
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import policies
from nova_lite import utils

LOG = logging.getLogger(__name__)
_ENFORCER = None
# Seconds between two looks for changed policy files.
RELOAD_INTERVAL = 1.0


class Enforcer(policy.Enforcer):
    """oslo.policy's Enforcer, looking for changed policy files at most
    once per RELOAD_INTERVAL. The library's enforce() reloads on every
    check: it searches the configuration directories for the policy file
    and each policy directory (when there are none, every time) and
    stats what it finds, about 1.5% of a server action. An operator's
    edit still takes effect while the service runs, within a second."""

    _nl_loaded_at = None

    def load_rules(self, force_reload=False):
        now = time.monotonic()
        if (force_reload or self._nl_loaded_at is None or not self.rules
                or now - self._nl_loaded_at >= RELOAD_INTERVAL):
            self._nl_loaded_at = now
            return super().load_rules(force_reload)
        return False

    def clear(self):
        super().clear()
        self._nl_loaded_at = None


def _memoize_check_signatures():
    """oslo.policy reads each check's signature (inspect.getfullargspec)
    at every check of every rule, about 2% of a server action: its
    checks read them through a memo (a library internal:
    nova_lite._compat.oslo_policy)."""
    policy_compat.memoize_check_signatures(utils.memoized_argspec)


def reset():
    global _ENFORCER
    if _ENFORCER is not None:
        _ENFORCER.clear()
    _ENFORCER = None


def init(policy_file=None, rules=None, suppress_deprecation_warnings=True):
    """Build the process-wide enforcer (once) with our registered defaults."""
    global _ENFORCER
    if _ENFORCER is None:
        _memoize_check_signatures()
        _ENFORCER = Enforcer(CONF, policy_file=policy_file,
                                    rules=rules)
        _ENFORCER.suppress_deprecation_warnings = \
            suppress_deprecation_warnings
        _ENFORCER.register_defaults(policies.list_rules())
    return _ENFORCER


def authorize(context, action, target=None, fatal=True):
    """Check ``action`` for ``context`` on ``target``.

    Raises PolicyNotAuthorized (403) when denied and fatal, else returns
    False; returns True when allowed.
    """
    enforcer = init()
    if target is None:
        target = {'project_id': context.project_id,
                  'user_id': context.user_id}
    try:
        return enforcer.authorize(action, target, context,
                                  do_raise=fatal,
                                  exc=exception.PolicyNotAuthorized,
                                  action=action)
    except policy.PolicyNotRegistered:
        LOG.exception('Policy not registered: %s', action)
        raise
    except exception.PolicyNotAuthorized:
        LOG.debug('Policy check for %(action)s failed with credentials '
                  '%(credentials)s',
                  {'action': action,
                   'credentials': context.to_policy_values()})
        raise


def check_is_admin(context):
    """Whether the context passes the context_is_admin rule."""
    enforcer = init()
    return enforcer.authorize('context_is_admin', {}, context,
                              do_raise=False)


def get_enforcer():
    """The enforcer for oslopolicy-* tools (the oslo.policy.enforcer entry
    point); they pass --config-file/--config-dir on their command line."""
    conf_args = []
    argv = sys.argv[1:]
    i = 0
    while i < len(argv):
        if argv[i] in ('--config-file', '--config-dir') and i + 1 < len(argv):
            conf_args.extend(argv[i:i + 2])
            i += 2
            continue
        if argv[i].startswith(('--config-file=', '--config-dir=')):
            conf_args.append(argv[i])
        i += 1
    try:
        CONF(conf_args, project='nova_lite')
    except cfg.Error:
        LOG.debug('Configuration already parsed; using it as it is.')
    return init()
