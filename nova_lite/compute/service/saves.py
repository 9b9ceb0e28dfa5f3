"""The compare-and-swap saves every part of the compute service makes.

Each save names the state it expects the instance (or migration) to be
in. When the instance has moved on meanwhile -- deleted, reset by an
administrator, settled by a restarted conductor -- the save is skipped
and logged, and the caller is told (False); it is never an error of
the step that tried.
"""
import traceback

from oslo_log import log as logging

from nova_lite import exception
from nova_lite.objects import instance as instance_obj

LOG = logging.getLogger(__name__)

# What an instance save raises when its compare-and-swap failed.
MOVED_ON = (exception.UnexpectedTaskStateError, exception.InstanceNotFound,
            exception.InstanceInvalidState)


def was_deleted(exc):
    """Whether a failed compare-and-swap (one of MOVED_ON) means the
    instance is deleted or being deleted."""
    if isinstance(exc, exception.InstanceNotFound):
        return True
    return (isinstance(exc, exception.UnexpectedTaskStateError)
            and exc.kwargs.get('actual') == instance_obj.DELETING)


def save_quietly(instance, expected_task_state, finishing=None, **values):
    """Set values on instance and save them if it is in
    expected_task_state (a list); False (logged) when it has moved on
    (deleted, reset) meanwhile. finishing: the EventReporter this save
    ends (save_and_finish), None for a plain save."""
    for name, value in values.items():
        setattr(instance, name, value)
    try:
        if finishing is None:
            instance.save(expected_task_state=expected_task_state)
        else:
            finishing.save_and_finish(
                instance, expected_task_state=expected_task_state)
        return True
    except (exception.UnexpectedTaskStateError,
            exception.InstanceNotFound) as exc:
        LOG.info('Instance %s moved on meanwhile: %s', instance.uuid, exc)
        return False


def save_migration(migration, status, expected=None):
    """Set migration's status, a compare-and-swap on expected (a list of
    statuses; None: any); False (logged) when it moved on meanwhile."""
    migration.status = status
    try:
        migration.save(expected_status=expected)
        return True
    except (exception.MigrationStatusConflict,
            exception.MigrationNotFound) as exc:
        LOG.info('Migration %s moved on meanwhile: %s', migration.uuid, exc)
        return False


def record_fault(instance, exc, host):
    """Record exc as the instance's fault (500, with the traceback being
    handled, on host); nothing when the instance is gone."""
    try:
        instance.add_fault(500, str(exc)[:255],
                           details=traceback.format_exc(), host=host)
    except exception.InstanceNotFound:
        pass
