"""os-hosts, below 2.43 (404 from 2.43), administrators only, as Nova
34 answers it:

- ``GET /os-hosts[?zone=]``: every service's host, its service (the
  binary without ``nova-``) and zone;
- ``GET /os-hosts/{host_name}``: a compute host's resources -- (total),
  (used_now), (used_max) and each project's -- 404 for a host mapped to
  no cell;
- ``PUT /os-hosts/{host_name}``: ``status`` enables or disables its
  compute service; ``maintenance_mode`` is answered 501, as Nova answers
  with a virt driver that has no maintenance mode (libvirt's, nova_lite's);
- ``GET /os-hosts/{host_name}/{reboot,shutdown,startup}``: 501 likewise
  (the driver does not manage the host's power), after the host is
  found.
"""
import webob.exc

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import hosts as schemas
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import legacy_hosts
from nova_lite.policies import hosts as policies

# 2.43 removed os-hosts.
LAST = av.before('2.43')


class HostsController(object):
    """/os-hosts"""

    @wsgi.expose()
    @validation.query_schema(schemas.index_query)
    def index(self, query=None):
        ctxt = wsgi.authorize(policies.LIST)
        zone = validation.last(query, 'zone')
        return {'hosts': [
            {'host_name': h.host_name, 'service': h.service, 'zone': h.zone}
            for h in legacy_hosts.list_hosts(ctxt, zone)]}


class HostController(object):
    """/os-hosts/{host_name}[/reboot|shutdown|startup]"""

    def __init__(self, host_name):
        self.host = host_name

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.authorize(policies.SHOW)
        return {'host': [
            {'resource': {'host': self.host, 'project': project,
                          'cpu': cpu, 'memory_mb': memory_mb,
                          'disk_gb': disk_gb}}
            for project, cpu, memory_mb, disk_gb in
            legacy_hosts.resources(ctxt, self.host)]}

    @wsgi.expose()
    @validation.schema(schemas.update)
    def put(self, body=None):
        ctxt = wsgi.authorize(policies.UPDATE)
        service = legacy_hosts.compute_service(ctxt, self.host)
        if 'maintenance_mode' in body:
            raise webob.exc.HTTPNotImplemented(
                explanation='Virt driver does not implement host '
                            'maintenance mode.')
        enabled = body['status'].lower() == 'enable'
        legacy_hosts.set_enabled(ctxt, service.host, enabled)
        return {'host': self.host,
                'status': 'enabled' if enabled else 'disabled'}

    def _power(self, rule):
        ctxt = wsgi.authorize(rule)
        legacy_hosts.compute_service(ctxt, self.host)
        raise webob.exc.HTTPNotImplemented(
            explanation='Virt driver does not implement host power '
                        'management.')

    @wsgi.expose()
    def reboot(self):
        self._power(policies.REBOOT)

    @wsgi.expose()
    def shutdown(self):
        self._power(policies.SHUTDOWN)

    @wsgi.expose()
    def startup(self):
        self._power(policies.START)
