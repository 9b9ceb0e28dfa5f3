"""/limits, os-quota-sets and os-quota-class-sets.

- ``GET /limits``: the caller's project's absolute limits and usage (an
  administrator may name another project with ``?tenant_id=``); the
  network entries until 2.35, maxImageMeta until 2.38, the personality
  ones until 2.56; ``rate`` is always empty.
- ``os-quota-sets/{project_id}``: show (``?user_id=`` for a user in
  it), ``/defaults``, ``/detail`` (in_use, limit, reserved), PUT (a
  limit below usage is a 400 unless ``force``) and DELETE (back to
  the defaults); the network quotas until 2.35, the personality ones
  until 2.56.
- ``os-quota-class-sets/{id}``: show and PUT (the class ``default``
  holds the defaults); network quotas until 2.49, server group ones
  from 2.50, the personality ones until 2.56.
"""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import quotas as schemas
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import quotas as quotas_api
from nova_lite import exception
from nova_lite.policies import quotas as qp

NETWORK = ('floating_ips', 'fixed_ips', 'security_groups',
           'security_group_rules')
PERSONALITY = ('injected_files', 'injected_file_content_bytes',
               'injected_file_path_length')
# Resources whose name in the API differs from the stored one: Nova shows
# the [quota] injected_file_path_length limit as injected_file_path_bytes.
API_NAMES = {'injected_file_path_length': 'injected_file_path_bytes'}
STORED_NAMES = {v: k for k, v in API_NAMES.items()}
SERVER_GROUPS = ('server_groups', 'server_group_members')
_INT_MAX = 0x7FFFFFFF


def _set_resources(version):
    """The resources a quota set shows at version."""
    names = list(quotas_api.RESOURCES)
    if version >= av.QUOTA_NETWORK_REMOVED:
        names = [n for n in names if n not in NETWORK]
    if version >= av.QUOTA_PERSONALITY_REMOVED:
        names = [n for n in names if n not in PERSONALITY]
    return names


def _class_resources(version):
    names = list(quotas_api.RESOURCES)
    if version >= av.QUOTA_CLASS_SERVER_GROUPS:
        names = [n for n in names if n not in NETWORK]
    else:
        names = [n for n in names if n not in SERVER_GROUPS]
    if version >= av.QUOTA_PERSONALITY_REMOVED:
        names = [n for n in names if n not in PERSONALITY]
    return names


def _limit_values(body):
    """{resource: int} of a validated quota body (strings of integers
    allowed; below -1 or above 2**31-1 a 400 naming the key)."""
    values = {}
    for key, value in body.items():
        if key == 'force':
            continue
        number = int(value)
        if not -1 <= number <= _INT_MAX:
            raise exception.ValidationError(
                field=key, detail='%s must be between -1 and %d.'
                % (key, _INT_MAX))
        values[STORED_NAMES.get(key, key)] = number
    return values


def _queried(query, name):
    values = (query or {}).get(name)
    return values[0] if values else None


def _user_query(fn):
    fn = validation.query_schema(schemas.user_query_v275,
                                 av.STRICT_QUERY_EMPTY_SERVERS)(fn)
    return validation.query_schema(
        schemas.user_query, av.MIN,
        av.before(av.STRICT_QUERY_EMPTY_SERVERS))(fn)


def _no_query(fn):
    """A quota class set takes no query parameter from 2.102 (as Nova;
    the project defaults keep ignoring them at every version)."""
    return validation.query_schema(schemas.no_query_v275,
                                   av.STRICT_QUERY_EVERYWHERE)(fn)


# --- /limits -------------------------------------------------------------

_ABSOLUTE = (
    ('maxTotalRAMSize', 'ram', None, None),
    ('maxTotalInstances', 'instances', None, None),
    ('maxTotalCores', 'cores', None, None),
    ('maxTotalKeypairs', 'key_pairs', None, None),
    ('maxTotalFloatingIps', 'floating_ips', None,
     av.QUOTA_NETWORK_REMOVED),
    ('maxServerMeta', 'metadata_items', None, None),
    ('maxImageMeta', 'metadata_items', None,
     av.LIMITS_IMAGE_META_REMOVED),
    ('maxPersonality', 'injected_files', None,
     av.QUOTA_PERSONALITY_REMOVED),
    ('maxPersonalitySize', 'injected_file_content_bytes', None,
     av.QUOTA_PERSONALITY_REMOVED),
    ('maxSecurityGroups', 'security_groups', None,
     av.QUOTA_NETWORK_REMOVED),
    ('maxSecurityGroupRules', 'security_group_rules', None,
     av.QUOTA_NETWORK_REMOVED),
    ('maxServerGroups', 'server_groups', None, None),
    ('maxServerGroupMembers', 'server_group_members', None, None),
)
_USED = (
    ('totalRAMUsed', 'ram', None),
    ('totalCoresUsed', 'cores', None),
    ('totalInstancesUsed', 'instances', None),
    ('totalFloatingIpsUsed', 'floating_ips', av.QUOTA_NETWORK_REMOVED),
    ('totalSecurityGroupsUsed', 'security_groups',
     av.QUOTA_NETWORK_REMOVED),
    ('totalServerGroupsUsed', 'server_groups', None),
)


def _limits_body(limits, used, version):
    absolute = {}
    for key, resource, _, removed in _ABSOLUTE:
        if removed is None or version < removed:
            absolute[key] = limits[resource]
    for key, resource, removed in _USED:
        if removed is None or version < removed:
            absolute[key] = used.get(resource, 0)
    return {'limits': {'absolute': absolute, 'rate': []}}


class LimitsController(object):
    """/limits"""

    @wsgi.expose()
    @validation.query_schema(schemas.limits_query_v275,
                             av.STRICT_QUERY_EMPTY_SERVERS)
    @validation.query_schema(schemas.limits_query, av.MIN,
                             av.before(av.STRICT_QUERY_EMPTY_SERVERS))
    def index(self, query=None):
        ctxt = wsgi.request_context()
        project_id = ctxt.project_id
        ctxt.can(qp.LIMITS, target={'project_id': project_id})
        requested = _queried(query, 'tenant_id')
        if requested and requested != ctxt.project_id:
            ctxt.can(qp.LIMITS_OTHER_PROJECT,
                     target={'project_id': requested})
            project_id = requested
        limits, used = quotas_api.project_usage_and_limits(ctxt, project_id)
        return _limits_body(limits, used, wsgi.api_version())


# --- os-quota-sets -------------------------------------------------------

def _set_body(values, version, project_id=None):
    body = {API_NAMES.get(name, name): values[name]
            for name in _set_resources(version)}
    if project_id is not None:
        body['id'] = project_id
    return {'quota_set': body}


class QuotaSetController(object):
    """/os-quota-sets/{project_id}"""

    def __init__(self, project_id):
        self.project_id = project_id

    def _can(self, rule):
        ctxt = wsgi.request_context()
        ctxt.can(rule, target={'project_id': self.project_id})
        return ctxt

    @wsgi.expose()
    @_user_query
    def index(self, query=None):
        ctxt = self._can(qp.QS_SHOW)
        values = quotas_api.limits(ctxt, self.project_id,
                                   _queried(query, 'user_id'))
        return _set_body(values, wsgi.api_version(), self.project_id)

    @wsgi.expose()
    @validation.schema(schemas.update, av.MIN,
                       av.before(av.QUOTA_NETWORK_REMOVED))
    @validation.schema(schemas.update_v236, av.QUOTA_NETWORK_REMOVED,
                       av.before(av.QUOTA_PERSONALITY_REMOVED))
    @validation.schema(schemas.update_v257, av.QUOTA_PERSONALITY_REMOVED)
    @_user_query
    def put(self, body=None, query=None):
        ctxt = self._can(qp.QS_UPDATE)
        params = body['quota_set']
        force = validation.to_bool(params.get('force', False))
        values = quotas_api.update(
            ctxt, self.project_id, _limit_values(params),
            user_id=_queried(query, 'user_id'), force=force)
        return _set_body(values, wsgi.api_version())

    @wsgi.expose(status=202)
    @_user_query
    def delete(self, query=None):
        ctxt = self._can(qp.QS_DELETE)
        quotas_api.delete(ctxt, self.project_id, _queried(query, 'user_id'))


class QuotaSetDefaultsController(QuotaSetController):
    """/os-quota-sets/{project_id}/defaults"""

    @wsgi.expose()
    def index(self, query=None):
        ctxt = self._can(qp.QS_DEFAULTS)
        return _set_body(quotas_api.defaults(ctxt), wsgi.api_version(),
                         self.project_id)


class QuotaSetDetailController(QuotaSetController):
    """/os-quota-sets/{project_id}/detail"""

    @wsgi.expose()
    @_user_query
    def index(self, query=None):
        ctxt = self._can(qp.QS_DETAIL)
        user_id = _queried(query, 'user_id')
        limits = quotas_api.limits(ctxt, self.project_id, user_id)
        used = quotas_api.usage(ctxt, self.project_id, user_id)
        body = {API_NAMES.get(name, name): {
                    'in_use': used.get(name, 0), 'limit': limits[name],
                    'reserved': 0}
                for name in _set_resources(wsgi.api_version())}
        body['id'] = self.project_id
        return {'quota_set': body}


# --- os-quota-class-sets -------------------------------------------------

class QuotaClassSetController(object):
    """/os-quota-class-sets/{id}"""

    def __init__(self, class_name):
        self.class_name = class_name

    def _body(self, values, with_id):
        version = wsgi.api_version()
        body = {API_NAMES.get(name, name): values[name]
                for name in _class_resources(version)}
        if with_id:
            body['id'] = self.class_name
        return {'quota_class_set': body}

    @wsgi.expose()
    @_no_query
    def index(self, query=None):
        ctxt = wsgi.request_context()
        ctxt.can(qp.QCS_SHOW, target={'quota_class': self.class_name})
        return self._body(quotas_api.class_limits(ctxt, self.class_name),
                          True)

    @wsgi.expose()
    @validation.schema(schemas.class_update, av.MIN,
                       av.before(av.QUOTA_CLASS_SERVER_GROUPS))
    @validation.schema(schemas.class_update_v250,
                       av.QUOTA_CLASS_SERVER_GROUPS,
                       av.before(av.QUOTA_PERSONALITY_REMOVED))
    @validation.schema(schemas.class_update_v257,
                       av.QUOTA_PERSONALITY_REMOVED)
    def put(self, body=None):
        ctxt = wsgi.request_context()
        ctxt.can(qp.QCS_UPDATE, target={'quota_class': self.class_name})
        values = quotas_api.update_class(
            ctxt, self.class_name, _limit_values(body['quota_class_set']))
        return self._body(values, False)
