"""The migrate_service_binaries online migration: service rows an older
release recorded as nova-lite-* are renamed to the Compute API's binary
names (objects.service.rename_legacy_binaries does the renaming).

An API, conductor or scheduler older than version 4 looks its own row up
by the old name and would record a duplicate once it is renamed: the
migration waits until none runs in any cell. Computes look their rows up
through their conductor, which by then matches either name.
"""
from oslo_db import exception as db_exc
from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.objects import cell_mapping
from nova_lite.objects import service
from nova_lite.online_migrations import registry

LOG = logging.getLogger(__name__)


def _cells(context):
    return [cell for cell in cell_mapping.CellMappingList.get_all(context)
            if not cell.is_cell0()]


def _pending(context):
    """Service rows of every reachable cell still under a legacy name
    (of the [database] cell alone in a process without the API
    database)."""
    if not api_db.available():
        if not CONF.database.connection:
            return 0
        try:
            return service.count_legacy_binaries(context)
        except db_exc.DBError:
            return 0    # no services table yet: nothing to rename
    count = 0
    for cell in _cells(context):
        with nova_context.target_cell(context, cell) as cctxt:
            try:
                count += service.count_legacy_binaries(cctxt)
            except Exception:
                LOG.warning('Cannot count service rows to rename in cell '
                            '%s', cell.identity)
    return count


@registry.register(name='migrate_service_binaries',
                   needs={constants.API_BINARY: 4,
                          constants.CONDUCTOR_BINARY: 4,
                          constants.SCHEDULER_BINARY: 4},
                   pending=_pending)
def migrate_service_binaries(context, max_count):
    """Rename service rows recorded under nova-lite-* binaries to the
    Compute API's names, cell by cell, until max_count rows are renamed.
    Returns (found, done)."""
    found = done = 0
    for cell in _cells(context):
        if done >= max_count:
            break
        with nova_context.target_cell(context, cell) as cctxt:
            cell_found, cell_done = service.rename_legacy_binaries(
                cctxt, max_count - done)
        found += cell_found
        done += cell_done
    return found, done
