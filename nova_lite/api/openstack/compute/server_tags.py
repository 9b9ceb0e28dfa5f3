"""/servers/{server_id}/tags[/{tag}] (microversion 2.26; 404 before): a
server's tags, read by readers of its project, changed by its members
(policies os_compute_api:os-server-tags:*). Another project's server
does not exist (404); a server in a state that forbids the change is a
409; a bad tag or more than 50 tags a 400."""
from urllib import parse

import pecan

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import server_tags as schemas
from nova_lite.api.openstack.compute import server_metadata
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import server_tags as tags_api
from nova_lite.policies import server_tags as st_policies

authorized_record = server_metadata.authorized_record


class ServerTagController(object):
    """/servers/{server_id}/tags/{tag}"""

    def __init__(self, server_id, tag):
        self.server_id = server_id
        self.tag = tag

    @wsgi.expose(status=204)
    def index(self):
        ctxt = wsgi.request_context()
        rec = authorized_record(ctxt, self.server_id, st_policies.SHOW)
        tags_api.exists(ctxt, rec, self.tag)

    @wsgi.expose(status=201)
    def put(self):
        ctxt = wsgi.request_context()
        rec = authorized_record(ctxt, self.server_id, st_policies.UPDATE)
        added = tags_api.add(ctxt, rec, self.tag)
        if not added:
            return wsgi.WithStatus(None, 204)
        pecan.response.headers['Location'] = '%s/servers/%s/tags/%s' % (
            pecan.request.application_url, self.server_id,
            parse.quote(self.tag))
        return None

    @wsgi.expose(status=204)
    def delete(self):
        ctxt = wsgi.request_context()
        rec = authorized_record(ctxt, self.server_id, st_policies.DELETE)
        tags_api.delete(ctxt, rec, self.tag)


class ServerTagsController(object):
    """/servers/{server_id}/tags"""

    def __init__(self, server_id):
        self.server_id = server_id

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.request_context()
        rec = authorized_record(ctxt, self.server_id, st_policies.INDEX)
        return {'tags': tags_api.get_all(ctxt, rec)}

    @wsgi.expose()
    @validation.schema(schemas.update_all, av.SERVER_TAGS)
    def put(self, body=None):
        ctxt = wsgi.request_context()
        tags_api.check_tags(body['tags'])
        rec = authorized_record(ctxt, self.server_id, st_policies.UPDATE_ALL)
        return {'tags': tags_api.replace(ctxt, rec, body['tags'])}

    @wsgi.expose(status=204)
    def delete(self):
        ctxt = wsgi.request_context()
        rec = authorized_record(ctxt, self.server_id, st_policies.DELETE_ALL)
        tags_api.delete_all(ctxt, rec)
