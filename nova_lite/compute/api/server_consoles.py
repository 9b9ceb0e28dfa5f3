"""The compute API of a server's consoles and introspection: console
output, remote consoles and their tokens, diagnostics, topology,
trigger_crash_dump and injectNetworkInfo.

Reads ask the server's compute (RPC 1.10 calls): the server must be on a
host (InstanceNotReady, 409), not being deleted or migrated
(InstanceInvalidState, 409), its compute new enough
(ComputeTooOldForAction, 409), its service up and answering within
[DEFAULT] rpc_response_timeout (ComputeUnreachable, 409). A remote console's
token is stored in the server's cell (sha256 only) and valid for
[consoleauth] token_ttl seconds while the server is not deleted and
stays on that host; the access URL carries it.
"""
import time
from urllib import parse

import oslo_messaging as messaging
from oslo_utils import uuidutils

from nova_lite.compute.api import server_actions
from nova_lite.compute import instance_events
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite.db.main import console_auth_tokens as tokens_db
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import instance as inst_obj
from nova_lite.objects import instance_action as actions

RESCUED = 'rescued'
SPICE_DIRECT = 'spice-direct'
# The service version from which computes offer spice-direct consoles.
SPICE_DIRECT_SERVICE_VERSION = 25
# Task states no console or introspection call is made in (Nova's).
_REFUSED_TASKS = (inst_obj.DELETING, 'migrating')
# protocol: the option of its access URLs' base.
_BASE_URLS = {
    'vnc': ('vnc', 'novncproxy_base_url'),
    'spice': ('spice', 'html5proxy_base_url'),
    'serial': ('serial_console', 'base_url'),
    'rdp': ('rdp', 'html5_proxy_base_url'),
    'mks': ('mks', 'mksproxy_base_url'),
}


def _ready(instance, action):
    server_actions.check_compute(instance, action,
                                 compute_rpcapi.CONSOLE_VERSION)
    if instance.task_state in _REFUSED_TASKS:
        raise exception.InstanceInvalidState(
            action=action, instance_uuid=instance.uuid, attr='task_state',
            state=instance.task_state)


def _call(instance, method, **kwargs):
    """method's answer from the server's compute; ComputeUnreachable
    (409) at once when its service is down or unknown (rather than
    after the RPC timeout), or when it does not answer in time."""
    try:
        service = objects.Service.get_by_compute_host(instance.context,
                                                      instance.host)
    except exception.HostBinaryNotFound:
        service = None
    if service is None or not service.is_up():
        raise exception.ComputeUnreachable(instance_uuid=instance.uuid,
                                           host=instance.host)
    try:
        return getattr(server_actions.compute_rpc(), method)(
            instance.context, instance, **kwargs)
    except messaging.MessagingTimeout:
        raise exception.ComputeUnreachable(instance_uuid=instance.uuid,
                                           host=instance.host)


def get_console_output(context, instance, length=None):
    """The last length lines of the server's console log (all: None)."""
    _ready(instance, 'get_console_output')
    return _call(instance, 'get_console_output', tail_length=length)


def _check_spice_direct(instance):
    server_actions.check_compute_service_version(
        instance, 'get_spice_console', SPICE_DIRECT_SERVICE_VERSION)


def access_url(console_type, base, token):
    """A console's access URL: noVNC takes the token in its ``path``
    parameter, the others in ``token`` (as Nova's)."""
    if console_type == 'novnc':
        return '%s?%s' % (base, parse.urlencode(
            {'path': '?token=%s' % token}))
    return '%s?token=%s' % (base, token)


def get_remote_console(context, instance, protocol, console_type):
    """A new token for the server's console of protocol and
    console_type, stored in its cell; its access URL. A spice-direct
    console (2.99) needs a compute at service version
    SPICE_DIRECT_SERVICE_VERSION (ComputeTooOldForAction, 409) and its
    URL starts with [spice] spice_direct_proxy_base_url."""
    _ready(instance, 'get_%s_console' % protocol)
    if console_type == SPICE_DIRECT:
        _check_spice_direct(instance)
    info = _call(instance, 'get_console_connect_info', protocol=protocol,
                 console_type=console_type)
    group, option = (('spice', 'spice_direct_proxy_base_url')
                     if console_type == SPICE_DIRECT
                     else _BASE_URLS[protocol])
    base = getattr(getattr(CONF, group), option)
    token = uuidutils.generate_uuid()
    now = int(time.time())
    tokens_db.create(instance.context, token, {
        'console_type': console_type, 'host': info['host'],
        'port': info['port'], 'tls_port': info.get('tls_port'),
        'internal_access_path': info.get('internal_access_path'),
        'instance_uuid': instance.uuid, 'instance_host': instance.host,
        'expires': now + CONF.consoleauth.token_ttl,
        'access_url_base': base}, now)
    return access_url(console_type, base, token)


def validate_token(context, token):
    """The record of a valid console token (console_type, host, port,
    tls_port, internal_access_path, instance_uuid) from whichever cell
    holds it;
    ConsoleTokenNotFound (404) otherwise."""
    cells = [c for c in objects.CellMappingList.get_all(context)
             if not c.is_cell0()]
    now = int(time.time())
    results = nova_context.scatter_gather_cells(
        context, cells, CONF.api.list_cell_timeout, tokens_db.validate,
        token, now)
    for cell in cells:
        found = results[cell.uuid]
        if found is not None and not nova_context.is_cell_failure(found):
            return found
    raise exception.ConsoleTokenNotFound()


def get_diagnostics(context, instance):
    """What the server's compute reports of its guest."""
    _ready(instance, 'get_diagnostics')
    return _call(instance, 'get_diagnostics')


def trigger_crash_dump(context, instance):
    """An NMI to an active, paused or rescued server (no task): the
    action is recorded, the compute sends it."""
    server_actions.check_lock(context, instance)
    server_actions.check_state(instance, 'trigger_crash_dump',
                               (inst_obj.ACTIVE, inst_obj.PAUSED, RESCUED))
    server_actions.check_compute(instance, 'trigger_crash_dump',
                                 compute_rpcapi.CONSOLE_VERSION)
    instance_events.record_action(instance.context, instance,
                                  actions.TRIGGER_CRASH_DUMP)
    server_actions.compute_rpc().trigger_crash_dump(instance.context,
                                                    instance)


def inject_network_info(context, instance):
    """The server's network info handed to its guest again (no
    instance action, as in Nova)."""
    server_actions.check_lock(context, instance)
    server_actions.check_compute(instance, 'inject_network_info',
                                 compute_rpcapi.CONSOLE_VERSION)
    server_actions.compute_rpc().inject_network_info(instance.context,
                                                     instance)
