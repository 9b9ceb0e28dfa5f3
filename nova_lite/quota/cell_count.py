"""A project's usage in the cells, counted before a boot's API DB
transaction (so that transaction, which holds the project's quota lock,
reads no cell) and completed inside it.

count() reads every cell in parallel, one statement per cell: the
project's sums (instances, cores, ram; the user's too) and the young
instances -- created since the count started, less twice CLOCK_SKEW,
or still scheduling (a cell may hold one whose build request is still
there); counted or not (hidden, soft-deleted) -- by uuid.
In the transaction, quota.db.check_rows reads the build requests not
yet in a cell and the project's instance mappings pointed at a cell
since the count started (those of young instances aside). usage() adds
the two, a build request whose instance a cell already holds counted
once. A
mapping pointed at a cell since (``moved``) is a server that may have
gone into its cell after its cell was read, counted nowhere: a new one
(its mapping created within the young window) is added from its
request spec (moved_usage); when one may be an older server (moved
between cells), the cells are counted again inside the transaction, as
before this split. The count is exact either way.
"""
import collections
import datetime

from oslo_log import log as logging
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models as main_models
from nova_lite import objects
from nova_lite.objects import instance as instance_obj

LOG = logging.getLogger(__name__)

# Seconds by which the clocks of the API and conductor hosts (which
# stamp instance mappings and instances) may differ.
CLOCK_SKEW = 10
# Seconds inside the young window within which a server is not taken to
# be surely young (surely_young).
YOUNG_MARGIN = 5

INSTANCES = main_models.Instance.__table__

CellCount = collections.namedtuple('CellCount', ['totals', 'young', 'since'])
CellCount.__doc__ = """totals: [instances, cores, ram, the user's
instances, cores, ram] over the cells that answered; young: {uuid:
(vcpus, memory_mb, user_id)} of their young instances; since: naive UTC
datetime, the count's start less CLOCK_SKEW (a mapping changed since
may not be counted in totals)."""


def counted(inst, project_id):
    """The conditions of a project's instances that count against its
    quota: not deleted, not hidden, not soft-deleted (as Nova counts;
    restoring one checks the quota again)."""
    return (inst.c.project_id == project_id, inst.c.deleted == 0,
            inst.c.hidden == sa.false(),
            sa.or_(inst.c.vm_state.is_(None),
                   inst.c.vm_state != instance_obj.SOFT_DELETED))


@main_db.reader
def _cell_rows(context, project_id, user_id, young_since):
    """One statement: ('s', sums...) and ('y', uuid, vcpus, ram, user)
    rows of the project in this cell."""
    inst = INSTANCES

    def mine(value):
        return sa.func.coalesce(sa.func.sum(sa.case(
            (inst.c.user_id == user_id, value), else_=0)), 0)

    live = counted(inst, project_id)
    blank = sa.literal_column("''", sa.String)
    zero = sa.literal_column('0', sa.Integer)
    sums = sa.select(
        sa.literal_column("'s'", sa.String).label('kind'),
        blank.label('uuid'), sa.func.count().label('a'),
        sa.func.coalesce(sa.func.sum(inst.c.vcpus), 0).label('b'),
        sa.func.coalesce(sa.func.sum(inst.c.memory_mb), 0).label('c'),
        mine(1).label('d'), mine(inst.c.vcpus).label('e'),
        mine(inst.c.memory_mb).label('f'), blank.label('owner')).where(*live)
    young = sa.select(
        sa.literal_column("'y'", sa.String), inst.c.uuid, zero,
        sa.func.coalesce(inst.c.vcpus, 0),
        sa.func.coalesce(inst.c.memory_mb, 0), zero, zero, zero,
        sa.func.coalesce(inst.c.user_id, '')).where(
        # Every young server the cell holds, counted or not (hidden,
        # soft-deleted): its mapping's changes are known to the count.
        inst.c.project_id == project_id, inst.c.deleted == 0,
        sa.or_(inst.c.created_at >= young_since,
               inst.c.task_state == instance_obj.SCHEDULING))
    return context.session.execute(sa.union_all(sums, young)).fetchall()


def count(context, cells, project_id, user_id):
    """CellCount of the project in cells (a cell that does not answer is
    not counted, as Nova does)."""
    since = timeutils.utcnow() - datetime.timedelta(seconds=CLOCK_SKEW)
    results = nova_context.scatter_gather_cells(
        context, cells, CONF.api.list_cell_timeout, _cell_rows, project_id,
        user_id, since - datetime.timedelta(seconds=CLOCK_SKEW))
    totals = [0] * 6
    young = {}
    for uuid, rows in results.items():
        if nova_context.is_cell_failure(rows):
            LOG.warning('Cell %s did not answer: its usage is not counted '
                        'against quota', uuid)
            continue
        for row in rows:
            kind, instance_uuid = row[0], row[1]
            if kind == 's':
                totals = [t + int(v or 0) for t, v in zip(totals, row[2:8])]
            else:
                young[instance_uuid] = (int(row[3] or 0), int(row[4] or 0),
                                        row[8] or None)
    return CellCount(totals, young, since)


def surely_young(cell_count):
    """Naive UTC: a server whose instance mapping was created since then
    (the API's clock, as its instance's created_at) is one of the young
    ones if a cell held it when counted (a margin inside the young
    window for the database's rounding of times). None without a
    count."""
    if cell_count is None:
        return None
    return cell_count.since - datetime.timedelta(
        seconds=CLOCK_SKEW - YOUNG_MARGIN)


def moved_usage(context, moved):
    """{uuid: (vcpus, memory_mb, user_id)} of the servers check_rows
    found pointed at a cell since the count and not among its young
    ones: new servers no cell held when counted, their resources read
    from their request specs. None when one of them may be an older
    server (its mapping changed by a move: it may be counted already)
    or has no request spec: the cells must be counted again."""
    found = {}
    for uuid, (young, spec_json) in moved.items():
        if not young or not spec_json:
            return None
        spec = objects.RequestSpec.from_json(context, spec_json)
        found[uuid] = (spec.flavor.vcpus, spec.flavor.memory_mb,
                       spec.user_id)
    return found


def usage(cell_count, pending, user_id):
    """[the 6 sums] of cell_count's totals and the pending build
    requests ({uuid: (vcpus, memory_mb, user_id)}) no cell holds in
    cell_count."""
    total = list(cell_count.totals)
    for uuid, (vcpus, memory_mb, owner) in pending.items():
        if uuid in cell_count.young:
            continue   # its instance is in a cell already: counted
        mine = int(owner == user_id)
        total = [a + b for a, b in zip(total, (
            1, vcpus, memory_mb, mine, vcpus * mine, memory_mb * mine))]
    return total
