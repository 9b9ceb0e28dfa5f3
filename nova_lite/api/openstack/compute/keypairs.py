"""os-keypairs: list, create or import, show and delete a user's key
pairs. The key pair's owner is the caller, or from 2.10 the user an
administrator names (user_id); policy decides against that user."""
import pecan

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import keypairs as schemas
from nova_lite.api.openstack.compute.views import keypairs as views
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import keypairs as keypairs_api
from nova_lite.conf import CONF
from nova_lite.objects import keypair as keypair_obj
from nova_lite.policies import keypairs as kp_policies


def _builder():
    return views.Builder(pecan.request.application_url, wsgi.api_version())


def _owner(action, user_id=None):
    """(context, the key pairs' user) once policy allows action on that
    user's key pairs."""
    ctxt = wsgi.request_context()
    user_id = user_id or ctxt.user_id
    ctxt.can(action, target={'user_id': user_id,
                             'project_id': ctxt.project_id})
    return ctxt, user_id


def _queried_user(query):
    """The user_id query parameter (2.10+; the first if repeated)."""
    values = (query or {}).get('user_id')
    return values[0] if values else None


def _created_status(version):
    return 201 if version >= av.KEYPAIR_TYPE else 200


def _deleted_status(version):
    return 204 if version >= av.KEYPAIR_TYPE else 202


def _user_query(fn):
    fn = validation.query_schema(schemas.user_query_v275,
                                 av.STRICT_QUERY_EMPTY_SERVERS)(fn)
    return validation.query_schema(
        schemas.user_query_v210, av.KEYPAIR_USER_ID,
        av.before(av.STRICT_QUERY_EMPTY_SERVERS))(fn)


class KeypairController(object):
    """/os-keypairs/{keypair_name}"""

    def __init__(self, name):
        self.name = name

    @wsgi.expose()
    @_user_query
    def index(self, query=None):
        ctxt, user_id = _owner(kp_policies.SHOW, _queried_user(query))
        keypair = keypairs_api.get_key_pair(ctxt, user_id, self.name)
        return _builder().show(keypair)

    @wsgi.expose(status=_deleted_status)
    @_user_query
    def delete(self, query=None):
        ctxt, user_id = _owner(kp_policies.DELETE, _queried_user(query))
        keypairs_api.delete_key_pair(ctxt, user_id, self.name)


class KeypairsController(object):
    """/os-keypairs"""

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    @validation.query_schema(schemas.user_query_v210, av.KEYPAIR_USER_ID,
                             av.before(av.KEYPAIR_PAGING))
    @validation.query_schema(schemas.index_query_v235, av.KEYPAIR_PAGING,
                             av.before(av.STRICT_QUERY_EMPTY_SERVERS))
    @validation.query_schema(schemas.index_query_v275,
                             av.STRICT_QUERY_EMPTY_SERVERS)
    def index(self, query=None):
        ctxt, user_id = _owner(kp_policies.INDEX, _queried_user(query))
        if wsgi.api_version() < av.KEYPAIR_PAGING:
            return _builder().index(keypairs_api.get_key_pairs(ctxt,
                                                               user_id))
        limit = validation.last(query, 'limit')
        limit = CONF.api.max_limit if limit is None else min(
            int(limit), CONF.api.max_limit)
        keypairs = keypairs_api.get_key_pairs(
            ctxt, user_id, limit=limit,
            marker=validation.last(query, 'marker'))
        params = {k: v[-1] for k, v in validation.query_params().items()}
        return _builder().index(keypairs, limit, params)

    @wsgi.expose(status=_created_status)
    @validation.schema(schemas.create, av.MIN, av.before(av.KEYPAIR_TYPE))
    @validation.schema(schemas.create_v22, av.KEYPAIR_TYPE,
                       av.before(av.KEYPAIR_USER_ID))
    @validation.schema(schemas.create_v210, av.KEYPAIR_USER_ID,
                       av.before(av.KEYPAIR_IMPORT_ONLY))
    @validation.schema(schemas.create_v292, av.KEYPAIR_IMPORT_ONLY)
    def post(self, body=None):
        params = body['keypair']
        ctxt, user_id = _owner(kp_policies.CREATE, params.get('user_id'))
        key_type = params.get('type', keypair_obj.KEYPAIR_TYPE_SSH)
        if 'public_key' in params:
            safe = (keypairs_api.SAFE_CHARS_V292
                    if wsgi.api_version() >= av.KEYPAIR_IMPORT_ONLY
                    else keypairs_api.SAFE_CHARS)
            keypair = keypairs_api.import_key_pair(
                ctxt, user_id, params['name'], params['public_key'],
                key_type, safe_chars=safe)
            return _builder().create(keypair)
        keypair, private_key = keypairs_api.create_key_pair(
            ctxt, user_id, params['name'], key_type)
        return _builder().create(keypair, private_key)
