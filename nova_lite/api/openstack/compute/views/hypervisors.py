"""os-hypervisors response bodies, per microversion."""
from oslo_serialization import jsonutils

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.views import services as service_views

CAPACITY_FIELDS = ('vcpus', 'memory_mb', 'local_gb', 'vcpus_used',
                   'memory_mb_used', 'local_gb_used', 'free_ram_mb',
                   'free_disk_gb', 'current_workload', 'running_vms',
                   'disk_available_least')


def _id(obj, version):
    return obj.uuid if version >= av.SERVICE_HYPERVISOR_UUID_IDS else obj.id


def _cpu_info(node, version):
    if version < av.HYPERVISOR_CPU_INFO_OBJECT:
        return node.cpu_info
    if not node.cpu_info:
        return {}
    try:
        return jsonutils.loads(node.cpu_info)
    except ValueError:
        return {}


def _servers(servers, with_servers, version):
    """The servers key: always a list from 2.75, omitted before if empty."""
    if not with_servers:
        return None
    servers = [{'name': s['name'], 'uuid': s['uuid']} for s in servers or []]
    if servers or version >= av.STRICT_QUERY_EMPTY_SERVERS:
        return servers
    return None


def summary(hypervisor, version, with_servers=False, servers=None):
    node, service = hypervisor
    body = {
        'id': _id(node, version),
        'hypervisor_hostname': node.hypervisor_hostname,
        'state': service_views.state(service),
        'status': service_views.status(service),
    }
    server_list = _servers(servers, with_servers, version)
    if server_list is not None:
        body['servers'] = server_list
    return body


def detail(hypervisor, version, with_servers=False, servers=None,
           uptime=None):
    node, service = hypervisor
    body = summary(hypervisor, version, with_servers, servers)
    body.update({
        'hypervisor_type': node.hypervisor_type,
        'hypervisor_version': node.hypervisor_version,
        'host_ip': str(node.host_ip) if node.host_ip is not None else None,
        'service': {
            'host': service.host,
            'id': _id(service, version),
            'disabled_reason': service.disabled_reason,
        },
    })
    if version >= av.HYPERVISOR_UPTIME_IN_SHOW:
        body['uptime'] = uptime
    else:
        for field in CAPACITY_FIELDS:
            body[field] = getattr(node, field)
        body['cpu_info'] = _cpu_info(node, version)
    return body


def uptime(hypervisor, version, uptime):
    """GET /os-hypervisors/{id}/uptime (before 2.88)."""
    return dict(summary(hypervisor, version), uptime=uptime)


def links(request_url_base, hypervisors, limit, version, detailed):
    """A 'next' link when a full page was returned (2.33)."""
    if limit is None or len(hypervisors) < limit or not hypervisors:
        return None
    last = _id(hypervisors[-1].node, version)
    path = '/os-hypervisors/detail' if detailed else '/os-hypervisors'
    return [{'rel': 'next',
             'href': '%s%s?limit=%d&marker=%s' % (request_url_base, path,
                                                  limit, last)}]
