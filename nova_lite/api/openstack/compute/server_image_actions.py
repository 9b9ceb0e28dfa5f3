"""The server actions rebuild and createImage
(``POST /servers/{server_id}/action``), a mixin of the server action
controller (which holds ``server_id`` and ``_authorized``): each handler
validates the body for the request's microversion, checks policy on the
server's project, calls nova_lite.compute.api.server_images and
renders."""
import pecan

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import server_images as schemas
from nova_lite.api.openstack.compute import server_common
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import server_images
from nova_lite.compute.api import server_listing
from nova_lite.conf import CONF
from nova_lite.policies import server_images as policies

_REBUILD_SCHEMAS = server_common.from_versions(
    (schemas.rebuild, av.MIN),
    (schemas.rebuild_v219, av.SERVER_DESCRIPTION),
    (schemas.rebuild_v254, av.SERVER_REBUILD_KEY_NAME),
    (schemas.rebuild_v257, av.SERVER_REBUILD_USER_DATA),
    (schemas.rebuild_v263, av.SERVER_TRUSTED_CERTS),
    (schemas.rebuild_v290, av.SERVER_HOSTNAME),
    (schemas.rebuild_v294, av.SERVER_HOSTNAME_FQDN))

# (body key, compute API argument, first microversion that takes it)
_REBUILD_VALUES = (
    ('name', 'name', av.MIN),
    ('metadata', 'metadata', av.MIN),
    ('accessIPv4', 'access_ip_v4', av.MIN),
    ('accessIPv6', 'access_ip_v6', av.MIN),
    ('description', 'description', av.SERVER_DESCRIPTION),
    ('key_name', 'key_name', av.SERVER_REBUILD_KEY_NAME),
    ('user_data', 'user_data', av.SERVER_REBUILD_USER_DATA),
    ('hostname', 'hostname', av.SERVER_HOSTNAME),
)


def _rebuild_args(rebuild, version):
    """server_images.rebuild's keyword arguments from a validated body."""
    args = {arg: rebuild[key] for key, arg, since in _REBUILD_VALUES
            if key in rebuild and version >= since}
    for arg in ('access_ip_v4', 'access_ip_v6'):
        if arg in args:
            args[arg] = validation.access_ip(args[arg])
    args['auto_disk_config'] = validation.auto_disk_config(rebuild)
    args['preserve_ephemeral'] = validation.to_bool(
        rebuild.get('preserve_ephemeral', False))
    return args


def _owner(instance):
    return {'project_id': instance.project_id, 'user_id': instance.user_id}


class ImageActions(object):
    """rebuild and createImage, mixed into the server action controller."""

    @server_common.validated(validation.schema, _REBUILD_SCHEMAS)
    def rebuild(self, body):
        version = wsgi.api_version()
        rebuild = body['rebuild']
        ctxt, instance = self._authorized(policies.REBUILD)
        if rebuild.get('trusted_image_certificates'):
            ctxt.can(policies.REBUILD_TRUSTED_CERTS, target=_owner(instance))
        password = server_common.admin_password(rebuild)
        server_images.rebuild(
            ctxt, instance, rebuild['imageRef'], admin_password=password,
            reimage_boot_volume=version >= av.REBUILD_VOLUME_BACKED,
            **_rebuild_args(rebuild, version))
        render = server_common.builder(ctxt, version)
        rec = server_listing.get(
            ctxt, self.server_id,
            host_status=(render.host_status is not None and
                         version >= av.SERVER_REBUILD_FULL_BODY))
        return server_common.with_request_spec_fields(
            ctxt, server_common.with_server_groups(ctxt, render.rebuilt(
                rec, admin_pass=(password
                                 if CONF.api.enable_instance_password
                                 else None))), version)

    @validation.schema(schemas.create_image)
    def create_image(self, body):
        request = body['createImage']
        ctxt, instance = self._authorized(policies.CREATE_IMAGE)
        snapshot = server_images.snapshot
        if not instance.image_ref:
            ctxt.can(policies.CREATE_IMAGE_VOLUME_BACKED,
                     target=_owner(instance))
            snapshot = server_images.snapshot_volume_backed
        image = snapshot(ctxt, instance, request['name'],
                         metadata=request.get('metadata'))
        if wsgi.api_version() >= av.CREATE_IMAGE_ID_IN_BODY:
            return {'image_id': image['id']}
        pecan.response.headers['Location'] = '%s/images/%s' % (
            pecan.request.application_url.rstrip('/'), image['id'])
        return None
