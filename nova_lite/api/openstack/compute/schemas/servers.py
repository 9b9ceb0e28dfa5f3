"""Request schemas of servers, per microversion: create, update and the
query strings of the lists."""
import copy

from nova_lite.api.openstack import validation

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
    # Accepted and ignored, as in the Compute API.
    'block_device_mapping', 'services', 'metadata', 'pci_devices',
    'security_groups', 'info_cache', 'system_metadata',
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
        {name: _string for name in _FILTERS},
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
    name: _string for name in ('tags', 'tags-any', 'not-tags',
                               'not-tags-any')})

index_query_v266 = copy.deepcopy(index_query_v226)
index_query_v266['properties']['changes-before'] = _string

index_query_v273 = copy.deepcopy(index_query_v266)
index_query_v273['properties']['locked'] = validation.multi_params(
    validation.boolean)
index_query_v273['properties']['sort_key'] = validation.multi_params(
    {'type': 'string', 'enum': SORT_KEYS + ['locked'] +
     IGNORED_SORT_KEYS_V273})

index_query_v275 = copy.deepcopy(index_query_v273)
index_query_v275['additionalProperties'] = False

# --- POST /servers ----------------------------------------------------------

_ipv4 = {'type': 'string', 'format': 'ipv4'}
_ipv6 = {'type': 'string', 'format': 'ipv6'}
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
        'port': {'oneOf': [validation.uuid, {'type': 'null'}]},
        'uuid': {'type': 'string'},
    },
    'additionalProperties': False,
}
_network_v232 = copy.deepcopy(_network)
_network_v232['properties']['tag'] = _tag

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
        'device_name': {'type': 'string', 'maxLength': 255},
        'volume_size': {'type': ['integer', 'string', 'null'],
                        'pattern': '^[0-9]+$', 'minimum': 1},
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

create = {
    'type': 'object',
    'properties': {
        'server': {
            'type': 'object',
            'properties': {
                'name': validation.name,
                'imageRef': {'type': 'string', 'maxLength': 255},
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
        'os:scheduler_hints': {'type': 'object'},
        'OS-SCH-HNT:scheduler_hints': {'type': 'object'},
    },
    'required': ['server'],
    'additionalProperties': False,
}

create_v219 = copy.deepcopy(create)
create_v219['properties']['server']['properties']['description'] = \
    validation.description

create_v232 = copy.deepcopy(create_v219)
create_v232['properties']['server']['properties']['networks'] = {
    'type': 'array', 'items': _network_v232}
create_v232['properties']['server']['properties'][
    'block_device_mapping_v2'] = {'type': 'array', 'items': _bdm_v232}

create_v237 = copy.deepcopy(create_v232)
create_v237['properties']['server']['properties']['networks'] = {
    'oneOf': [{'type': 'array', 'items': _network_v232},
              {'type': 'string', 'enum': ['none', 'auto']}]}
create_v237['properties']['server']['required'].append('networks')

create_v252 = copy.deepcopy(create_v237)
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

update = {
    'type': 'object',
    'properties': {
        'server': {
            'type': 'object',
            'properties': {
                'name': validation.name,
                'OS-DCF:diskConfig': {'type': 'string',
                                      'enum': ['AUTO', 'MANUAL']},
                'accessIPv4': {'type': ['string', 'null'],
                               'format': 'ipv4'},
                'accessIPv6': {'type': ['string', 'null'],
                               'format': 'ipv6'},
            },
            'additionalProperties': False,
        },
    },
    'required': ['server'],
    'additionalProperties': False,
}

update_v219 = copy.deepcopy(update)
update_v219['properties']['server']['properties']['description'] = \
    validation.description
