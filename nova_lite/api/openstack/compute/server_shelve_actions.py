"""The server actions shelve, shelveOffload, unshelve, rescue and
unrescue (``POST /servers/{server_id}/action``), a mixin of the server
action controller (which holds ``server_id`` and ``_authorized``): each
handler validates the body for the request's microversion, checks
policy on the server's project and calls
nova_lite.compute.api.server_shelve."""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import server_shelve as schemas
from nova_lite.api.openstack.compute import server_common
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import server_shelve
from nova_lite.conf import CONF
from nova_lite.policies import server_shelve as policies


class ShelveActions(object):
    """Shelve and rescue, mixed into the server action controller."""

    @validation.schema(schemas.shelve)
    def shelve(self, body):
        ctxt, instance = self._authorized(policies.SHELVE)
        server_shelve.shelve(ctxt, instance)

    @validation.schema(schemas.shelve_offload)
    def shelve_offload(self, body):
        ctxt, instance = self._authorized(policies.SHELVE_OFFLOAD)
        server_shelve.shelve_offload(ctxt, instance)

    @validation.schema(schemas.unshelve, av.MIN,
                       av.before(av.UNSHELVE_AVAILABILITY_ZONE))
    @validation.schema(schemas.unshelve_v277, av.UNSHELVE_AVAILABILITY_ZONE,
                       av.before(av.UNSHELVE_HOST))
    @validation.schema(schemas.unshelve_v291, av.UNSHELVE_HOST)
    def unshelve(self, body):
        ctxt, instance = self._authorized(policies.UNSHELVE)
        zone, host = server_shelve.UNSET, None
        if wsgi.api_version() >= av.UNSHELVE_AVAILABILITY_ZONE:
            request = body['unshelve'] or {}
            if 'availability_zone' in request:
                zone = request['availability_zone']
            host = request.get('host')
        if host:
            ctxt.can(policies.UNSHELVE_TO_HOST,
                     target={'project_id': instance.project_id})
        server_shelve.unshelve(ctxt, instance, availability_zone=zone,
                               host=host)

    @validation.schema(schemas.rescue)
    def rescue(self, body):
        request = body['rescue'] or {}
        ctxt, instance = self._authorized(policies.RESCUE)
        password = server_common.admin_password(request)
        server_shelve.rescue(
            ctxt, instance, password,
            rescue_image_ref=request.get('rescue_image_ref'),
            allow_volume_backed=(wsgi.api_version()
                                 >= av.RESCUE_VOLUME_BACKED))
        if CONF.api.enable_instance_password:
            return {'adminPass': password}
        return {}

    @validation.schema(schemas.unrescue)
    def unrescue(self, body):
        ctxt, instance = self._authorized(policies.UNRESCUE)
        server_shelve.unrescue(ctxt, instance)
