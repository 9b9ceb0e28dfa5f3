"""Policy defaults for servers, as in Nova 34.

Readers of a project (and administrators) list and show its servers;
members create, update and delete them; listing every project's servers
(all_tenants), filtering on anything, the host fields
(OS-EXT-SRV-ATTR:*) and host_status are for administrators. The flavor's
extra specs in a 2.47 body are for readers and administrators. Another
project's server does not exist for a non-administrator (404).
"""
from oslo_policy import policy

from nova_lite.policies import base

SERVERS = 'os_compute_api:servers:%s'
INDEX = SERVERS % 'index'
DETAIL = SERVERS % 'detail'
INDEX_ALL_TENANTS = SERVERS % 'index:get_all_tenants'
DETAIL_ALL_TENANTS = SERVERS % 'detail:get_all_tenants'
ALLOW_ALL_FILTERS = SERVERS % 'allow_all_filters'
SHOW = SERVERS % 'show'
SHOW_HOST_STATUS = SERVERS % 'show:host_status'
SHOW_HOST_STATUS_UNKNOWN = SERVERS % 'show:host_status:unknown-only'
SHOW_FLAVOR_EXTRA_SPECS = SERVERS % 'show:flavor-extra-specs'
CREATE = SERVERS % 'create'
CREATE_FORCED_HOST = SERVERS % 'create:forced_host'
CREATE_REQUESTED_DESTINATION = SERVERS % 'create:requested_destination'
CREATE_ATTACH_VOLUME = SERVERS % 'create:attach_volume'
CREATE_ATTACH_NETWORK = SERVERS % 'create:attach_network'
CREATE_TRUSTED_CERTS = SERVERS % 'create:trusted_certs'
CREATE_ZERO_DISK_FLAVOR = SERVERS % 'create:zero_disk_flavor'
UPDATE = SERVERS % 'update'
DELETE = SERVERS % 'delete'
EXTENDED_ATTRIBUTES = 'os_compute_api:os-extended-server-attributes'
IPS_INDEX = 'os_compute_api:ips:index'
IPS_SHOW = 'os_compute_api:ips:show'

_SERVERS = '/servers'
_SERVER = '/servers/{server_id}'


def server_rule(name, check_str, description, operations):
    """A documented project-scoped rule of the operations [(method,
    path)] it governs."""
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'method': m, 'path': p} for m, p in operations],
        scope_types=['project'])


_rule = server_rule

rules = [
    _rule(INDEX, base.PROJECT_READER_OR_ADMIN, 'List servers.',
          [('GET', _SERVERS)]),
    _rule(DETAIL, base.PROJECT_READER_OR_ADMIN,
          'List servers with details.', [('GET', _SERVERS + '/detail')]),
    _rule(INDEX_ALL_TENANTS, base.ADMIN,
          'List the servers of every project (all_tenants).',
          [('GET', _SERVERS)]),
    _rule(DETAIL_ALL_TENANTS, base.ADMIN,
          'List the servers of every project with details (all_tenants).',
          [('GET', _SERVERS + '/detail')]),
    _rule(ALLOW_ALL_FILTERS, base.ADMIN,
          'Filter server lists on any field; others may filter only on '
          'the fields the Compute API reference lists for users (the rest '
          'are ignored).',
          [('GET', _SERVERS), ('GET', _SERVERS + '/detail')]),
    _rule(SHOW, base.PROJECT_READER_OR_ADMIN, 'Show a server.',
          [('GET', _SERVER)]),
    _rule(SHOW_HOST_STATUS, base.ADMIN,
          'Show host_status in server bodies (microversion 2.16).',
          [('GET', _SERVER), ('GET', _SERVERS + '/detail'),
           ('PUT', _SERVER)]),
    _rule(SHOW_HOST_STATUS_UNKNOWN, base.ADMIN,
          'Show host_status in server bodies only when it is UNKNOWN '
          '(microversion 2.16); overridden by %s.' % SHOW_HOST_STATUS,
          [('GET', _SERVER), ('GET', _SERVERS + '/detail'),
           ('PUT', _SERVER)]),
    _rule(SHOW_FLAVOR_EXTRA_SPECS, base.PROJECT_READER_OR_ADMIN,
          'Show the extra specs of the flavor a server carries '
          '(microversion 2.47); evaluated once per request.',
          [('GET', _SERVER), ('GET', _SERVERS + '/detail'),
           ('PUT', _SERVER)]),
    _rule(CREATE, base.PROJECT_MEMBER_OR_ADMIN, 'Create a server.',
          [('POST', _SERVERS)]),
    _rule(CREATE_FORCED_HOST, base.ADMIN,
          'Create a server on a named host (availability_zone '
          'zone:host:node).', [('POST', _SERVERS)]),
    _rule(CREATE_REQUESTED_DESTINATION, base.ADMIN,
          'Create a server on a requested host or node (microversion '
          '2.74).', [('POST', _SERVERS)]),
    _rule(CREATE_ATTACH_VOLUME, base.PROJECT_MEMBER_OR_ADMIN,
          'Create a server with volumes.', [('POST', _SERVERS)]),
    _rule(CREATE_ATTACH_NETWORK, base.PROJECT_MEMBER_OR_ADMIN,
          'Create a server with requested networks or ports.',
          [('POST', _SERVERS)]),
    _rule(CREATE_TRUSTED_CERTS, base.PROJECT_MEMBER_OR_ADMIN,
          'Create a server with trusted image certificates (microversion '
          '2.63).', [('POST', _SERVERS)]),
    _rule(CREATE_ZERO_DISK_FLAVOR, base.ADMIN,
          'Create a server booted from an image with a flavor of zero '
          'root disk.', [('POST', _SERVERS)]),
    _rule(UPDATE, base.PROJECT_MEMBER_OR_ADMIN, 'Update a server.',
          [('PUT', _SERVER)]),
    _rule(DELETE, base.PROJECT_MEMBER_OR_ADMIN, 'Delete a server.',
          [('DELETE', _SERVER)]),
    _rule(EXTENDED_ATTRIBUTES, base.ADMIN,
          'Show the OS-EXT-SRV-ATTR fields (host, hypervisor, instance '
          'name, and from 2.3 reservation_id and more) in server bodies.',
          [('GET', _SERVER), ('GET', _SERVERS + '/detail'),
           ('PUT', _SERVER)]),
    _rule(IPS_INDEX, base.PROJECT_READER_OR_ADMIN,
          'List the addresses of a server.', [('GET', _SERVER + '/ips')]),
    _rule(IPS_SHOW, base.PROJECT_READER_OR_ADMIN,
          'Show the addresses of a server on one network.',
          [('GET', _SERVER + '/ips/{network_label}')]),
]


def list_rules():
    return rules
