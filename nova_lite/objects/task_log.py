"""TaskLog: a compute's record of a periodic task over an audit period
(the instance usage audit), in its cell database. Computes write it
through object indirection (remotable); the API reads every cell's for
GET /os-instance_usage_audit_log.
"""
from oslo_versionedobjects import fields

from nova_lite.db.main import task_logs as db
from nova_lite.objects import base

RUNNING = db.RUNNING
DONE = db.DONE
USAGE_AUDIT = 'instance_usage_audit'


@base.NovaLiteObjectRegistry.register
class TaskLog(base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'

    fields = {
        'task_name': fields.StringField(),
        'state': fields.StringField(),
        'host': fields.StringField(),
        'period_beginning': fields.DateTimeField(),
        'period_ending': fields.DateTimeField(),
        'message': fields.StringField(),
        'task_items': fields.IntegerField(nullable=True),
        'errors': fields.IntegerField(nullable=True),
    }

    @classmethod
    def _from_row(cls, context, row):
        log = cls(context=context, **row)
        log.obj_reset_changes()
        return log

    @base.remotable_classmethod
    def begin_task(cls, context, task_name, host, beginning, ending,
                   task_items=None, message=None):
        """RUNNING; TaskAlreadyRunning if this host has a record of the
        task for the period already."""
        db.begin(context, task_name, host, beginning, ending, task_items,
                 message)

    @base.remotable_classmethod
    def end_task(cls, context, task_name, host, beginning, ending, errors,
                 message=None):
        """DONE with errors; TaskNotRunning if it was never begun."""
        db.end(context, task_name, host, beginning, ending, errors,
               message)

    @base.remotable_classmethod
    def get_for_period(cls, context, task_name, beginning, ending,
                       host=None):
        """[TaskLog] of the period (one host's, else every host's)."""
        return [cls._from_row(context, row) for row in db.for_period(
            context, task_name, beginning, ending, host)]
