"""os-services: list, update (enable/disable/force down) and delete the
services of every cell."""
import pecan

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import services as schemas
from nova_lite.api.openstack.compute.views import services as views
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute import api as compute_api
from nova_lite import exception
from nova_lite.policies import services as sv_policies

JSON = 'application/json'


def _authorized(action):
    ctxt = wsgi.request_context()
    ctxt.can(action, target={})
    return ctxt


class ServiceController(object):
    """/os-services/{service_id}; before 2.53 also the legacy actions
    /os-services/{enable,disable,disable-log-reason,force-down}."""

    def __init__(self, service_id):
        self.service_id = service_id

    @pecan.expose(generic=True, content_type=JSON)
    @wsgi.expose()
    def index(self):
        raise wsgi.method_not_allowed('PUT', 'DELETE')

    @index.when(method='PUT', content_type=JSON)
    @wsgi.expose(method='PUT')
    def put(self):
        ctxt = _authorized(sv_policies.UPDATE)
        version = wsgi.api_version()
        body = wsgi.request_body()
        if version >= av.SERVICE_HYPERVISOR_UUID_IDS:
            return self._update(ctxt, body, version)
        return self._legacy_action(ctxt, body, version)

    @index.when(method='DELETE', content_type=JSON)
    @wsgi.expose(status=204, method='DELETE')
    def delete(self):
        ctxt = _authorized(sv_policies.DELETE)
        service = compute_api.service_get_by_id(
            ctxt, self._checked_id(), by_uuid=self._by_uuid())
        compute_api.service_delete(ctxt, service)

    # --- helpers ---------------------------------------------------------

    @staticmethod
    def _by_uuid():
        return wsgi.api_version() >= av.SERVICE_HYPERVISOR_UUID_IDS

    def _checked_id(self):
        """The path id, 400 if it is not a uuid (2.53+) or an integer."""
        if self._by_uuid():
            if compute_api.parse_id(self.service_id, True) is None:
                raise exception.InvalidInput(
                    reason='Invalid uuid %s' % self.service_id)
        elif compute_api.parse_id(self.service_id, False) is None:
            raise exception.InvalidInput(
                reason='Invalid service id %s' % self.service_id)
        return self.service_id

    def _update(self, ctxt, body, version):
        self._checked_id()
        validation.validate(schemas.service_update_v253, body)
        service = compute_api.service_get_by_id(ctxt, self.service_id,
                                                by_uuid=True)
        if service.binary != compute_api.COMPUTE_BINARY:
            raise exception.ServiceUpdateNotSupported(
                binary=service.binary, compute=compute_api.COMPUTE_BINARY)
        if 'status' not in body and 'forced_down' not in body:
            raise exception.InvalidInput(
                reason="No updates were requested. Fields 'status' or "
                       "'forced_down' should be specified.")
        if body.get('status') == 'enabled':
            if body.get('disabled_reason'):
                raise exception.InvalidInput(
                    reason="Specifying 'disabled_reason' with status "
                           "'enabled' is invalid.")
            service.disabled = False
            service.disabled_reason = None
        elif body.get('status') == 'disabled':
            service.disabled = True
            service.disabled_reason = body.get('disabled_reason')
        if 'forced_down' in body:
            service.forced_down = validation.to_bool(body['forced_down'])
        compute_api.service_update(ctxt, service)
        return {'service': views.show(service, version)}

    def _legacy_action(self, ctxt, body, version):
        action = self.service_id
        if action == 'force-down' and version >= av.SERVICE_FORCED_DOWN:
            validation.validate(schemas.service_force_down, body)
            forced_down = validation.to_bool(body['forced_down'])
            compute_api.service_update_by_host_and_binary(
                ctxt, body['host'], body['binary'],
                {'forced_down': forced_down})
            return views.legacy_action(body['host'], body['binary'],
                                       forced_down=forced_down)
        if action not in ('enable', 'disable', 'disable-log-reason'):
            raise exception.ResourceNotFound(
                message='Unknown action: %s' % action)
        validation.validate(schemas.service_update, body)
        fields = {'status': 'enabled' if action == 'enable' else 'disabled'}
        values = {'disabled': action != 'enable'}
        if action == 'enable':
            values['disabled_reason'] = None
        elif action == 'disable-log-reason':
            if not body.get('disabled_reason'):
                raise exception.InvalidInput(
                    reason='Missing disabled reason field')
            values['disabled_reason'] = fields['disabled_reason'] = \
                body['disabled_reason']
        compute_api.service_update_by_host_and_binary(
            ctxt, body['host'], body['binary'], values)
        return views.legacy_action(body['host'], body['binary'], **fields)


class ServicesController(object):
    """/os-services"""

    @pecan.expose(generic=True, content_type=JSON)
    @wsgi.expose()
    @validation.query_schema(schemas.index_query, av.MIN, '2.74')
    @validation.query_schema(schemas.index_query_v275,
                             av.STRICT_QUERY_EMPTY_SERVERS)
    def index(self, query=None):
        ctxt = _authorized(sv_policies.LIST)
        version = wsgi.api_version()
        listing = compute_api.service_get_all(
            ctxt, host=validation.last(query, 'host'),
            binary=validation.last(query, 'binary'),
            include_unavailable=version >= av.SERVICE_DOWN_CELLS)
        # The API's own records are not services an operator manages.
        listing = listing._replace(services=[
            s for s in listing.services
            if s.binary != compute_api.API_BINARY])
        return views.index(listing, version)

    @pecan.expose()
    def _lookup(self, service_id, *remainder):
        return ServiceController(service_id), remainder
