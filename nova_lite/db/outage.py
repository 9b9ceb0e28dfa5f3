"""Steps run again while a database restarts.

until_databases_answer decorates a step that can be run again from the
start -- it checks what an earlier run did, or makes its writes in one
transaction -- and that must not be given up because a database is
restarting: connections refused or dropped (oslo.db's
DBConnectionError) or MariaDB's "Server shutdown in progress" (1053,
which oslo.db raises as SQLAlchemy's OperationalError), here or in the
conductor a compute's object call went through. The step is run
again for about 45 s: 0.5 s at first, then doubling up to 5 s. It must
not run inside an open transaction (it retries whole ones).
"""
from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
import sqlalchemy as sa

# MariaDB's "Server shutdown in progress".
SHUTDOWN_IN_PROGRESS = '1053'


def restarting(exc):
    """Whether exc is a database saying it is shutting down: raised
    here, or by the conductor an object call went through (an
    oslo.messaging RemoteError naming OperationalError)."""
    if isinstance(exc, (db_exc.DBError, sa.exc.OperationalError)):
        return SHUTDOWN_IN_PROGRESS in str(exc)
    return (getattr(exc, 'exc_type', None) == 'OperationalError'
            and SHUTDOWN_IN_PROGRESS in str(getattr(exc, 'value', '')))


until_databases_answer = oslo_db_api.wrap_db_retry(
    max_retries=12, retry_interval=0.5, inc_retry_interval=True,
    max_retry_interval=5, retry_on_disconnect=True,
    exception_checker=restarting)
