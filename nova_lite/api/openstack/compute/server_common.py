"""What the server controllers (servers, server actions) share: schema
ranges per microversion, the per-request view builder and the
administrative password."""
import secrets
import string

import pecan

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.views import servers as views
from nova_lite.compute.api import server_groups as groups_api
from nova_lite.compute.api import server_listing
from nova_lite.conf import CONF
from nova_lite.policies import servers as sv_policies

_PASSWORD_CHARS = string.ascii_letters + string.digits
_PASSWORD_LENGTH = 12


def from_versions(*since):
    """[(schema, min, max)] from [(schema, first version)] in order: each
    schema holds until the next one's first version."""
    ends = [av.before(first) for _schema, first in since[1:]] + [None]
    return [(schema, first, end)
            for (schema, first), end in zip(since, ends)]


def validated(check, ranges):
    """Decorate with check (validation.schema or query_schema) for each
    (schema, min, max) of ranges."""
    def decorator(fn):
        for schema, low, high in ranges:
            fn = check(schema, low, high)(fn)
        return fn
    return decorator


def builder(ctxt, version):
    """A view builder with what policy lets this caller see, decided
    once for the whole request."""
    own = {'project_id': ctxt.project_id}
    host_status = None
    if version >= av.SERVER_HOST_STATUS:
        if ctxt.can(sv_policies.SHOW_HOST_STATUS, target=own, fatal=False):
            host_status = 'all'
        elif ctxt.can(sv_policies.SHOW_HOST_STATUS_UNKNOWN, target=own,
                      fatal=False):
            host_status = 'unknown'
    return views.Builder(
        pecan.request.application_url, version,
        extended_attrs=ctxt.can(sv_policies.EXTENDED_ATTRIBUTES,
                                target=own, fatal=False),
        host_status=host_status,
        extra_specs=(version >= av.SERVER_EMBEDDED_FLAVOR and ctxt.can(
            sv_policies.SHOW_FLAVOR_EXTRA_SPECS, target=own, fatal=False)),
        is_admin=ctxt.is_admin,
        default_zone=CONF.default_availability_zone)


def admin_password(body):
    """The adminPass asked for, or a new random one."""
    if body.get('adminPass'):
        return body['adminPass']
    return ''.join(secrets.choice(_PASSWORD_CHARS)
                   for _ in range(_PASSWORD_LENGTH))


def with_server_groups(ctxt, body):
    """body ({'server': ...}) with server_groups (2.71: in the body
    already, as []) naming the groups the server is a member of."""
    server = body.get('server') or {}
    if 'server_groups' in server and server.get('id'):
        server['server_groups'] = groups_api.groups_of(ctxt, server['id'])
    return body


def with_request_spec_fields(ctxt, body, version=None):
    """body ({'server': ...} or {'servers': [...]}) with the fields the
    views leave for the request spec filled, for every server in one
    query: pinned_availability_zone (2.96, where the view left it) and,
    at ``version`` 2.100 or later, each full server's scheduler_hints
    (not a down cell's minimal construct)."""
    servers = body.get('servers')
    if servers is None:
        servers = [body['server']] if body.get('server') else []
    zoned = [s for s in servers
             if 'pinned_availability_zone' in s and s.get('id')]
    hinted = [s for s in servers
              if version is not None and version >= av.SERVER_SCHEDULER_HINTS
              and 'OS-EXT-STS:vm_state' in s and s.get('id')]
    if not zoned and not hinted:
        return body
    fields = server_listing.request_spec_fields(
        ctxt, sorted({s['id'] for s in zoned + hinted}))
    for server in zoned:
        server['pinned_availability_zone'] = fields.get(
            server['id'], {}).get('pinned_availability_zone')
    for server in hinted:
        server['scheduler_hints'] = fields.get(
            server['id'], {}).get('scheduler_hints', {})
    return body
