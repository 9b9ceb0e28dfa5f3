"""The security-group proxy below 2.36 (404 from 2.36), as Nova 34
answers it from Neutron: ``GET|POST /os-security-groups`` (the caller's
project's groups; an administrator's ``?all_tenants=1``: every
project's), ``GET|PUT|DELETE /os-security-groups/{id}``,
``POST /os-security-group-rules`` and
``DELETE /os-security-group-rules/{id}``, on the embedded network
service's groups. Groups show Nova's fields (``tenant_id``, ``rules``:
the ingress rules, each with ``ip_protocol``, ``from_port``,
``to_port``, ``ip_range`` {cidr} or ``group`` {name, tenant_id}). A
group id that is not a uuid is a 400; an unknown group a 404; deleting
the default group, or one in use, a 400; an existing rule again a 400.
"""
from oslo_utils import strutils

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import security_group_proxy \
    as schemas
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import security_group_proxy as sg_api
from nova_lite.policies import security_groups as policies

LAST = av.before(av.QUOTA_NETWORK_REMOVED)


def _ports(rule):
    low, high = rule['port_range_min'], rule['port_range_max']
    protocol = rule['protocol']
    if protocol and low is None and high is None:
        return (1, 65535) if protocol in ('tcp', 'udp') else (-1, -1)
    return low, high


def rule_view(rule, names):
    low, high = _ports(rule)
    body = {'id': rule['id'], 'parent_group_id': rule['security_group_id'],
            'ip_protocol': rule['protocol'], 'from_port': low,
            'to_port': high, 'group': {}, 'ip_range': {}}
    remote = rule['remote_group_id']
    if remote:
        name, project = names.get(remote, (None, None))
        body['group'] = {'name': name, 'tenant_id': project}
    else:
        body['ip_range'] = {'cidr': rule['remote_ip_prefix'] or (
            '::/0' if rule['ethertype'] == 'IPv6' else '0.0.0.0/0')}
    return body


def _names(ctxt, groups):
    return sg_api.group_names(ctxt, [r['remote_group_id'] for g in groups
                                     for r in g['rules']])


def group_view(group, names):
    return {'id': group['id'], 'name': group['name'],
            'description': group['description'] or '',
            'tenant_id': group['project_id'],
            'rules': [rule_view(r, names) for r in group['rules']
                      if r['direction'] == 'ingress']}


def _one(ctxt, group):
    return {'security_group': group_view(group, _names(ctxt, [group]))}


class SecurityGroupsController(object):
    """/os-security-groups"""

    @wsgi.expose()
    @validation.query_schema(schemas.index_query)
    def index(self, query=None):
        ctxt = wsgi.authorize(policies.GET, own_project=True)
        value = validation.last(query, 'all_tenants')
        all_tenants = value is not None and (
            value == '' or strutils.bool_from_string(value))
        groups = sg_api.list_groups(ctxt, all_tenants)
        names = _names(ctxt, groups)
        return {'security_groups': [group_view(g, names) for g in groups]}

    @wsgi.expose()
    @validation.schema(schemas.group)
    def post(self, body=None):
        ctxt = wsgi.authorize(policies.CREATE, own_project=True)
        params = body['security_group']
        # Kept as given, spaces and all (Nova checks a name has more
        # than spaces, and passes it on as it came).
        group = sg_api.create_group(ctxt, params['name'],
                                    params.get('description', ''))
        return _one(ctxt, group)


class SecurityGroupController(object):
    """/os-security-groups/{security_group_id}"""

    def __init__(self, group_id):
        self.group_id = group_id

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.authorize(policies.SHOW, own_project=True)
        return _one(ctxt, sg_api.get_group(ctxt, self.group_id))

    @wsgi.expose()
    @validation.schema(schemas.group)
    def put(self, body=None):
        ctxt = wsgi.authorize(policies.UPDATE, own_project=True)
        params = body['security_group']
        group = sg_api.update_group(ctxt, self.group_id, params['name'],
                                    params.get('description'))
        return _one(ctxt, group)

    @wsgi.expose(status=202)
    def delete(self):
        ctxt = wsgi.authorize(policies.DELETE, own_project=True)
        sg_api.delete_group(ctxt, self.group_id)


class SecurityGroupRulesController(object):
    """/os-security-group-rules"""

    @wsgi.expose()
    @validation.schema(schemas.rule)
    def post(self, body=None):
        ctxt = wsgi.authorize(policies.RULE_CREATE, own_project=True)
        params = body['security_group_rule']
        group_id = params.get('group_id')
        spec = sg_api.rule_spec(
            str(params['parent_group_id']), params.get('ip_protocol'),
            params.get('from_port'), params.get('to_port'),
            params.get('cidr'),
            None if group_id in (None, '') else str(group_id))
        sg_api.get_group(ctxt, spec['security_group_id'])
        rule = sg_api.create_rule(ctxt, spec)
        names = sg_api.group_names(ctxt, [rule['remote_group_id']])
        return {'security_group_rule': rule_view(rule, names)}


class SecurityGroupRuleController(object):
    """/os-security-group-rules/{rule_id}"""

    def __init__(self, rule_id):
        self.rule_id = rule_id

    @wsgi.expose(status=202)
    def delete(self):
        ctxt = wsgi.authorize(policies.RULE_DELETE, own_project=True)
        sg_api.delete_rule(ctxt, self.rule_id)
