"""Request schemas of servers, per microversion: create, update and the
query strings of the lists."""
import copy

from nova_lite.api.openstack import validation
from nova_lite import constants

# --- GET /servers, /servers/detail ------------------------------------------

# Keys a list may be sorted by; the ignored ones are accepted and dropped
# (as the Compute API does). 'locked' becomes a key at 2.73.
SORT_KEYS = ['access_ip_v4', 'access_ip_v6', 'auto_disk_config',
             'availability_zone', 'config_drive', 'created_at',
             'display_description', 'display_name', 'host', 'hostname',
             'image_ref', 'instance_type_id', 'kernel_id', 'key_name',
             'launch_index', 'launched_at', 'locked_by', 'node',
             'power_state', 'progress', 'project_id', 'ramdisk_id',
             'root_device_name', 'task_state', 'terminated_at',
             'updated_at', 'user_id', 'uuid', 'vm_state']
IGNORED_SORT_KEYS = ['architecture', 'cell_name', 'cleaned',
                     'default_ephemeral_device', 'default_swap_device',
                     'deleted', 'deleted_at', 'disable_terminate',
                     'ephemeral_gb', 'ephemeral_key_uuid', 'id', 'key_data',
                     'launched_on', 'locked', 'memory_mb', 'os_type',
                     'reservation_id', 'root_gb', 'shutdown_terminate',
                     'user_data', 'vcpus', 'vm_mode']
IGNORED_SORT_KEYS_V273 = [k for k in IGNORED_SORT_KEYS if k != 'locked']

_string = validation.multi_params({'type': 'string'})
_regex = validation.multi_params({'type': 'string', 'format': 'regex'})
# Filters the Compute API matches as regular expressions: an empty or
# broken expression is a 400.
_REGEX_FILTERS = (
    'kernel_id', 'ramdisk_id', 'hostname', 'key_name', 'power_state',
    'node', 'flavor', 'reservation_id', 'launched_at', 'terminated_at',
    'availability_zone', 'name', 'display_name', 'description',
    'display_description', 'locked_by', 'root_device_name',
    'config_drive', 'access_ip_v4', 'access_ip_v6', 'auto_disk_config',
    'progress', 'ip', 'ip6', 'created_at')
_TAG_FILTERS = ('tags', 'tags-any', 'not-tags', 'not-tags-any')

# Every filter the Compute API declares; which of them a caller may use
# is the controller's business (policy allow_all_filters).
_FILTERS = (
    'user_id', 'project_id', 'tenant_id', 'launch_index', 'image_ref',
    'image', 'kernel_id', 'ramdisk_id', 'hostname', 'key_name',
    'power_state', 'vm_state', 'task_state', 'host', 'node', 'flavor',
    'reservation_id', 'launched_at', 'terminated_at', 'availability_zone',
    'name', 'display_name', 'description', 'display_description',
    'locked_by', 'uuid', 'root_device_name', 'config_drive',
    'access_ip_v4', 'access_ip_v6', 'auto_disk_config', 'progress',
    'status', 'ip', 'ip6', 'created_at', 'changes-since', 'all_tenants',
    'deleted', 'soft_deleted',
    # Joined tables: declared by the Compute API (which answers them with
    # a 400 for administrators); ignored here.
    'block_device_mapping', 'services', 'metadata', 'pci_devices',
    'security_groups', 'info_cache', 'system_metadata')
# Instance fields the Compute API lets through before 2.75 (its schema
# allows any parameter then) and refuses from 2.75; ignored here.
_IGNORED_FILTERS = (
    'os_extended_volumes', 'vm_mode', 'os_type', 'architecture',
    'cleaned', 'shutdown_terminate', 'default_ephemeral_device',
    'default_swap_device', 'disable_terminate', 'launched_on',
    'ephemeral_key_uuid', 'key_data', 'updated_at', 'deleted_at',
    'memory_mb', 'vcpus', 'root_gb', 'ephemeral_gb', 'user_data',
    'config_drive_id', 'numa_topology', 'extra', 'flavor_id',
    'keypairs', 'migration_context', 'instance_type_id', 'id',
    'trusted_certs', 'resources', 'ec2_ids', 'fault', 'tags_info',
    'pci_requests', 'device_metadata', 'vcpu_model', 'cell_name')

index_query = {
    'type': 'object',
    'properties': dict(
        {name: _regex if name in _REGEX_FILTERS else _string
         for name in _FILTERS + _IGNORED_FILTERS},
        limit=validation.multi_params(validation.non_negative_integer),
        marker=_string,
        sort_key=validation.multi_params(
            {'type': 'string', 'enum': SORT_KEYS + IGNORED_SORT_KEYS}),
        sort_dir=validation.multi_params(
            {'type': 'string', 'enum': ['asc', 'desc']}),
        all_tenants=validation.multi_params({'type': 'string'}),
        deleted=validation.multi_params(validation.boolean),
    ),
    # Unknown parameters are ignored before 2.75.
    'additionalProperties': True,
}

index_query_v226 = copy.deepcopy(index_query)
index_query_v226['properties'].update({
    name: _regex for name in _TAG_FILTERS})

index_query_v266 = copy.deepcopy(index_query_v226)
index_query_v266['properties']['changes-before'] = _string

index_query_v273 = copy.deepcopy(index_query_v266)
# As strutils' strict reading: t/f, y/n, any case, blanks around.
index_query_v273['properties']['locked'] = validation.multi_params(
    {'type': 'string',
     'pattern': r'^\s*(?i:1|t|true|on|y|yes|0|f|false|off|n|no)\s*$'})
index_query_v273['properties']['sort_key'] = validation.multi_params(
    {'type': 'string', 'enum': SORT_KEYS + ['locked'] +
     IGNORED_SORT_KEYS_V273})

# From 2.75 a parameter the Compute API does not declare is a 400: the
# accepted-and-ignored filters go, and so do the ignored sort keys.
index_query_v275 = copy.deepcopy(index_query_v273)
index_query_v275['additionalProperties'] = False
# Parameters starting with "_" pass the schema (the Compute API refuses
# them later, for administrators only; here they are ignored).
index_query_v275['patternProperties'] = {'^_': _string}
for _ignored in _IGNORED_FILTERS:
    del index_query_v275['properties'][_ignored]
index_query_v275['properties']['sort_key'] = validation.multi_params(
    {'type': 'string', 'enum': SORT_KEYS + ['locked']})

# --- POST /servers ----------------------------------------------------------

_ipv4 = {'type': 'string', 'format': 'ipv4'}
_ipv6 = {'type': 'string', 'format': 'ipv6'}
# A server's description is a 255-character column (a flavor's is text).
description = dict(validation.description, maxLength=255)
_metadata = {
    'type': 'object',
    'patternProperties': {
        '^[a-zA-Z0-9-_:. ]{1,255}$': {'type': 'string', 'maxLength': 255},
    },
    'additionalProperties': False,
}
_positive = {'type': ['integer', 'string'], 'pattern': '^[0-9]+$',
             'minimum': 1}
_tag = {'type': 'string', 'minLength': 1, 'maxLength': 60,
        'pattern': '^[^,/]*$'}
_network = {
    'type': 'object',
    'properties': {
        'fixed_ip': {'type': 'string', 'oneOf': [{'format': 'ipv4'},
                                                 {'format': 'ipv6'}]},
        'port': {'type': ['string', 'null'], 'format': 'uuid'},
        'uuid': {'type': 'string'},
    },
    'additionalProperties': False,
}
_network_v232 = copy.deepcopy(_network)
_network_v232['properties']['tag'] = _tag
# From 2.37 the schema wants a UUID (the controller always did), and
# takes no tag until 2.42.
_network_v237 = copy.deepcopy(_network)
_network_v237['properties']['uuid'] = validation.uuid
_network_v242 = copy.deepcopy(_network_v237)
_network_v242['properties']['tag'] = _tag

# One block device mapping (v2). Only the image a server boots from, on
# local disk, is supported (clients send it with imageRef); the compute
# API refuses the others.
_bdm_v2 = {
    'type': 'object',
    'properties': {
        'source_type': {'type': 'string',
                        'enum': ['volume', 'image', 'snapshot', 'blank']},
        'uuid': {'type': 'string', 'minLength': 1, 'maxLength': 255,
                 'pattern': '^[a-zA-Z0-9._-]*$'},
        'image_id': validation.uuid,
        'destination_type': {'type': 'string',
                             'enum': ['local', 'volume']},
        'guest_format': {'type': 'string', 'maxLength': 255},
        'device_type': {'type': 'string', 'maxLength': 255},
        'disk_bus': {'type': 'string', 'maxLength': 255},
        'boot_index': {'type': ['integer', 'string', 'null'],
                       'pattern': '^-?[0-9]+$'},
        # No blanks nor empty names (block device names).
        'device_name': {'type': 'string', 'minLength': 1, 'maxLength': 255,
                        'pattern': '^[a-zA-Z0-9._/-]*$'},
        # GiB, at most a database integer.
        'volume_size': {'type': ['integer', 'string'],
                        'pattern': '^[0-9]+$', 'minimum': 1,
                        'maximum': constants.DB_MAX_INT},
        'volume_id': validation.uuid,
        'snapshot_id': validation.uuid,
        'delete_on_termination': validation.boolean,
        'no_device': {},
        'connection_info': {'type': 'string', 'maxLength': 16777215},
    },
    'additionalProperties': False,
}
_bdm_v232 = copy.deepcopy(_bdm_v2)
_bdm_v232['properties']['tag'] = _tag


_uuid_or_uuids = {'oneOf': [validation.uuid,
                            {'type': 'array', 'items': validation.uuid}]}
# Scheduler hints: any key may be given (filters of the deployment read
# them); those the Compute API knows are typed.
_hints = {
    'type': 'object',
    'properties': {
        'group': _uuid_or_uuids,
        'different_host': _uuid_or_uuids,
        'same_host': {'type': ['string', 'array'],
                      'items': validation.uuid},
        # A JSON-encoded query, or the query itself.
        'query': {'type': ['string', 'object']},
        'target_cell': validation.name,
        'different_cell': {'type': ['string', 'array'],
                           'items': {'type': 'string'}},
        'build_near_host_ip': {'type': 'string',
                               'oneOf': [{'format': 'ipv4'},
                                         {'format': 'ipv6'}]},
        'cidr': {'type': 'string', 'pattern': '^/[0-9a-f.:]+$'},
    },
    'additionalProperties': True,
}

create = {
    'type': 'object',
    'properties': {
        'server': {
            'type': 'object',
            'properties': {
                'name': validation.name,
                # A UUID; "" (or no key) when booting from a volume.
                'imageRef': {'oneOf': [validation.uuid,
                                       {'type': 'string', 'maxLength': 0}]},
                'flavorRef': {'type': ['string', 'integer'],
                              'minLength': 1},
                'adminPass': {'type': 'string'},
                'metadata': _metadata,
                'networks': {'type': 'array', 'items': _network},
                'OS-DCF:diskConfig': {'type': 'string',
                                      'enum': ['AUTO', 'MANUAL']},
                'accessIPv4': _ipv4,
                'accessIPv6': _ipv6,
                'personality': {
                    'type': 'array',
                    'items': {
                        'type': 'object',
                        'properties': {
                            'path': {'type': 'string'},
                            'contents': {'type': 'string',
                                         'format': 'base64'},
                        },
                        'additionalProperties': False,
                    }},
                'availability_zone': validation.name,
                'config_drive': validation.boolean,
                'key_name': validation.name,
                'min_count': _positive,
                'max_count': _positive,
                'return_reservation_id': validation.boolean,
                'security_groups': {
                    'type': 'array',
                    'items': {'type': 'object',
                              'properties': {'name': validation.name},
                              'additionalProperties': False}},
                'user_data': {'type': 'string', 'format': 'base64',
                              'maxLength': 65535},
                'block_device_mapping_v2': {'type': 'array',
                                            'items': _bdm_v2},
            },
            'required': ['name', 'flavorRef'],
            'additionalProperties': False,
        },
        'os:scheduler_hints': _hints,
        'OS-SCH-HNT:scheduler_hints': _hints,
    },
    'required': ['server'],
    'additionalProperties': False,
}

create_v219 = copy.deepcopy(create)
create_v219['properties']['server']['properties']['description'] = \
    description

create_v232 = copy.deepcopy(create_v219)
create_v232['properties']['server']['properties']['networks'] = {
    'type': 'array', 'items': _network_v232}
create_v232['properties']['server']['properties'][
    'block_device_mapping_v2'] = {'type': 'array', 'items': _bdm_v232}

# 2.33 to 2.36: block devices lost their tag (the Compute API's bug,
# kept as it is).
create_v233 = copy.deepcopy(create_v232)
create_v233['properties']['server']['properties'][
    'block_device_mapping_v2'] = {'type': 'array', 'items': _bdm_v2}


def _networks(item):
    return {'oneOf': [{'type': 'array', 'items': item},
                      {'type': 'string', 'enum': ['none', 'auto']}]}


# 2.37 to 2.41: networks required (or 'auto'/'none'), and no tags.
create_v237 = copy.deepcopy(create_v233)
create_v237['properties']['server']['properties']['networks'] = _networks(
    _network_v237)
create_v237['properties']['server']['required'].append('networks')

# 2.42: both tags back.
create_v242 = copy.deepcopy(create_v237)
create_v242['properties']['server']['properties']['networks'] = _networks(
    _network_v242)
create_v242['properties']['server']['properties'][
    'block_device_mapping_v2'] = {'type': 'array', 'items': _bdm_v232}

create_v252 = copy.deepcopy(create_v242)
create_v252['properties']['server']['properties']['tags'] = {
    'type': 'array', 'items': _tag, 'maxItems': 50}

create_v257 = copy.deepcopy(create_v252)
del create_v257['properties']['server']['properties']['personality']

create_v263 = copy.deepcopy(create_v257)
create_v263['properties']['server']['properties'][
    'trusted_image_certificates'] = {
    'type': ['array', 'null'], 'minItems': 1, 'maxItems': 50,
    'uniqueItems': True, 'items': {'type': 'string', 'minLength': 1}}

create_v267 = copy.deepcopy(create_v263)
create_v267['properties']['server']['properties'][
    'block_device_mapping_v2']['items']['properties']['volume_type'] = {
    'type': ['string', 'null'], 'minLength': 0, 'maxLength': 255}

create_v274 = copy.deepcopy(create_v267)
create_v274['properties']['server']['properties'].update(
    host=validation.hostname, hypervisor_hostname=validation.hostname)

# --- PUT /servers/{server_id} -----------------------------------------------

# 2.90: a hostname of 2..63 letters, digits and '-' (no leading or
# trailing '-'); 2.94: a fully qualified domain name of such labels, at
# most 255 characters (as the Compute API's parameter types).
hostname = {'type': 'string', 'minLength': 2, 'maxLength': 63,
            'pattern': '^[a-zA-Z0-9]+[a-zA-Z0-9-]*[a-zA-Z0-9]+$'}
fqdn = {'type': 'string', 'minLength': 1, 'maxLength': 255,
        'pattern': (r'^([a-zA-Z0-9]+[a-zA-Z0-9-]*[a-zA-Z0-9]+)'
                    r'(\.[a-zA-Z0-9]+[a-zA-Z0-9-]*[a-zA-Z0-9]+)*\.?$')}
# 2.104: the pinned zone (null unpins).
pinned_zone = {'type': ['string', 'null'], 'minLength': 1,
               'maxLength': 255}

create_v290 = copy.deepcopy(create_v274)
create_v290['properties']['server']['properties']['hostname'] = hostname
create_v294 = copy.deepcopy(create_v290)
create_v294['properties']['server']['properties']['hostname'] = fqdn

update = {
    'type': 'object',
    'properties': {
        'server': {
            'type': 'object',
            'properties': {
                'name': validation.name,
                'OS-DCF:diskConfig': {'type': 'string',
                                      'enum': ['AUTO', 'MANUAL']},
                'accessIPv4': _ipv4,
                'accessIPv6': _ipv6,
            },
            'additionalProperties': False,
        },
    },
    'required': ['server'],
    'additionalProperties': False,
}

update_v219 = copy.deepcopy(update)
update_v219['properties']['server']['properties']['description'] = \
    description
update_v290 = copy.deepcopy(update_v219)
update_v290['properties']['server']['properties']['hostname'] = hostname
update_v294 = copy.deepcopy(update_v290)
update_v294['properties']['server']['properties']['hostname'] = fqdn
update_v2104 = copy.deepcopy(update_v294)
update_v2104['properties']['server']['properties'][
    'pinned_availability_zone'] = pinned_zone
