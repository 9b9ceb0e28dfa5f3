"""The migrate_service_binaries online migration: service rows an older
release recorded as nova-lite-* are renamed to the Compute API's binary
names, one UPDATE per row.

An API, conductor or scheduler older than version 4 looks its own row up
by the old name and would record a duplicate once it is renamed: the
migration waits until none runs in any cell. Computes look their rows up
through their conductor, which by then matches either name.
"""
from oslo_db import exception as db_exc
from oslo_log import log as logging
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models
from nova_lite.objects import cell_mapping
from nova_lite.online_migrations import registry

LOG = logging.getLogger(__name__)

# Releases before service version 4 recorded nova-lite-* binaries. Such an
# old API, conductor or scheduler looks its own row up by that name, so a
# row is renamed only once none of them runs (the migration's gate: API,
# conductor and scheduler >= 4 everywhere; an old compute looks its row up
# through its conductor, which then matches either name); until then every
# lookup in objects.service matches either name.


@main_db.writer
def _rename_legacy_rows(context, after_id, limit):
    svc = models.Service
    legacy = list(constants.LEGACY_BINARIES.values())
    rows = (context.session.query(svc.id, svc.host, svc.binary,
                                  svc.deleted)
            .filter(svc.binary.in_(legacy), svc.id > after_id)
            .order_by(svc.id).limit(limit).all())
    if not rows:
        return 0, 0, None
    live_current = set(context.session.query(
        svc.host, svc.binary).filter(
            svc.deleted == 0,
            svc.host.in_({r.host for r in rows}),
            svc.binary.in_(constants.BINARIES)).all())
    done = 0
    for row in rows:
        new = constants.current_binary(row.binary)
        if not row.deleted and (row.host, new) in live_current:
            LOG.warning('Service %s (id %d) on %s is also recorded as %s: '
                        'left under its legacy name', row.binary, row.id,
                        row.host, new)
            continue
        # The legacy name in the WHERE clause makes a concurrent or
        # repeated rename a no-op; updated_at keeps its value (it is a
        # heartbeat's fallback, and nothing about the service changed).
        done += context.session.query(svc).filter(
            svc.id == row.id, svc.binary == row.binary).update(
                {svc.binary: new, svc.updated_at: svc.updated_at},
                synchronize_session=False)
    return len(rows), done, rows[-1].id


def _rename_legacy_binaries(context, max_count):
    """Rename service rows of the context's cell recorded under a legacy
    binary name (deleted ones too) to the binary's current name; stop
    after max_count renamed or when none is left. Returns (found, done).

    Idempotent and safe next to itself: each row is renamed by one UPDATE
    that matches its legacy name. A live row whose host is also recorded
    under the current name is found but not done (and logged). Callers
    run this only once no API, conductor or scheduler older than service
    version 4 runs in any cell.
    """
    found = done = 0
    after_id = 0
    while done < max_count:
        batch_found, batch_done, after_id = _rename_legacy_rows(
            context, after_id, max_count - done)
        if not batch_found:
            break
        found += batch_found
        done += batch_done
    return found, done


@main_db.reader
def _count_legacy_binaries(context):
    """Rows of the context's cell still under a legacy binary name
    (reads only columns every schema has)."""
    return context.session.query(sa.func.count(models.Service.id)).filter(
        models.Service.binary.in_(
            list(constants.LEGACY_BINARIES.values()))).scalar()


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
            return _count_legacy_binaries(context)
        except db_exc.DBError:
            return 0    # no services table yet: nothing to rename
    count = 0
    for cell in _cells(context):
        with nova_context.target_cell(context, cell) as cctxt:
            try:
                count += _count_legacy_binaries(cctxt)
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
            cell_found, cell_done = _rename_legacy_binaries(
                cctxt, max_count - done)
        found += cell_found
        done += cell_done
    return found, done
