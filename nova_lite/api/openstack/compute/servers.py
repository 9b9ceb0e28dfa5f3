"""Servers: create, list (summary and detail, across cells), show,
update, delete and their addresses (/ips).

Over 500 lines on purpose: the list query string alone is ~40 filters
and sort keys whose meaning, admin-only status and validity change with
the microversion (2.26, 2.66, 2.73, 2.75); they are read here, next to
the handlers, so that one URL's behaviour is found in one module. The
server actions (a resource of forty small handlers) will live in their
own module.
"""
import re

from oslo_utils import strutils
from oslo_utils import timeutils
from oslo_utils import uuidutils
import pecan

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import servers as schemas
from nova_lite.api.openstack.compute import server_common
from nova_lite.api.openstack.compute.views import servers as views
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import server_actions as server_actions_api
from nova_lite.compute.api import server_listing
from nova_lite.compute.api import servers as servers_api
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.policies import servers as sv_policies

# Filters anyone may use; others need allow_all_filters (and are
# silently dropped otherwise, as in the Compute API).
_USER_FILTERS = ('reservation_id', 'name', 'status', 'image', 'flavor',
                 'ip', 'changes-since', 'all_tenants')
_USER_FILTERS_V283 = ('availability_zone', 'config_drive', 'key_name',
                      'created_at', 'launched_at', 'terminated_at',
                      'power_state', 'task_state', 'vm_state', 'progress',
                      'user_id')
_TAG_FILTERS = {'tags': 'tags', 'tags-any': 'tags_any',
                'not-tags': 'not_tags', 'not-tags-any': 'not_tags_any'}
_PAGING = ('limit', 'marker', 'sort_key', 'sort_dir')
# Query parameters passed straight to the listing as equality filters.
_EQUAL_FILTERS = {'reservation_id': 'reservation_id', 'user_id': 'user_id',
                  'host': 'host', 'node': 'node',
                  'availability_zone': 'availability_zone',
                  'key_name': 'key_name'}
# Query parameters searched as regular expressions in a column.
_REGEX_FILTERS = dict(
    {name: name for name in server_listing.REGEX_FILTERS},
    name='name', display_name='name', description='display_description')
_ADMIN_SORT_KEYS = ('host', 'node')


_from = server_common.from_versions


# The create schema of each microversion range.
_CREATE_SCHEMAS = _from(
    (schemas.create, av.MIN),
    (schemas.create_v219, av.SERVER_DESCRIPTION),
    (schemas.create_v232, av.SERVER_NETWORK_TAGS),
    (schemas.create_v233, av.SERVER_BDM_TAG_LOST),
    (schemas.create_v237, av.SERVER_NETWORKS_AUTO),
    (schemas.create_v242, av.SERVER_DEVICE_TAGS_BACK),
    (schemas.create_v252, av.SERVER_TAGS_ON_CREATE),
    (schemas.create_v257, av.SERVER_NO_PERSONALITY),
    (schemas.create_v263, av.SERVER_TRUSTED_CERTS),
    (schemas.create_v267, av.SERVER_BDM_VOLUME_TYPE),
    (schemas.create_v274, av.SERVER_REQUESTED_DESTINATION),
    (schemas.create_v290, av.SERVER_HOSTNAME),
    (schemas.create_v294, av.SERVER_HOSTNAME_FQDN))
# The list query schema of each microversion range.
_LIST_QUERY_SCHEMAS = _from(
    (schemas.index_query, av.MIN),
    (schemas.index_query_v226, av.SERVER_TAGS),
    (schemas.index_query_v266, av.SERVER_CHANGES_BEFORE),
    (schemas.index_query_v273, av.SERVER_LOCKED_REASON),
    (schemas.index_query_v275, av.STRICT_QUERY_EMPTY_SERVERS))


_validated = server_common.validated
builder = server_common.builder


# --- list query ----------------------------------------------------------

def _allowed_filters(ctxt, version):
    """Filter names this caller may use (None: every declared one)."""
    if ctxt.can(sv_policies.ALLOW_ALL_FILTERS, target={}, fatal=False):
        return None
    allowed = set(_USER_FILTERS) | set(_PAGING)
    if version >= av.SERVER_IP6_FILTER:
        allowed.add('ip6')
    if version >= av.SERVER_TAGS:
        allowed.update(_TAG_FILTERS)
    if version >= av.SERVER_CHANGES_BEFORE:
        allowed.add('changes-before')
    if version >= av.SERVER_LOCKED_REASON:
        allowed.add('locked')
    if version >= av.SERVER_MORE_USER_FILTERS:
        allowed.update(_USER_FILTERS_V283)
    return allowed


def _time(query, name):
    value = validation.last(query, name)
    if value is None:
        return None
    try:
        parsed = timeutils.parse_isotime(value)
    except ValueError:
        raise exception.InvalidInput(
            reason='Invalid filter field: %s.' % name)
    return timeutils.normalize_time(parsed)


def _bool(query, name):
    value = validation.last(query, name)
    return None if value is None else validation.to_bool(value)


def _all_tenants(query):
    if 'all_tenants' not in query:
        return False
    value = validation.last(query, 'all_tenants')
    if value == '':
        return True
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError as exc:
        raise exception.InvalidInput(reason=str(exc))


def _status_filters(ctxt, version, statuses, filters):
    """vm_state/task_state filters of status values; False when no
    status is known (an empty list before 2.38)."""
    vm_states, task_states = views.states_of_statuses(statuses)
    if not vm_states and not task_states:
        if version >= av.SERVER_STRICT_STATUS:
            raise exception.InvalidInput(reason='Invalid status value')
        return False
    filters['vm_state'] = vm_states
    if 'default' not in task_states:
        filters['task_state'] = task_states
    if vm_states == ['deleted']:
        if not ctxt.is_admin:
            raise exception.Forbidden(
                message='Only administrators may list deleted instances')
        filters['deleted'] = True
    return True


def _sorting(ctxt, version, query):
    """(sort_keys, sort_dirs) requested, ignored keys dropped with their
    direction; host and node only for administrators (403)."""
    keys = [*query.get('sort_key', ())]
    dirs = [*query.get('sort_dir', ())]
    ignored = (schemas.IGNORED_SORT_KEYS_V273
               if version >= av.SERVER_LOCKED_REASON
               else schemas.IGNORED_SORT_KEYS)
    kept_keys, kept_dirs = [], []
    for index, key in enumerate(keys):
        # Keys with no column here (kernel_id, ...) sort nothing.
        if key in ignored or key not in server_listing.SORTABLE:
            continue
        if key in _ADMIN_SORT_KEYS and not ctxt.is_admin:
            raise exception.Forbidden(
                message='Only administrators can sort servers by %s' % key)
        kept_keys.append(key)
        if index < len(dirs):
            kept_dirs.append(dirs[index])
    if not keys and dirs:
        kept_dirs = dirs
    return kept_keys, kept_dirs


def _search(ctxt, version, query, detailed):
    """(filters for the listing, all_tenants), or None for an empty
    answer (an unknown status before 2.38)."""
    allowed = _allowed_filters(ctxt, version)
    if allowed is not None:
        query = {k: v for k, v in query.items() if k in allowed}
    filters = {}
    for name, key in _EQUAL_FILTERS.items():
        if validation.last(query, name) is not None:
            filters[key] = validation.last(query, name)
    for name, key in _REGEX_FILTERS.items():
        if validation.last(query, name) is not None:
            filters[key] = validation.last(query, name)
            try:
                re.compile(filters[key])
            except re.error:
                raise exception.InvalidInput(
                    reason='Invalid %s filter: %s' % (name, filters[key]))
    if 'image' in query:
        filters['image_ref'] = validation.last(
            query, 'image').rstrip('/').rsplit('/', 1)[-1]
    if 'flavor' in query:
        filters['flavor'] = validation.last(query, 'flavor')
    for name in ('ip', 'ip6'):
        if validation.last(query, name):
            filters[name] = validation.last(query, name)
    if 'uuid' in query:
        filters['uuid'] = [*query['uuid']]
    if 'vm_state' in query:
        filters['vm_state'] = [*query['vm_state']]
    if 'task_state' in query:
        filters['task_state'] = [None if s in ('', 'None') else s
                                 for s in query['task_state']]
    if 'status' in query and not _status_filters(
            ctxt, version, query['status'], filters):
        return None
    since = _time(query, 'changes-since')
    before = _time(query, 'changes-before')
    if since and before and before < since:
        raise exception.InvalidInput(
            reason='The value of changes-since must be less than or equal '
                   'to changes-before.')
    if since:
        filters['changes_since'] = since
    if before:
        filters['changes_before'] = before
    if _bool(query, 'soft_deleted') or 'soft-delete' in (
            filters.get('vm_state') or ()):
        filters['soft_deleted'] = True
    if 'deleted' not in filters:
        deleted = _bool(query, 'deleted')
        if deleted is not None:
            filters['deleted'] = deleted
        elif since is None and before is None:
            filters['deleted'] = False
        else:
            # changes-since/-before list recently deleted servers too.
            filters['deleted'] = 'any'
    if version >= av.SERVER_TAGS:
        for name, key in _TAG_FILTERS.items():
            value = validation.last(query, name)
            if value:
                filters[key] = [t for t in value.split(',') if t]
    if version >= av.SERVER_LOCKED_REASON and 'locked' in query:
        filters['locked'] = _bool(query, 'locked')
    all_tenants = _all_tenants(query)
    if all_tenants:
        ctxt.can(sv_policies.DETAIL_ALL_TENANTS if detailed
                 else sv_policies.INDEX_ALL_TENANTS, target={})
        project = (validation.last(query, 'project_id')
                   or validation.last(query, 'tenant_id'))
        if project:
            filters['project_id'] = project
    elif ctxt.project_id:
        filters['project_id'] = ctxt.project_id
    else:
        filters['user_id'] = ctxt.user_id
    return filters, all_tenants


def _limit(query):
    limit = validation.last(query, 'limit')
    if limit is None:
        return CONF.api.max_limit
    return min(int(limit), CONF.api.max_limit)


def _list(query, detailed):
    ctxt = wsgi.authorize(sv_policies.DETAIL if detailed
                          else sv_policies.INDEX, own_project=True)
    version = wsgi.api_version()
    sort_keys, sort_dirs = _sorting(ctxt, version, query)
    limit = _limit(query)
    render = builder(ctxt, version) if detailed else views.Builder(
        pecan.request.application_url, version)
    params = [*pecan.request.GET.items()]
    searched = _search(ctxt, version, query, detailed)
    if searched is None:
        return {'servers': []}
    filters, all_tenants = searched
    records = server_listing.list(
        ctxt, filters, sort_keys, sort_dirs, limit=limit,
        marker=validation.last(query, 'marker'), all_tenants=all_tenants,
        cell_down_support=version >= av.SERVER_DOWN_CELLS,
        host_status=detailed and render.host_status is not None,
        detailed=detailed)
    body = render.index(records, detailed, limit, params)
    return server_common.with_request_spec_fields(
        ctxt, body, version if detailed else None)


_list_query = _validated(validation.query_schema, _LIST_QUERY_SCHEMAS)


# --- create ----------------------------------------------------------------

_create_schemas = _validated(validation.schema, _CREATE_SCHEMAS)


def _networks(ctxt, server, target):
    """The networks requested: None (none said, before 2.37), 'auto',
    'none' or the list of {uuid, port, fixed_ip[, tag]}."""
    networks = server.get('networks')
    if networks is None or isinstance(networks, str):
        return networks
    for item in networks:
        if item.get('uuid') and not uuidutils.is_uuid_like(item['uuid']):
            raise exception.InvalidInput(
                reason='Bad networks format: network uuid is not in proper '
                       'format (%s)' % item['uuid'])
    if networks:
        ctxt.can(sv_policies.CREATE_ATTACH_NETWORK, target=target)
    return networks


def _zone(ctxt, server, target):
    """(availability_zone as the compute API takes it: 'zone',
    'zone:host', 'zone::node' or 'zone:host:node', the host and node
    forced; (host, node) requested at 2.74 or None), checking the
    policies of forced and requested hosts."""
    zone = server.get('availability_zone')
    if zone and any(zone.split(':')[1:]):
        ctxt.can(sv_policies.CREATE_FORCED_HOST, target=target)
    host, node = server.get('host'), server.get('hypervisor_hostname')
    if host or node:
        ctxt.can(sv_policies.CREATE_REQUESTED_DESTINATION, target=target)
        servers_api.check_requested_destination(ctxt, host, node)
        return zone, (host, node)
    return zone, None


def _boot_devices(ctxt, server, target):
    """(image id or None for a volume-backed server, block device
    mappings as dicts): imageRef and block_device_mapping_v2 read as the
    compute API's parse_boot_devices says (400 for a bad mapping)."""
    image = server.get('imageRef') or None
    if image:
        image = image.rstrip('/').rsplit('/', 1)[-1]
    image, bdms = servers_api.parse_boot_devices(
        image, server.get('block_device_mapping_v2'), ctxt)
    if any(b['destination_type'] == 'volume' for b in bdms):
        ctxt.can(sv_policies.CREATE_ATTACH_VOLUME, target=target)
    return image, bdms


def _create_args(ctxt, body, version):
    """servers_api.create's arguments from a validated body."""
    server = body['server']
    target = {'project_id': ctxt.project_id, 'user_id': ctxt.user_id}
    image, bdms = _boot_devices(ctxt, server, target)
    min_count = int(server.get('min_count', 1))
    max_count = int(server.get('max_count', min_count))
    if min_count > max_count:
        raise exception.InvalidInput(
            reason='min_count must be <= max_count')
    if server.get('hostname') and max_count > 1:
        raise exception.InvalidInput(
            reason='Cannot use the hostname parameter when creating more '
                   'than one server (max_count > 1)')
    if server.get('trusted_image_certificates'):
        ctxt.can(sv_policies.CREATE_TRUSTED_CERTS, target=target)
    zone, requested = _zone(ctxt, server, target)
    return dict(
        flavor_id=str(server['flavorRef']).rstrip('/').rsplit('/', 1)[-1],
        image_id=image, block_device_mapping=bdms,
        name=server['name'], min_count=min_count, max_count=max_count,
        requested_networks=_networks(ctxt, server, target),
        metadata=server.get('metadata'),
        availability_zone=zone, requested_destination=requested,
        key_name=server.get('key_name'), user_data=server.get('user_data'),
        description=(server.get('description')
                     if version >= av.SERVER_DESCRIPTION else None),
        access_ip_v4=validation.access_ip(server.get('accessIPv4')),
        access_ip_v6=validation.access_ip(server.get('accessIPv6')),
        config_drive=(validation.to_bool(server['config_drive'])
                      if 'config_drive' in server else None),
        tags=server.get('tags') if version >= av.SERVER_TAGS_ON_CREATE
        else None,
        auto_disk_config=validation.auto_disk_config(server),
        injected_files=[(f.get('path'), f.get('contents'))
                        for f in server.get('personality') or ()],
        scheduler_hints=(body.get('os:scheduler_hints')
                         or body.get('OS-SCH-HNT:scheduler_hints')),
        security_groups=_security_group_names(server),
        hostname=server.get('hostname'))


def _security_group_names(server):
    """The names (or ids) of a create body's security_groups, each
    once, in order; None when it names none (the default group)."""
    names = []
    for group in server.get('security_groups') or ():
        name = group.get('name')
        if name and name not in names:
            names.append(name)
    return names or None


_admin_password = server_common.admin_password


# --- one server ----------------------------------------------------------

def _server(ctxt, server_id, action, cell_down_support=False,
            host_status=False):
    """The server's record once policy lets the caller do action on it
    (a server of another project is a 404 first)."""
    rec = server_listing.get(ctxt, server_id,
                             cell_down_support=cell_down_support,
                             host_status=host_status)
    ctxt.can(action, target={'project_id': rec.project_id})
    return rec


def _update_values(body, version):
    server = body['server']
    values = {}
    if 'name' in server:
        values['display_name'] = server['name']
    if version >= av.SERVER_DESCRIPTION and 'description' in server:
        values['display_description'] = server['description']
    if 'accessIPv4' in server:
        values['access_ip_v4'] = validation.access_ip(server['accessIPv4'])
    if 'accessIPv6' in server:
        values['access_ip_v6'] = validation.access_ip(server['accessIPv6'])
    if validation.DISK_CONFIG in server:
        values['auto_disk_config'] = validation.auto_disk_config(server)
    if version >= av.SERVER_HOSTNAME and 'hostname' in server:
        values['hostname'] = server['hostname']
    return values


class IPController(object):
    """/servers/{server_id}/ips/{network_label}"""

    def __init__(self, server_id, label):
        self.server_id = server_id
        self.label = label

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.request_context()
        rec = _server(ctxt, self.server_id, sv_policies.IPS_SHOW)
        body = views.Builder.ips_of_network(rec, self.label)
        if body is None:
            raise exception.ResourceNotFound(
                message='Instance is not a member of specified network')
        return body


class IPsController(object):
    """/servers/{server_id}/ips"""

    def __init__(self, server_id):
        self.server_id = server_id

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    def index(self):
        ctxt = wsgi.request_context()
        rec = _server(ctxt, self.server_id, sv_policies.IPS_INDEX)
        return views.Builder.ips(rec)


class ServerController(object):
    """/servers/{server_id} and its /ips, /metadata and /tags."""

    def __init__(self, server_id):
        self.server_id = server_id

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    def index(self):
        ctxt = wsgi.request_context()
        version = wsgi.api_version()
        render = builder(ctxt, version)
        rec = _server(ctxt, self.server_id, sv_policies.SHOW,
                      cell_down_support=version >= av.SERVER_DOWN_CELLS,
                      host_status=render.host_status is not None)
        return server_common.with_request_spec_fields(
            ctxt, server_common.with_server_groups(ctxt, render.show(rec)),
            version)

    @wsgi.expose()
    @validation.schema(schemas.update, av.MIN,
                       av.before(av.SERVER_DESCRIPTION))
    @validation.schema(schemas.update_v219, av.SERVER_DESCRIPTION,
                       av.before(av.SERVER_HOSTNAME))
    @validation.schema(schemas.update_v290, av.SERVER_HOSTNAME,
                       av.before(av.SERVER_HOSTNAME_FQDN))
    @validation.schema(schemas.update_v294, av.SERVER_HOSTNAME_FQDN,
                       av.before(av.SERVER_PINNED_AZ_UPDATE))
    @validation.schema(schemas.update_v2104, av.SERVER_PINNED_AZ_UPDATE)
    def put(self, body=None):
        ctxt = wsgi.request_context()
        version = wsgi.api_version()
        render = builder(ctxt, version)
        host_status = (render.host_status is not None and
                       version >= av.STRICT_QUERY_EMPTY_SERVERS)
        rec = _server(ctxt, self.server_id, sv_policies.UPDATE,
                      host_status=host_status)
        server = body['server']
        if (version >= av.SERVER_PINNED_AZ_UPDATE
                and 'pinned_availability_zone' in server):
            servers_api.set_pinned_zone(
                ctxt, self.server_id, server['pinned_availability_zone'],
                rec.host, rec.availability_zone)
        rec = server_listing.update(
            ctxt, self.server_id, rec=rec, host_status=host_status,
            **_update_values(body, version))
        return server_common.with_request_spec_fields(
            ctxt, server_common.with_server_groups(ctxt,
                                                   render.updated(rec)),
            version)

    @wsgi.expose(status=204)
    def delete(self):
        ctxt = wsgi.request_context()
        mapping = server_actions_api.get_mapping(ctxt, self.server_id)
        ctxt.can(sv_policies.DELETE, target={'project_id': mapping.project_id,
                                             'user_id': mapping.user_id})
        servers_api.delete(ctxt, self.server_id)


class ServersController(object):
    """/servers, /servers/detail"""

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    @_list_query
    def index(self, query=None):
        return _list(query, detailed=False)

    @wsgi.expose(status=202)
    @_create_schemas
    def post(self, body=None):
        ctxt = wsgi.request_context()
        ctxt.can(sv_policies.CREATE, target={'project_id': ctxt.project_id,
                                             'user_id': ctxt.user_id})
        version = wsgi.api_version()
        server = body['server']
        password = _admin_password(server)
        created, reservation_id = servers_api.create(
            ctxt, admin_password=password,
            **_create_args(ctxt, body, version))
        if validation.to_bool(server.get('return_reservation_id', False)):
            return {'reservation_id': reservation_id}
        return views.Builder(pecan.request.application_url, version).created(
            created[0].uuid,
            admin_pass=(password if CONF.api.enable_instance_password
                        else None),
            disk_config=('AUTO' if created[0].auto_disk_config
                         else 'MANUAL'),
            security_groups=server.get('security_groups'))

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    @_list_query
    def detail(self, query=None):
        return _list(query, detailed=True)
