"""os-server-groups: create, list, show and delete a project's server
groups. A group of another project is a 404 to non-administrators;
policy decides against the group's project."""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import server_groups as schemas
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import server_groups as groups_api
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.policies import server_groups as sg_policies


def _view(group, version):
    body = {'id': group.uuid, 'name': group.name,
            'members': list(group.members or [])}
    if version >= av.SERVER_GROUP_POLICY_RULES:
        body['policy'] = group.policy
        body['rules'] = dict(group.rules or {})
    else:
        body['policies'] = [group.policy]
        body['metadata'] = {}
    if version >= av.SERVER_GROUP_PROJECT_USER:
        body['project_id'] = group.project_id
        body['user_id'] = group.user_id
    return body


def _group(ctxt, group_id):
    """The group, as the caller may see it: another project's is a 404
    unless the caller is an administrator."""
    group = groups_api.get(ctxt, group_id)
    if group.project_id != ctxt.project_id and not ctxt.is_admin:
        raise exception.InstanceGroupNotFound(group_uuid=group_id)
    return group


class ServerGroupController(object):
    """/os-server-groups/{server_group_id}"""

    def __init__(self, group_id):
        self.group_id = group_id

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    def index(self):
        ctxt = wsgi.request_context()
        group = _group(ctxt, self.group_id)
        ctxt.can(sg_policies.SHOW, target={'project_id': group.project_id})
        return {'server_group': _view(group, wsgi.api_version())}

    @wsgi.expose(status=204)
    def delete(self):
        ctxt = wsgi.request_context()
        group = _group(ctxt, self.group_id)
        ctxt.can(sg_policies.DELETE, target={'project_id': group.project_id})
        groups_api.delete(ctxt, group)


class ServerGroupsController(object):
    """/os-server-groups"""

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    @validation.query_schema(schemas.index_query, av.MIN,
                             av.before(av.STRICT_QUERY_EMPTY_SERVERS))
    @validation.query_schema(schemas.index_query_v275,
                             av.STRICT_QUERY_EMPTY_SERVERS)
    def index(self, query=None):
        ctxt = wsgi.request_context()
        project_id = ctxt.project_id
        ctxt.can(sg_policies.INDEX, target={'project_id': project_id})
        if 'all_projects' in (query or {}) and ctxt.can(
                sg_policies.INDEX_ALL_PROJECTS,
                target={'project_id': project_id}, fatal=False):
            project_id = None
        limit = validation.last(query, 'limit')
        limit = CONF.api.max_limit if limit is None else min(
            int(limit), CONF.api.max_limit)
        offset = int(validation.last(query, 'offset') or 0)
        version = wsgi.api_version()
        groups = groups_api.get_all(ctxt, project_id=project_id,
                                    limit=limit, offset=offset)
        return {'server_groups': [_view(g, version) for g in groups]}

    @wsgi.expose()
    @validation.schema(schemas.create, av.MIN,
                       av.before(av.SERVER_GROUP_SOFT_POLICIES))
    @validation.schema(schemas.create_v215, av.SERVER_GROUP_SOFT_POLICIES,
                       av.before(av.SERVER_GROUP_POLICY_RULES))
    @validation.schema(schemas.create_v264, av.SERVER_GROUP_POLICY_RULES)
    def post(self, body=None):
        ctxt = wsgi.request_context()
        ctxt.can(sg_policies.CREATE, target={'project_id': ctxt.project_id,
                                             'user_id': ctxt.user_id})
        version = wsgi.api_version()
        params = body['server_group']
        if version >= av.SERVER_GROUP_POLICY_RULES:
            policy = params['policy']
            rules = {k: int(v) for k, v in (params.get('rules')
                                            or {}).items()}
            if rules and policy != 'anti-affinity':
                raise exception.Invalid(
                    message='Only anti-affinity policy supports rules.')
        else:
            policy, rules = params['policies'][0], {}
        group = groups_api.create(ctxt, params['name'], policy, rules)
        return {'server_group': _view(group, version)}
