"""os-services: list, update (enable/disable/force down) and delete the
services of every cell."""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import services as schemas
from nova_lite.api.openstack.compute.views import services as views
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import hosts as hosts_api
from nova_lite import constants
from nova_lite import exception
from nova_lite.policies import services as sv_policies

_BY_UUID = av.SERVICE_HYPERVISOR_UUID_IDS


def _named_update_schema(fn):
    """The body schema of enable, disable and disable-log-reason: from
    2.11 it takes forced_down (ignored), as the Compute API's does."""
    fn = validation.schema(schemas.service_update_v211,
                           av.SERVICE_FORCED_DOWN)(fn)
    return validation.schema(schemas.service_update, av.MIN,
                             av.before(av.SERVICE_FORCED_DOWN))(fn)


def _update_named(ctxt, body, values, **shown):
    """Set values on the service the body names by host and binary; the
    legacy answer shows them with ``shown``."""
    hosts_api.service_update_by_host_and_binary(
        ctxt, body['host'], body['binary'], values)
    return views.legacy_action(body['host'], body['binary'], **shown)


class ServiceController(object):
    """/os-services/{service_id}; before 2.53 the path names an action on
    the service the body names: /os-services/{enable,disable,
    disable-log-reason,force-down}."""

    def __init__(self, service_id):
        self.service_id = service_id

    @wsgi.expose()
    @validation.schema(schemas.service_update_v253, _BY_UUID)
    def put(self, body=None):
        if wsgi.api_version() >= _BY_UUID:
            return self._update(body)
        return self._path_action()

    @wsgi.expose(status=204)
    def delete(self):
        ctxt = wsgi.authorize(sv_policies.DELETE)
        service = hosts_api.service_get_by_id(
            ctxt, self._checked_id(), by_uuid=self._by_uuid())
        hosts_api.service_delete(ctxt, service)

    # --- before 2.53: actions named by the path -------------------------

    @_named_update_schema
    def enable(self, body):
        ctxt = wsgi.authorize(sv_policies.UPDATE)
        return _update_named(ctxt, body,
                             {'disabled': False, 'disabled_reason': None},
                             status='enabled')

    @_named_update_schema
    def disable(self, body):
        ctxt = wsgi.authorize(sv_policies.UPDATE)
        return _update_named(ctxt, body, {'disabled': True},
                             status='disabled')

    @_named_update_schema
    def disable_log_reason(self, body):
        ctxt = wsgi.authorize(sv_policies.UPDATE)
        reason = body.get('disabled_reason')
        if not reason:
            raise exception.InvalidInput(
                reason='Missing disabled reason field')
        return _update_named(ctxt, body,
                             {'disabled': True, 'disabled_reason': reason},
                             status='disabled', disabled_reason=reason)

    @validation.schema(schemas.service_force_down)
    def force_down(self, body):
        ctxt = wsgi.authorize(sv_policies.UPDATE)
        forced_down = validation.to_bool(body['forced_down'])
        return _update_named(ctxt, body, {'forced_down': forced_down},
                             forced_down=forced_down)

    # --- helpers ---------------------------------------------------------

    def _path_action(self):
        """Run the action the path names. An unknown one is a 404, after
        the policy check: only those who may update learn which exist."""
        found = wsgi.find_action(self, self.service_id)
        if found is None:
            wsgi.authorize(sv_policies.UPDATE)
            raise exception.ResourceNotFound(
                message='Unknown action: %s' % self.service_id)
        handler, _status = found
        return handler(body=wsgi.request_body())

    @staticmethod
    def _by_uuid():
        return wsgi.api_version() >= _BY_UUID

    def _checked_id(self):
        """The path id, 400 if it is not a uuid (2.53+) or an integer."""
        if self._by_uuid():
            if hosts_api.parse_id(self.service_id, True) is None:
                raise exception.InvalidInput(
                    reason='Invalid uuid %s' % self.service_id)
        elif hosts_api.parse_id(self.service_id, False) is None:
            raise exception.InvalidInput(
                reason='Invalid service id %s' % self.service_id)
        return self.service_id

    def _update(self, body):
        """PUT /os-services/{service_uuid} (2.53): status, disabled_reason
        and forced_down of a compute service."""
        self._checked_id()
        ctxt = wsgi.authorize(sv_policies.UPDATE)
        service = hosts_api.service_get_by_id(ctxt, self.service_id,
                                                by_uuid=True)
        if service.binary != constants.COMPUTE_BINARY:
            raise exception.ServiceUpdateNotSupported(
                binary=service.binary, compute=constants.COMPUTE_BINARY)
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
        hosts_api.service_update(ctxt, service)
        return {'service': views.show(service, wsgi.api_version())}


class ServicesController(object):
    """/os-services"""

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    @validation.query_schema(schemas.index_query, av.MIN,
                             av.before(av.STRICT_QUERY_EMPTY_SERVERS))
    @validation.query_schema(schemas.index_query_v275,
                             av.STRICT_QUERY_EMPTY_SERVERS)
    def index(self, query=None):
        ctxt = wsgi.authorize(sv_policies.LIST)
        version = wsgi.api_version()
        listing = hosts_api.service_get_all(
            ctxt, host=validation.last(query, 'host'),
            binary=validation.last(query, 'binary'),
            include_unavailable=version >= av.SERVICE_DOWN_CELLS)
        # The API's own records are not services an operator manages.
        listing = listing._replace(services=[
            s for s in listing.services
            if s.binary != constants.API_BINARY])
        return views.index(listing, version)
