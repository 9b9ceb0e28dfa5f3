"""RequestContext, cell targeting and scatter-gather across cells.

A context targeted at a cell carries that cell's database context manager
and message transport; both come from the cell mapping itself
(``CellMapping.connect()``), made once per cell and cached here.
"""
import contextlib
import copy

import eventlet
import eventlet.queue
from oslo_context import context as oslo_context
from oslo_db.sqlalchemy import enginefacade
from oslo_log import log as logging

from nova_lite import exception
from nova_lite import policy

LOG = logging.getLogger(__name__)


class _CellSentinel:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


# A cell that did not answer within the timeout.
did_not_respond_sentinel = _CellSentinel('did-not-respond')


def is_cell_failure(result):
    """True if a scatter-gather result is a timeout or a raised exception."""
    return result is did_not_respond_sentinel or isinstance(result, Exception)


@enginefacade.transaction_context_provider
class RequestContext(oslo_context.RequestContext):
    """Who is asking, and (when targeted) which cell's database and MQ."""

    FROM_DICT_EXTRA_KEYS = ['read_deleted', 'cell_uuid', 'user_name',
                            'project_name']

    def __init__(self, user_id=None, project_id=None, is_admin=None,
                 read_deleted='no', roles=None, cell_uuid=None, **kwargs):
        kwargs.setdefault('user_id', user_id)
        kwargs.setdefault('project_id', project_id)
        super().__init__(is_admin=bool(is_admin), roles=roles or [], **kwargs)
        if is_admin is None:
            self.is_admin = 'admin' in (r.lower() for r in self.roles)
        self.read_deleted = read_deleted
        self.cell_uuid = cell_uuid
        # Set by target_cell(); None means [database]/[DEFAULT] config.
        self.db_connection = None
        self.mq_connection = None
        # Set on contexts that must run remotable methods through a
        # conductor (computes); None means run them locally.
        self.indirection_api = None
        # Set on contexts whose process must reach compute-node
        # inventories over the placement RPC API (the all-in-one's computes
        # and cell conductors); None: decided by the process
        # (nova_lite.placement.router).
        self.placement_api = None
        # Config groups of the databases this context must not touch
        # ('api_database', 'database'): set on the all-in-one's computes
        # and cell conductors, which share a process with the API
        # (db.database refuses them).
        self.refused_databases = frozenset()

    def to_dict(self):
        values = super().to_dict()
        values.update(read_deleted=self.read_deleted,
                      cell_uuid=self.cell_uuid,
                      user_name=self.user_name,
                      project_name=self.project_name)
        return values

    @classmethod
    def from_dict(cls, values):
        return super().from_dict(values)

    def elevated(self, read_deleted=None):
        ctx = copy.copy(self)
        ctx.roles = list(self.roles)
        ctx.is_admin = True
        if 'admin' not in ctx.roles:
            ctx.roles.append('admin')
        if read_deleted is not None:
            ctx.read_deleted = read_deleted
        return ctx

    def can(self, action, target=None, fatal=True):
        """Check policy; raise PolicyNotAuthorized (403) unless fatal=False."""
        if target is None:
            target = {'project_id': self.project_id, 'user_id': self.user_id}
        return policy.authorize(self, action, target, fatal=fatal)

    def __copy__(self):
        # Shallow copy without the enginefacade transaction state.
        new = self.__class__.__new__(self.__class__)
        new.__dict__.update({k: v for k, v in self.__dict__.items()
                             if not k.startswith('_enginefacade')})
        return new


def get_admin_context(read_deleted='no'):
    return RequestContext(user_id=None, project_id=None, is_admin=True,
                          roles=['admin'], read_deleted=read_deleted,
                          overwrite=False)


def get_context():
    """A context for service-internal work (no user)."""
    return RequestContext(user_id=None, project_id=None, is_admin=True,
                          roles=['admin'], overwrite=False)


# cell uuid -> (database url, transport url, context manager, transport)
_CELL_CACHE = {}


def _cell_connections(cell_mapping):
    key = cell_mapping.uuid
    cached = _CELL_CACHE.get(key)
    if (cached is None or cached[0] != cell_mapping.database_connection
            or cached[1] != cell_mapping.transport_url):
        db, mq = cell_mapping.connect()
        cached = (cell_mapping.database_connection,
                  cell_mapping.transport_url, db, mq)
        _CELL_CACHE[key] = cached
    return cached[2], cached[3]


def clear_cell_cache():
    """Forget every cell's cached database and transport (a process that
    changes its configuration: the next targeting connects again)."""
    _CELL_CACHE.clear()


def set_target_cell(context, cell_mapping):
    """Point context at cell_mapping's database and message queue."""
    if cell_mapping is None:
        context.db_connection = None
        context.mq_connection = None
        context.cell_uuid = None
        return
    context.db_connection, context.mq_connection = _cell_connections(
        cell_mapping)
    context.cell_uuid = cell_mapping.uuid


@contextlib.contextmanager
def target_cell(context, cell_mapping):
    """Yield a copy of context targeted at cell_mapping."""
    cctxt = copy.copy(context)
    set_target_cell(cctxt, cell_mapping)
    yield cctxt


def scatter_gather_cells(context, cell_mappings, timeout, fn, *args,
                         **kwargs):
    """Run fn(cell_context, *args, **kwargs) in every cell in parallel.

    Returns {cell_uuid: result}; a cell that raised maps to the exception
    instance, one that did not answer within timeout seconds maps to
    did_not_respond_sentinel. Callers decide how to degrade. An error of
    ours (a NovaLiteException: a server deleted meanwhile is not found)
    is an answer, logged at debug; anything else is logged with its
    traceback.
    """
    results = {}
    queue = eventlet.queue.LightQueue()

    def gather(cell):
        try:
            with target_cell(context, cell) as cctxt:
                result = fn(cctxt, *args, **kwargs)
        except exception.NovaLiteException as exc:
            LOG.debug('Cell %s answered: %s', cell.uuid, exc)
            result = exc
        except Exception as exc:
            LOG.exception('Error gathering result from cell %s', cell.uuid)
            result = exc
        queue.put((cell.uuid, result))

    for cell in cell_mappings:
        results[cell.uuid] = did_not_respond_sentinel
        eventlet.spawn(gather, cell)

    with eventlet.Timeout(timeout, False):
        for _ in range(len(results)):
            uuid, result = queue.get()
            results[uuid] = result
    for uuid, result in results.items():
        if result is did_not_respond_sentinel:
            LOG.warning('Timed out waiting for a response from cell %s',
                        uuid)
    return results


__all__ = ['RequestContext', 'get_admin_context', 'target_cell',
           'scatter_gather_cells', 'did_not_respond_sentinel',
           'is_cell_failure']
