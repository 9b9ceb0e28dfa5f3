"""Policy defaults of os-simple-tenant-usage, as in Nova 34: every
project's usage is for administrators; one project's for its readers
(and administrators)."""
from nova_lite.policies import base

ROOT = 'os_compute_api:os-simple-tenant-usage:%s'
LIST = ROOT % 'list'
SHOW = ROOT % 'show'

rules = [
    base.project_rule(SHOW, base.PROJECT_READER_OR_ADMIN,
                      'Show usage statistics for a specific tenant', 'GET',
                      '/os-simple-tenant-usage/{tenant_id}'),
    base.project_rule(LIST, base.ADMIN,
                      'List per tenant usage statistics for all tenants',
                      'GET', '/os-simple-tenant-usage'),
]


def list_rules():
    return rules
