"""Helpers (no tests): legacy compute-node rows as older code wrote them,
what the API DB holds for them, and SQL statement counters."""
import contextlib
import json

from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite.db.api import models as api_models
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models as main_models
from nova_lite import objects
from nova_lite.placement import allocations
from nova_lite.placement import capacity

NODES = main_models.ComputeNode.__table__
# What a user of the object sees (uuid and timestamps left out: a legacy
# node gets its uuid on migration).
VISIBLE = ('id', 'host', 'hypervisor_hostname', 'vcpus', 'memory_mb',
           'local_gb', 'vcpus_used', 'memory_mb_used', 'local_gb_used',
           'free_ram_mb', 'free_disk_gb', 'cpu_allocation_ratio',
           'ram_allocation_ratio', 'disk_allocation_ratio',
           'disk_available_least', 'running_vms', 'current_workload',
           'hypervisor_type', 'hypervisor_version', 'cpu_info', 'pci_stats',
           'numa_topology', 'stats', 'service_id')


def legacy_values(i, **overrides):
    vcpus, memory_mb, local_gb = 8 + i % 4, 16384 + 1024 * (i % 3), 100 + i
    used = (i % 5, 512 + 256 * (i % 7), 10 + i % 11)
    values = {
        'host': 'host%05d' % i, 'hypervisor_hostname': 'node%05d' % i,
        'vcpus': vcpus, 'memory_mb': memory_mb, 'local_gb': local_gb,
        'vcpus_used': used[0], 'memory_mb_used': used[1],
        'local_gb_used': used[2], 'free_ram_mb': memory_mb - used[1],
        'free_disk_gb': local_gb - used[2], 'current_workload': 0,
        'running_vms': i % 5, 'hypervisor_type': 'fake',
        'hypervisor_version': 1000, 'cpu_info': '{"arch": "x86_64"}',
        'disk_available_least': local_gb - used[2], 'host_ip': '192.0.2.1',
        'stats': '{}', 'cpu_allocation_ratio': 16.0,
        'ram_allocation_ratio': 1.5, 'disk_allocation_ratio': 1.0,
        'uuid': None, 'deleted': 0, 'created_at': timeutils.utcnow(),
    }
    values.update(overrides)
    return values


def add_legacy_nodes(cctxt, n, start=0, with_uuid=False, **overrides):
    """n compute_nodes rows as older code wrote them (no uuid, or -- with
    with_uuid, as service version 2 did -- a uuid but no provider).
    Returns their ids."""
    rows = [legacy_values(i, **overrides) for i in range(start, start + n)]
    if with_uuid:
        for row in rows:
            row['uuid'] = uuidutils.generate_uuid()
    engine = main_db.get_engine(cctxt)
    with engine.begin() as conn:
        conn.execute(NODES.insert(), rows)
        return [r[0] for r in conn.execute(
            sa.select(NODES.c.id).where(NODES.c.host.in_(
                [r['host'] for r in rows])).order_by(NODES.c.id))]


def columns(cctxt, node_id):
    """The compute_nodes row as stored."""
    with main_db.get_engine(cctxt).connect() as conn:
        return dict(conn.execute(sa.select(NODES).where(
            NODES.c.id == node_id)).one()._mapping)


def visible(node):
    values = {}
    for name in VISIBLE:
        value = getattr(node, name)
        values[name] = value
    return values


def snapshot(nodes):
    return {n.id: visible(n) for n in nodes}


def api_counts():
    """Rows in each resource-provider table."""
    engine = api_db.get_engine()
    tables = (api_models.ResourceProvider, api_models.Inventory,
              api_models.Allocation)
    with engine.connect() as conn:
        return {t.__tablename__: conn.execute(sa.select(sa.func.count())
                                              .select_from(t)).scalar()
                for t in tables}


def provider(ctxt, uuid):
    return capacity.read(ctxt, [uuid]).get(uuid)


def host_usage(ctxt, uuid):
    return allocations.get_allocations(ctxt, uuid).get(uuid, {})


def record_service(cctxt, host, binary, version):
    svc = objects.Service(cctxt, host=host, binary=binary,
                          topic=binary.rsplit('-', 1)[-1], version=version)
    svc.create()
    return svc


_TRANSACTION_CONTROL = ('BEGIN', 'COMMIT', 'ROLLBACK', 'SAVEPOINT',
                        'RELEASE')


class StatementCounter(object):
    """Counts SQL statements sent through engines (an SQLAlchemy engine
    event), by name; transaction control (BEGIN, as oslo.db emits on
    SQLite) is not a query and is left out."""

    def __init__(self, **engines):
        """engines: name=engine or name=[engines] (a database's writer
        and reader engines, get_engines())."""
        self.engines = {name: e if isinstance(e, (list, tuple)) else [e]
                        for name, e in engines.items()}
        self.counts = dict.fromkeys(engines, 0)
        self.statements = {name: [] for name in engines}
        # The statements of each committed transaction, in commit order.
        self.transactions = {name: [] for name in engines}
        self._open = {}

    def _listener(self, name):
        def count(conn, cursor, statement, parameters, context, many):
            if statement.lstrip().upper().startswith(_TRANSACTION_CONTROL):
                return
            self.counts[name] += 1
            self.statements[name].append(statement)
            self._open.setdefault(id(conn), []).append(statement)
        return count

    def _committer(self, name):
        def commit(conn):
            self.transactions[name].append(self._open.pop(id(conn), []))
        return commit

    def _rollbacker(self, name):
        def rollback(conn):
            self._open.pop(id(conn), None)
        return rollback

    @contextlib.contextmanager
    def counting(self):
        listeners = [(engine, event, make(name))
                     for name, engines in self.engines.items()
                     for engine in engines
                     for event, make in (
                         ('before_cursor_execute', self._listener),
                         ('commit', self._committer),
                         ('rollback', self._rollbacker))]
        for engine, event, fn in listeners:
            sa.event.listen(engine, event, fn)
        try:
            yield self
        finally:
            for engine, event, fn in listeners:
                sa.event.remove(engine, event, fn)


def pci_pools():
    return json.dumps([
        {'vendor_id': '8086', 'product_id': '154d', 'count': 255,
         'dev_type': 'type-VF', 'numa_node': 0},
        {'vendor_id': '10de', 'product_id': '1eb8', 'count': 2,
         'tags': {'dev_type': 'type-PCI'}},
        {'vendor_id': '8086', 'product_id': '154c', 'count': 1,
         'tags': {'dev_type': 'type-PF'}},
    ])


def numa_two_cells():
    return json.dumps({'cells': [
        {'id': 0, 'cpuset': [0, 1, 2, 3, 8, 9, 10, 11],
         'siblings': [[0, 8], [1, 9], [2, 10], [3, 11]], 'memory': 8192},
        {'id': 1, 'cpuset': [4, 5, 6, 7, 12, 13, 14, 15],
         'siblings': [[4, 12], [5, 13], [6, 14], [7, 15]], 'memory': 8192},
    ]})
