"""Policy defaults for host aggregates (administrators only, as in
Nova 34)."""
from oslo_policy import policy

from nova_lite.policies import base

POLICY_ROOT = 'os_compute_api:os-aggregates:%s'
INDEX = POLICY_ROOT % 'index'
CREATE = POLICY_ROOT % 'create'
SHOW = POLICY_ROOT % 'show'
UPDATE = POLICY_ROOT % 'update'
DELETE = POLICY_ROOT % 'delete'
ADD_HOST = POLICY_ROOT % 'add_host'
REMOVE_HOST = POLICY_ROOT % 'remove_host'
SET_METADATA = POLICY_ROOT % 'set_metadata'
IMAGES = 'compute:aggregates:images'

_ONE = '/os-aggregates/{aggregate_id}'


def _rule(name, description, method, path):
    return policy.DocumentedRuleDefault(
        name=name, check_str=base.ADMIN, description=description,
        operations=[{'path': path, 'method': method}],
        scope_types=['project'])


rules = [
    _rule(SET_METADATA, 'Create or replace metadata for an aggregate',
          'POST', _ONE + '/action (set_metadata)'),
    _rule(ADD_HOST, 'Add a host to an aggregate', 'POST',
          _ONE + '/action (add_host)'),
    _rule(CREATE, 'Create an aggregate', 'POST', '/os-aggregates'),
    _rule(REMOVE_HOST, 'Remove a host from an aggregate', 'POST',
          _ONE + '/action (remove_host)'),
    _rule(UPDATE, 'Update name and/or availability zone of an aggregate',
          'PUT', _ONE),
    _rule(INDEX, 'List all aggregates', 'GET', '/os-aggregates'),
    _rule(DELETE, 'Delete an aggregate', 'DELETE', _ONE),
    _rule(SHOW, 'Show details for an aggregate', 'GET', _ONE),
    _rule(IMAGES, 'Request image caching for an aggregate', 'POST',
          _ONE + '/images'),
]


def list_rules():
    return rules
