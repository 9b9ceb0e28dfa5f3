"""GET /os-instance_usage_audit_log (the audit period that last
completed) and /os-instance_usage_audit_log/{before_timestamp} (the one
that last completed before that time): the computes' instance usage
audit (nova_lite.compute.api.usage_audit). Administrators only."""
import datetime

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import usage_audit
from nova_lite import exception
from nova_lite.policies import instance_usage_audit_log as policies

# The formats the Compute API reads before_timestamp in.
_FORMATS = ('%Y-%m-%d %H:%M:%S', '%Y-%m-%d %H:%M:%S.%f')


def _timestamp(value):
    for fmt in _FORMATS:
        try:
            return datetime.datetime.strptime(value, fmt)
        except ValueError:
            continue
    raise exception.Invalid(message='Invalid timestamp for date %s' % value)


class AuditLogsController(object):
    """/os-instance_usage_audit_log"""

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    def index(self):
        ctxt = wsgi.authorize(policies.LIST)
        return {'instance_usage_audit_logs': usage_audit.audit_log(ctxt)}


class AuditLogController(object):
    """/os-instance_usage_audit_log/{before_timestamp}"""

    def __init__(self, before_timestamp):
        self.before_timestamp = before_timestamp

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.authorize(policies.SHOW)
        before = _timestamp(self.before_timestamp)
        return {'instance_usage_audit_log': usage_audit.audit_log(
            ctxt, before)}
