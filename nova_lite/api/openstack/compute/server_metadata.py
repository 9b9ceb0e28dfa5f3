"""/servers/{server_id}/metadata[/{key}]: a server's metadata, read by
readers of its project, changed by its members (policies
os_compute_api:server-metadata:*). Another project's server does not
exist (404); a locked server or one in a state that forbids the change
is a 409; more items than ``[DEFAULT] metadata_items`` a 403."""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import server_metadata \
    as schemas
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import server_metadata as metadata_api
from nova_lite import exception
from nova_lite.policies import server_metadata as sm_policies


def authorized_record(ctxt, server_id, rule):
    """The server's record (as the compute API's sub-resource functions
    take it) once rule allows the caller on the server's project;
    InstanceNotFound (404) first for another project's."""
    rec = metadata_api.record(ctxt, server_id)
    ctxt.can(rule, target={'project_id': rec.project_id})
    return rec


class ServerMetadataItemController(object):
    """/servers/{server_id}/metadata/{key}"""

    def __init__(self, server_id, key):
        self.server_id = server_id
        self.key = key

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.request_context()
        rec = authorized_record(ctxt, self.server_id, sm_policies.SHOW)
        value = metadata_api.get_item(ctxt, rec, self.key)
        return {'meta': {self.key: value}}

    @wsgi.expose()
    @validation.schema(schemas.meta)
    def put(self, body=None):
        ctxt = wsgi.request_context()
        rec = authorized_record(ctxt, self.server_id, sm_policies.UPDATE)
        if self.key not in body['meta']:
            raise exception.InvalidInput(
                reason='Request body and URI mismatch')
        metadata_api.update(ctxt, rec, body['meta'])
        return {'meta': body['meta']}

    @wsgi.expose(status=204)
    def delete(self):
        ctxt = wsgi.request_context()
        rec = authorized_record(ctxt, self.server_id, sm_policies.DELETE)
        metadata_api.delete_item(ctxt, rec, self.key)


class ServerMetadataController(object):
    """/servers/{server_id}/metadata"""

    def __init__(self, server_id):
        self.server_id = server_id

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    def index(self):
        ctxt = wsgi.request_context()
        rec = authorized_record(ctxt, self.server_id, sm_policies.INDEX)
        return {'metadata': metadata_api.get_all(ctxt, rec)}

    @wsgi.expose()
    @validation.schema(schemas.metadata)
    def post(self, body=None):
        ctxt = wsgi.request_context()
        rec = authorized_record(ctxt, self.server_id, sm_policies.CREATE)
        return {'metadata': metadata_api.update(ctxt, rec, body['metadata'])}

    @wsgi.expose()
    @validation.schema(schemas.metadata)
    def put(self, body=None):
        ctxt = wsgi.request_context()
        rec = authorized_record(ctxt, self.server_id, sm_policies.UPDATE_ALL)
        return {'metadata': metadata_api.update(
            ctxt, rec, body['metadata'], replace=True)}
