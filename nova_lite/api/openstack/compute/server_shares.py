"""/servers/{server_id}/shares[/{share_id}] (2.97; 404 before): a
server's shares of the shares service, listed and shown by readers of
its project, attached and detached by its members (policies
os_compute_api:os-server-shares:*). Another project's server does not
exist (404); a server that is not stopped is a 409 (detach: stopped or
ERROR); a share that is missing a 404, not available or already
attached (same share or tag) a 409. Administrators also see the
mapping's uuid and the share's export_location in show and attach."""
from nova_lite.api.openstack.compute.schemas import server_shares \
    as schemas
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import server_shares as shares_api
from nova_lite.policies import server_shares as policies


def _server(ctxt, server_id, rule):
    """The server once rule allows the caller (404 first for another
    project's)."""
    instance = shares_api.get_server(ctxt, server_id)
    ctxt.can(rule, target={'project_id': instance.project_id})
    return instance


def _summary(mapping):
    return {'share_id': mapping.share_id, 'status': mapping.status,
            'tag': mapping.tag}


def _show(ctxt, mapping):
    share = _summary(mapping)
    if ctxt.is_admin:
        share['export_location'] = mapping.export_location
        share['uuid'] = mapping.uuid
    return {'share': share}


class ServerShareController(object):
    """/servers/{server_id}/shares/{share_id}"""

    def __init__(self, server_id, share_id):
        self.server_id = server_id
        self.share_id = share_id

    @wsgi.expose()
    @validation.query_schema(schemas.show_query)
    def index(self, query=None):
        ctxt = wsgi.request_context()
        instance = _server(ctxt, self.server_id, policies.SHOW)
        return _show(ctxt, shares_api.get_share(instance, self.share_id))

    @wsgi.expose(status=200)
    def delete(self):
        ctxt = wsgi.request_context()
        instance = _server(ctxt, self.server_id, policies.DELETE)
        shares_api.detach(ctxt, instance, self.share_id)


class ServerSharesController(object):
    """/servers/{server_id}/shares"""

    def __init__(self, server_id):
        self.server_id = server_id

    @wsgi.expose()
    @validation.query_schema(schemas.index_query)
    def index(self, query=None):
        ctxt = wsgi.request_context()
        instance = _server(ctxt, self.server_id, policies.INDEX)
        return {'shares': [_summary(m)
                           for m in shares_api.list_shares(instance)]}

    @wsgi.expose(status=201)
    @validation.schema(schemas.create)
    def post(self, body=None):
        ctxt = wsgi.request_context()
        instance = _server(ctxt, self.server_id, policies.CREATE)
        share = body['share']
        mapping = shares_api.attach(ctxt, instance, share['share_id'],
                                    tag=share.get('tag'))
        return _show(ctxt, mapping)
