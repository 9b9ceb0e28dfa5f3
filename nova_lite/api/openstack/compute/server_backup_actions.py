"""createBackup, changePassword, restore and forceDelete (``POST
/servers/{server_id}/action``, a mixin of the server action controller,
which holds ``server_id`` and ``_authorized``) and
``/servers/{server_id}/os-server-password``: each handler validates the
body, checks policy on the server's project and calls
nova_lite.compute.api.server_backups (forceDelete: servers.delete)."""
import pecan

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import server_backups as schemas
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import server_actions
from nova_lite.compute.api import server_backups
from nova_lite.compute.api import servers as compute_servers
from nova_lite.policies import server_backups as policies


def _owner(instance):
    return {'project_id': instance.project_id, 'user_id': instance.user_id}


class BackupActions(object):
    """createBackup, changePassword, restore and forceDelete, mixed into
    the server action controller."""

    @validation.schema(schemas.create_backup)
    def create_backup(self, body):
        request = body['createBackup']
        ctxt, instance = self._authorized(policies.CREATE_BACKUP)
        rotation = int(request['rotation'])
        image = server_backups.backup(
            ctxt, instance, request['name'], request['backup_type'],
            rotation, metadata=request.get('metadata'))
        if wsgi.api_version() >= av.CREATE_IMAGE_ID_IN_BODY:
            return {'image_id': image['id']}
        if rotation > 0:
            pecan.response.headers['Location'] = '%s/images/%s' % (
                pecan.request.application_url.rstrip('/'), image['id'])
        return None

    @validation.schema(schemas.change_password)
    def change_password(self, body):
        ctxt, instance = self._authorized(policies.CHANGE_PASSWORD)
        server_backups.change_password(
            ctxt, instance, body['changePassword']['adminPass'])

    @validation.schema(schemas.restore)
    def restore(self, body):
        ctxt, instance = self._authorized(policies.RESTORE)
        server_backups.restore(ctxt, instance)

    @validation.schema(schemas.force_delete)
    def force_delete(self, body):
        ctxt, _instance = self._authorized(policies.FORCE_DELETE)
        compute_servers.delete(ctxt, self.server_id, force=True)


class ServerPasswordController(object):
    """/servers/{server_id}/os-server-password"""

    def __init__(self, server_id):
        self.server_id = server_id

    def _authorized(self, rule):
        ctxt = wsgi.request_context()
        instance = server_actions.get(ctxt, self.server_id)
        ctxt.can(rule, target=_owner(instance))
        return ctxt, instance

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    def index(self):
        _ctxt, instance = self._authorized(policies.PASSWORD_SHOW)
        password = ''
        if instance.obj_attr_is_set('id'):
            password = server_backups.get_password(instance)
        return {'password': password}

    @wsgi.expose(status=204)
    def delete(self):
        ctxt, instance = self._authorized(policies.PASSWORD_CLEAR)
        server_backups.clear_password(ctxt, instance)
