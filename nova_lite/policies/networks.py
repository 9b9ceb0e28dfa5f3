"""Policy defaults of the network proxies Nova 34 still serves below
2.36, as Nova's: readers of a project (and administrators) list and
show networks (GET /os-networks[/{id}], GET /os-tenant-networks[/{id}]),
anyone lists the floating IP pools. The target is the caller's own
project."""
from oslo_policy import policy

from nova_lite.policies import base

NETWORKS_LIST = 'os_compute_api:os-networks:list'
NETWORKS_SHOW = 'os_compute_api:os-networks:show'
TENANT_LIST = 'os_compute_api:os-tenant-networks:list'
TENANT_SHOW = 'os_compute_api:os-tenant-networks:show'
POOLS = 'os_compute_api:os-floating-ip-pools'

_rule = base.project_rule

rules = [
    _rule(NETWORKS_LIST, base.PROJECT_READER_OR_ADMIN,
          'List networks for the project. This API is proxy calls to the '
          'Network service. This is deprecated.', 'GET', '/os-networks'),
    _rule(NETWORKS_SHOW, base.PROJECT_READER_OR_ADMIN,
          'Show network details. This API is proxy calls to the Network '
          'service. This is deprecated.', 'GET',
          '/os-networks/{network_id}'),
    _rule(TENANT_LIST, base.PROJECT_READER_OR_ADMIN,
          'List project networks. This API is proxy calls to the Network '
          'service. This is deprecated.', 'GET', '/os-tenant-networks'),
    _rule(TENANT_SHOW, base.PROJECT_READER_OR_ADMIN,
          'Show project network details. This API is proxy calls to the '
          'Network service. This is deprecated.', 'GET',
          '/os-tenant-networks/{network_id}'),
    policy.DocumentedRuleDefault(
        name=POOLS, check_str=base.RULE_ANY,
        description='List floating IP pools. This API is deprecated.',
        operations=[{'method': 'GET', 'path': '/os-floating-ip-pools'}],
        scope_types=['project']),
]


def list_rules():
    return rules
