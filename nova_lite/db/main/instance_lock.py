"""A cell transaction holding an instance row's write lock, for a
read-modify-write of the instance that must not interleave with
another (e.g. merging metadata through Instance.get_by_uuid() and
save()).

Reads and writes made on the same context inside the block join its
transaction (oslo.db enginefacade nesting), so the instance read there
is the one written back; a second writer of the instance waits for the
first to commit (the row lock on MariaDB/PostgreSQL, the database write
lock on SQLite).
"""
import contextlib

from nova_lite.db.main import api as main_db
from nova_lite.db.main import models
from nova_lite import exception

INST = models.Instance.__table__


def lock_row(session, uuid):
    """Take the live instance's row write lock in session's transaction
    (a no-op update); InstanceNotFound if there is no such instance."""
    locked = session.execute(INST.update().where(
        INST.c.uuid == uuid, INST.c.deleted == 0).values(
            uuid=INST.c.uuid)).rowcount
    if not locked:
        raise exception.InstanceNotFound(instance_id=uuid)


@contextlib.contextmanager
def locked(context, uuid):
    """One writer transaction on context (targeted at the instance's
    cell) that holds the instance row's write lock; committed when the
    block ends, rolled back if it raises."""
    with main_db.get_context_manager(context).writer.using(context):
        lock_row(context.session, uuid)
        yield
