"""Policy defaults of os-instance_usage_audit_log, as in Nova 34: for
administrators only."""
from nova_lite.policies import base

ROOT = 'os_compute_api:os-instance-usage-audit-log:%s'
LIST = ROOT % 'list'
SHOW = ROOT % 'show'

rules = [
    base.project_rule(LIST, base.ADMIN,
                      'List all usage audits.', 'GET',
                      '/os-instance_usage_audit_log'),
    base.project_rule(SHOW, base.ADMIN,
                      'List all usage audits occurred before a specified '
                      'time for all servers on all compute hosts where '
                      'usage auditing is configured', 'GET',
                      '/os-instance_usage_audit_log/{before_timestamp}'),
]


def list_rules():
    return rules
