"""POST /servers/{server_id}/remote-consoles (2.6; mks 2.8;
spice-direct 2.99), GET /os-console-auth-tokens/{console_token}
(administrators; RDP consoles only before 2.31; tls_port from 2.99),
GET /servers/{server_id}/diagnostics (administrators; Nova's standard
format from 2.48) and GET /servers/{server_id}/topology (2.78), through
nova_lite.compute.api.server_consoles."""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import server_consoles \
    as schemas
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import server_actions
from nova_lite.compute.api import server_consoles
from nova_lite import exception
from nova_lite.policies import server_consoles as policies


def _authorized(server_id, rule):
    ctxt = wsgi.request_context()
    instance = server_actions.get(ctxt, server_id)
    ctxt.can(rule, target={'project_id': instance.project_id,
                           'user_id': instance.user_id})
    return ctxt, instance


class RemoteConsolesController(object):
    """/servers/{server_id}/remote-consoles"""

    def __init__(self, server_id):
        self.server_id = server_id

    @wsgi.expose()
    @validation.schema(schemas.create_remote_console, av.REMOTE_CONSOLES,
                       av.before(av.REMOTE_CONSOLES_MKS))
    @validation.schema(schemas.create_remote_console_v28,
                       av.REMOTE_CONSOLES_MKS,
                       av.before(av.CONSOLE_SPICE_DIRECT))
    @validation.schema(schemas.create_remote_console_v299,
                       av.CONSOLE_SPICE_DIRECT)
    def post(self, body=None):
        ctxt, instance = _authorized(self.server_id,
                                     policies.REMOTE_CONSOLES)
        protocol = body['remote_console']['protocol']
        console_type = body['remote_console']['type']
        url = server_consoles.get_remote_console(ctxt, instance, protocol,
                                                 console_type)
        return {'remote_console': {'protocol': protocol,
                                   'type': console_type, 'url': url}}


class ConsoleAuthTokenController(object):
    """/os-console-auth-tokens/{console_token}"""

    def __init__(self, token):
        self.token = token

    @wsgi.expose()
    @validation.strict_list_query(av.CONSOLE_SPICE_DIRECT)
    def index(self):
        ctxt = wsgi.authorize(policies.CONSOLE_AUTH_TOKENS)
        found = server_consoles.validate_token(ctxt, self.token)
        if (wsgi.api_version() < av.CONSOLE_AUTH_TOKENS_ANY_TYPE
                and found['console_type'] != 'rdp-html5'):
            raise exception.Unauthorized(
                message='The requested console type details are not '
                        'accessible')
        console = {
            'instance_uuid': found['instance_uuid'], 'host': found['host'],
            'port': found['port'],
            'internal_access_path': found['internal_access_path']}
        if wsgi.api_version() >= av.CONSOLE_SPICE_DIRECT:
            console['tls_port'] = found['tls_port']
        return {'console': console}


# Fixed counters of the simulated guest's devices (as Nova's fake
# driver reports them).
_DISK = {'read_bytes': 262144, 'read_requests': 112,
         'write_bytes': 5778432, 'write_requests': 488, 'errors_count': 0}
_NIC = {'rx_octets': 2070139, 'rx_errors': 0, 'rx_drop': 0,
        'rx_packets': 26701, 'rx_rate': None, 'tx_octets': 140208,
        'tx_errors': 0, 'tx_drop': 0, 'tx_packets': 662, 'tx_rate': None}
_CPU_TIME = 17300000000


def _macs(instance):
    try:
        vifs = instance.network_info or []
    except Exception:
        vifs = []
    return [vif.get('address') for vif in vifs if isinstance(vif, dict)]


def _standard(found, instance, macs):
    return {
        'state': found['state'] or 'pending',
        # Nova's fake driver reports itself as libvirt too (a value
        # every client's schema knows).
        'driver': 'libvirt', 'hypervisor': found['hypervisor'],
        'hypervisor_os': 'linux', 'uptime': found['uptime'],
        'config_drive': bool(instance.config_drive),
        'num_cpus': found['vcpus'], 'num_nics': len(macs),
        'num_disks': found['disks'],
        'memory_details': {'maximum': found['memory_mb'], 'used': 0},
        'cpu_details': [{'id': i, 'time': _CPU_TIME, 'utilisation': None}
                        for i in range(found['vcpus'])],
        'nic_details': [dict(_NIC, mac_address=mac) for mac in macs],
        'disk_details': [dict(_DISK) for _ in range(found['disks'])],
    }


def _legacy(found, macs):
    body = {'cpu%d_time' % i: _CPU_TIME for i in range(found['vcpus'])}
    body['memory'] = found['memory_mb'] * 1024
    for i in range(found['disks']):
        disk = 'vd' + chr(ord('a') + i)
        body.update({disk + '_read': _DISK['read_bytes'],
                     disk + '_read_req': _DISK['read_requests'],
                     disk + '_write': _DISK['write_bytes'],
                     disk + '_write_req': _DISK['write_requests'],
                     disk + '_errors': -1})
    for i, _mac in enumerate(macs):
        nic = 'vnet%d' % i
        body.update({nic + '_rx': _NIC['rx_octets'],
                     nic + '_rx_drop': 0, nic + '_rx_errors': 0,
                     nic + '_rx_packets': _NIC['rx_packets'],
                     nic + '_tx': _NIC['tx_octets'],
                     nic + '_tx_drop': 0, nic + '_tx_errors': 0,
                     nic + '_tx_packets': _NIC['tx_packets']})
    return body


class DiagnosticsController(object):
    """/servers/{server_id}/diagnostics"""

    def __init__(self, server_id):
        self.server_id = server_id

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    @validation.query_schema(schemas.no_query)
    def index(self, query=None):
        ctxt, instance = _authorized(self.server_id, policies.DIAGNOSTICS)
        found = server_consoles.get_diagnostics(ctxt, instance)
        macs = _macs(instance)
        if wsgi.api_version() >= av.DIAGNOSTICS_STANDARD:
            return _standard(found, instance, macs)
        return _legacy(found, macs)


class TopologyController(object):
    """/servers/{server_id}/topology (2.78): nova_lite models no guest
    NUMA topology, so a server has none (Nova's answer for a server
    without one)."""

    def __init__(self, server_id):
        self.server_id = server_id

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    @validation.query_schema(schemas.no_query)
    def index(self, query=None):
        ctxt, instance = _authorized(self.server_id, policies.TOPOLOGY)
        # Whether host NUMA ids and pinning would be shown (none here).
        ctxt.can(policies.TOPOLOGY_HOST,
                 target={'project_id': instance.project_id}, fatal=False)
        return {'nodes': [], 'pagesize_kb': None}
