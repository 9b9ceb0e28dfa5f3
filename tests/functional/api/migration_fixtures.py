"""Migration records written straight into the cells' databases, for
tests of the read side (GET /os-migrations, /servers/{id}/migrations)
that do not need the resize flow. Test data, written through the cell
database's model as the conductor would; nothing is mocked."""
import datetime

from oslo_utils import uuidutils

from nova_lite import context as nova_context
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models

T0 = datetime.datetime(2026, 1, 1, 0, 0, 0)


@main_db.writer
def _insert(context, values):
    row = models.Migration(**values)
    context.session.add(row)
    context.session.flush()
    return row.id


def add_migration(env, cell_name, minutes, **values):
    """A migration record in cell_name created (and updated) ``minutes``
    after T0; values: Migration columns. Returns the record as written,
    with its id and cell (the cell's name)."""
    created = T0 + datetime.timedelta(minutes=minutes)
    record = dict(
        uuid=uuidutils.generate_uuid(),
        instance_uuid=uuidutils.generate_uuid(),
        source_compute='c1-host1', dest_compute='c1-host2',
        source_node='c1-host1.example.org', dest_node='c1-host2.example.org',
        dest_host='192.0.2.2', old_instance_type_id=1,
        new_instance_type_id=2, status='finished', migration_type='resize',
        hidden=False, cross_cell_move=False, user_id='bob',
        project_id='project-a', created_at=created, updated_at=created,
        deleted=0)
    record.update(values)
    with nova_context.target_cell(env.ctxt, env.cells[cell_name]) as cctxt:
        record['id'] = _insert(cctxt, record)
    record['cell'] = cell_name
    return record
