"""The task log of one cell database (task_log): per compute host and
audit period, what its instance usage audit did (Nova's task_log, read
by GET /os-instance_usage_audit_log). Every function is one statement.
"""
from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.db.main import api as main_db
from nova_lite.db.main import models
from nova_lite import exception

TASK_LOG = models.TaskLog.__table__
COLUMNS = ('task_name', 'state', 'host', 'period_beginning',
           'period_ending', 'message', 'task_items', 'errors')
RUNNING = 'RUNNING'
DONE = 'DONE'


def _naive(value):
    """A period bound as a naive UTC datetime (over RPC, through a
    compute's conductor, it may arrive as an ISO 8601 string)."""
    if isinstance(value, str):
        value = timeutils.parse_isotime(value)
    return timeutils.normalize_time(value) if value.tzinfo else value


@main_db.writer
def begin(context, task_name, host, beginning, ending, task_items=None,
          message=None):
    """Record the task RUNNING for host and the period;
    TaskAlreadyRunning if a record of it exists (whatever its state)."""
    try:
        context.session.execute(TASK_LOG.insert().values(
            task_name=task_name, state=RUNNING, host=host,
            period_beginning=_naive(beginning), period_ending=_naive(ending),
            message=message or '', task_items=task_items, errors=0,
            created_at=timeutils.utcnow()))
    except db_exc.DBDuplicateEntry:
        raise exception.TaskAlreadyRunning(task_name=task_name, host=host)


@main_db.writer
def end(context, task_name, host, beginning, ending, errors, message=None):
    """Record the task DONE; TaskNotRunning if it was never begun."""
    c = TASK_LOG.c
    values = {'state': DONE, 'errors': errors,
              'updated_at': timeutils.utcnow()}
    if message is not None:
        values['message'] = message
    done = context.session.execute(TASK_LOG.update().where(
        c.task_name == task_name, c.host == host,
        c.period_beginning == _naive(beginning),
        c.period_ending == _naive(ending)).values(**values)).rowcount
    if not done:
        raise exception.TaskNotRunning(task_name=task_name, host=host)


@main_db.reader
def for_period(context, task_name, beginning, ending, host=None):
    """[{COLUMNS}] of the task's records for exactly that period (of one
    host, else of every host)."""
    c = TASK_LOG.c
    query = sa.select(*[c[name] for name in COLUMNS]).where(
        c.task_name == task_name, c.period_beginning == _naive(beginning),
        c.period_ending == _naive(ending))
    if host is not None:
        query = query.where(c.host == host)
    return [dict(zip(COLUMNS, row))
            for row in context.session.execute(query)]
