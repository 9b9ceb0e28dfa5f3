"""/servers/{server_id}/metadata[/{key}]: a server's metadata, read by
readers of its project, changed by its members (policies
os_compute_api:server-metadata:*). Another project's server does not
exist (404); a locked server or one in a state that forbids the change
is a 409; more items than ``[DEFAULT] metadata_items`` a 403."""
from nova_lite.api.openstack.compute.schemas import server_metadata \
    as schemas
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute import server_metadata as metadata_api
from nova_lite import exception
from nova_lite.policies import server_metadata as sm_policies


def policy_check(ctxt, action):
    """check(record) for the compute API: action on the server's
    project."""
    def check(rec):
        ctxt.can(action, target={'project_id': rec['project_id']})
    return check


class ServerMetadataItemController(object):
    """/servers/{server_id}/metadata/{key}"""

    def __init__(self, server_id, key):
        self.server_id = server_id
        self.key = key

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.request_context()
        value = metadata_api.get_item(
            ctxt, self.server_id, self.key,
            check=policy_check(ctxt, sm_policies.SHOW))
        return {'meta': {self.key: value}}

    @wsgi.expose()
    @validation.schema(schemas.meta)
    def put(self, body=None):
        ctxt = wsgi.request_context()
        policy = policy_check(ctxt, sm_policies.UPDATE)

        def check(rec):
            policy(rec)
            if self.key not in body['meta']:
                raise exception.InvalidInput(
                    reason='Request body and URI mismatch')

        metadata_api.update(ctxt, self.server_id, body['meta'], check=check)
        return {'meta': body['meta']}

    @wsgi.expose(status=204)
    def delete(self):
        ctxt = wsgi.request_context()
        metadata_api.delete_item(ctxt, self.server_id, self.key,
                                 check=policy_check(ctxt, sm_policies.DELETE))


class ServerMetadataController(object):
    """/servers/{server_id}/metadata"""

    def __init__(self, server_id):
        self.server_id = server_id

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.request_context()
        return {'metadata': metadata_api.get_all(
            ctxt, self.server_id, check=policy_check(ctxt, sm_policies.INDEX))}

    @wsgi.expose()
    @validation.schema(schemas.metadata)
    def post(self, body=None):
        ctxt = wsgi.request_context()
        return {'metadata': metadata_api.update(
            ctxt, self.server_id, body['metadata'],
            check=policy_check(ctxt, sm_policies.CREATE))}

    @wsgi.expose()
    @validation.schema(schemas.metadata)
    def put(self, body=None):
        ctxt = wsgi.request_context()
        return {'metadata': metadata_api.update(
            ctxt, self.server_id, body['metadata'], replace=True,
            check=policy_check(ctxt, sm_policies.UPDATE_ALL))}
