"""/servers/{server_id}/os-volume_attachments[/{volume_id}]: a server's
volumes, listed and shown by readers of its project, attached, updated
(delete_on_termination, 2.85) and detached by its members (policies
os_compute_api:os-volumes-attachments:*). Another project's server does
not exist (404); a server in a state that forbids the change is a 409;
a volume that is not available a 400. A PUT naming another volume is a
swap (policy swap: the service role), which the simulated driver cannot
do (409)."""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import volume_attachments \
    as schemas
from nova_lite.api.openstack.compute.views import volume_attachments \
    as views
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import volume_attachments as va_api
from nova_lite import exception
from nova_lite.policies import volume_attachments as policies


def _server(ctxt, server_id, rule):
    """The server once rule allows the caller (404 first for another
    project's)."""
    instance = va_api.get_server(ctxt, server_id)
    ctxt.can(rule, target={'project_id': instance.project_id})
    return instance


def _check_unchanged(body, bdm, server_id):
    """2.85: only delete_on_termination may change (400 otherwise)."""
    attachment = body['volumeAttachment']
    current = {'id': bdm.volume_id, 'serverId': server_id,
               'device': bdm.device_name, 'tag': bdm.tag}
    for name, value in current.items():
        if name in attachment and attachment[name] != value:
            raise exception.InvalidInput(
                reason='The %s of a volume attachment cannot be updated.'
                       % name)


class VolumeAttachmentController(object):
    """/servers/{server_id}/os-volume_attachments/{volume_id}"""

    def __init__(self, server_id, volume_id):
        self.server_id = server_id
        self.volume_id = volume_id

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.request_context()
        instance = _server(ctxt, self.server_id, policies.SHOW)
        bdm = va_api.get_attachment(instance, self.volume_id)
        return views.show(bdm, self.server_id, wsgi.api_version())

    @wsgi.expose(status=202)
    @validation.schema(schemas.update, av.MIN,
                       av.before(av.VOLUME_ATTACHMENT_UPDATE))
    @validation.schema(schemas.update_v285, av.VOLUME_ATTACHMENT_UPDATE)
    def put(self, body=None):
        ctxt = wsgi.request_context()
        version = wsgi.api_version()
        new_volume_id = body['volumeAttachment']['volumeId']
        is_swap = new_volume_id != self.volume_id
        if version < av.VOLUME_ATTACHMENT_UPDATE or is_swap:
            instance = _server(ctxt, self.server_id, policies.SWAP)
            va_api.swap(ctxt, instance, self.volume_id, new_volume_id)
            return None
        instance = _server(ctxt, self.server_id, policies.UPDATE)
        bdm = va_api.get_attachment(instance, self.volume_id)
        _check_unchanged(body, bdm, self.server_id)
        value = body['volumeAttachment'].get('delete_on_termination')
        va_api.update(ctxt, instance, self.volume_id,
                      None if value is None else validation.to_bool(value))
        return None

    @wsgi.expose(status=202)
    def delete(self):
        ctxt = wsgi.request_context()
        instance = _server(ctxt, self.server_id, policies.DELETE)
        va_api.check_version(
            instance, 'detach_volume',
            wsgi.api_version() >= av.VOLUME_ATTACH_SHELVED)
        va_api.detach(ctxt, instance, self.volume_id)


class VolumeAttachmentsController(object):
    """/servers/{server_id}/os-volume_attachments"""

    def __init__(self, server_id):
        self.server_id = server_id

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    @validation.query_schema(schemas.index_query, av.MIN,
                             av.before(av.STRICT_QUERY_EMPTY_SERVERS))
    @validation.query_schema(schemas.index_query_v275,
                             av.STRICT_QUERY_EMPTY_SERVERS)
    def index(self, query=None):
        ctxt = wsgi.request_context()
        instance = _server(ctxt, self.server_id, policies.INDEX)
        limit = validation.last(query, 'limit')
        offset = validation.last(query, 'offset')
        bdms = va_api.list_attachments(
            instance, limit=None if limit is None else int(limit),
            offset=int(offset or 0))
        return views.index(bdms, self.server_id, wsgi.api_version())

    @wsgi.expose(status=lambda version: (
        202 if version >= av.VOLUME_ATTACH_ACCEPTED else 200))
    @validation.schema(schemas.create, av.MIN,
                       av.before(av.VOLUME_ATTACH_TAG))
    @validation.schema(schemas.create_v249, av.VOLUME_ATTACH_TAG,
                       av.before(av.VOLUME_ATTACHMENT_DELETE_ON_TERMINATION))
    @validation.schema(schemas.create_v279,
                       av.VOLUME_ATTACHMENT_DELETE_ON_TERMINATION)
    def post(self, body=None):
        ctxt = wsgi.request_context()
        instance = _server(ctxt, self.server_id, policies.CREATE)
        va_api.check_version(
            instance, 'attach_volume',
            wsgi.api_version() >= av.VOLUME_ATTACH_SHELVED)
        attachment = body['volumeAttachment']
        bdm = va_api.attach(
            ctxt, instance, attachment['volumeId'],
            device=attachment.get('device'), tag=attachment.get('tag'),
            delete_on_termination=validation.to_bool(
                attachment.get('delete_on_termination', False)))
        return views.created(bdm, self.server_id, wsgi.api_version())
