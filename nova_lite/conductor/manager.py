"""The conductor's RPC endpoints, one per role.

Every conductor serves object indirection (ConductorManager): it runs the
remotable object methods of its cell's computes. A super conductor -- one
that holds the API database ([api_database] connection) -- also serves
the compute_task namespace (ComputeTaskManager), where orchestrations
(conductor/tasks/) run. A cell conductor never serves compute_task: it
must not reach the API database.
"""
import copy
import datetime

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_versionedobjects import base as ovo_base

from nova_lite.compute import instance_events
from nova_lite.conductor import build
from nova_lite.conductor import resize_confirm
from nova_lite.conductor import rpcapi
from nova_lite.conductor.tasks import cross_cell_finish
from nova_lite.conductor.tasks import cross_cell_recovery
from nova_lite.conductor.tasks import evacuate
from nova_lite.conductor.tasks import live_migrate
from nova_lite.conductor.tasks import migrate
from nova_lite.conductor.tasks import move_recovery
from nova_lite.conductor import unshelve
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects

LOG = logging.getLogger(__name__)


# Values that cannot change in place: kept as they are, not copied.
_IMMUTABLE = (str, int, float, bool, type(None), datetime.datetime)


class _ObjectSnapshot(object):
    """An object field's value as it was: equal to an object with the
    same primitive (as ComparableVersionedObject compares), so the
    value is turned into a primitive once instead of cloned and then
    turned into a primitive on both sides of the comparison."""

    def __init__(self, obj):
        self.primitive = obj.obj_to_primitive()

    def __eq__(self, other):
        return (isinstance(other, ovo_base.VersionedObject)
                and other.obj_to_primitive() == self.primitive)


def _snapshot(value):
    """A copy of a field's value that the original can be compared with
    after a method ran, costing little for what fields hold: scalars
    are kept, dicts and lists copied item by item (ovo's coerced ones
    would deep-copy the object they belong to with them), objects
    kept as their primitive."""
    if isinstance(value, _IMMUTABLE):
        return value
    if isinstance(value, ovo_base.VersionedObject):
        return _ObjectSnapshot(value)
    if isinstance(value, dict):
        return {k: _snapshot(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_snapshot(v) for v in value]
    return copy.deepcopy(value)


def _field_values(obj):
    """{field: snapshot of its value} of obj's set fields: what an
    object method may change, to compare with afterwards (obj_clone()
    costs more than the save it would surround)."""
    return {name: _snapshot(getattr(obj, name)) for name in obj.fields
            if obj.obj_attr_is_set(name)}


class ConductorManager(object):
    """Object indirection endpoint, one per cell conductor; and the cell's
    own orchestration (a reschedule to an alternate host)."""
    target = messaging.Target(version='1.4')

    def __init__(self):
        self.service_name = 'conductor'
        self.builder = build.Builder()

    def init_host(self, context, service_ref):
        pass

    def cleanup_host(self):
        pass

    def periodic_tasks(self, context, raise_on_error=False):
        try:
            build.fail_stranded_builds(context)
        except Exception:
            if raise_on_error:
                raise
            LOG.exception('Checking for stranded builds failed')
        try:
            resize_confirm.confirm_old_resizes(context)
        except Exception:
            if raise_on_error:
                raise
            LOG.exception('Confirming resizes older than the window failed')
        return CONF.periodic_interval

    def _object_dispatch(self, target, method, args, kwargs):
        # Expected errors travel back to the compute as themselves.
        try:
            return getattr(target, method)(*args, **kwargs)
        except exception.NovaLiteException as exc:
            raise messaging.ExpectedException() from exc

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        objclass = ovo_base.VersionedObjectRegistry.obj_classes()[objname][0]
        result = self._object_dispatch(
            objclass, objmethod, (context,) + tuple(args), kwargs)
        if isinstance(result, ovo_base.VersionedObject):
            # Hand back the version the caller understands.
            return result.obj_to_primitive(
                target_version=object_versions[result.obj_name()],
                version_manifest=object_versions)
        return result

    def object_action(self, context, objinst, objmethod, args, kwargs):
        before = _field_values(objinst)
        result = self._object_dispatch(objinst, objmethod, args, kwargs)
        updates = {}
        for name, field in objinst.fields.items():
            if not objinst.obj_attr_is_set(name):
                continue
            value = getattr(objinst, name)
            if name not in before or before[name] != value:
                updates[name] = field.to_primitive(objinst, name, value)
        updates['obj_what_changed'] = objinst.obj_what_changed()
        return updates, result

    def object_backport_versions(self, context, objinst, object_versions):
        target = object_versions[objinst.obj_name()]
        return objinst.obj_to_primitive(target_version=target,
                                        version_manifest=object_versions)

    def build_instances(self, context, instance, request_spec,
                        requested_networks, host_list, failure,
                        injected_files=None):
        """1.1: a spawn failed; try the next alternate host (1.4: with
        the build's personality files)."""
        self.builder.build_instances(context, instance, request_spec,
                                     requested_networks, host_list, failure,
                                     injected_files=injected_files)


class ComputeTaskManager(object):
    """The compute_task endpoint of a super conductor."""
    target = messaging.Target(namespace=rpcapi.COMPUTE_TASK_NAMESPACE,
                              version='1.8')

    def __init__(self):
        self.builder = build.Builder()

    def init_host(self, context, service_ref):
        """Finish or roll back the cross-cell moves a stop of a super
        conductor interrupted (conductor.tasks.cross_cell_recovery);
        roll back the moves it started and never handed off
        (conductor.tasks.move_recovery)."""
        try:
            cross_cell_recovery.recover(context)
        except Exception:
            LOG.exception('Recovering interrupted cross-cell moves failed')
        try:
            move_recovery.recover(context)
        except Exception:
            LOG.exception('Recovering moves interrupted before their '
                          'hand-off failed')
        try:
            live_migrate.recover(context)
        except Exception:
            LOG.exception('Recovering live migrations interrupted before '
                          'their hand-off failed')
        self._recover_unshelves(context)
        try:
            evacuate.recover(context)
        except Exception:
            LOG.exception('Recovering evacuations interrupted before their '
                          'hand-off failed')

    def _recover_unshelves(self, context):
        """conductor.unshelve.recover in every cell but cell0."""
        try:
            cells = objects.CellMappingList.get_all(context)
        except Exception:
            LOG.exception('Could not list the cells to recover unshelves')
            return
        for cell in cells:
            if cell.is_cell0():
                continue
            try:
                with nova_context.target_cell(context, cell) as cctxt:
                    unshelve.recover(cctxt, cell.uuid)
            except Exception:
                LOG.exception('Recovering interrupted unshelves in %s '
                              'failed', cell.name)

    def ping(self, context, arg):
        return {'service': 'compute_task', 'arg': arg}

    def periodic_tasks(self, context, raise_on_error=False):
        """Auto-confirm of cross-cell resizes (a cell conductor cannot
        reach their source cell): resize_confirm; burial of the boots
        no conductor picked up in time: build.bury_unpicked_builds."""
        try:
            build.bury_unpicked_builds(context, self.builder)
        except Exception:
            if raise_on_error:
                raise
            LOG.exception('Burying build requests no conductor picked '
                          'up failed')
        try:
            build.bury_stranded_builds(context, self.builder)
        except Exception:
            if raise_on_error:
                raise
            LOG.exception('Ending builds their conductor never finished '
                          'failed')
        try:
            resize_confirm.confirm_old_cross_cell_resizes(
                context, self.confirm_snapshot_based_resize)
        except Exception:
            if raise_on_error:
                raise
            LOG.exception('Confirming cross-cell resizes older than the '
                          'window failed')
        timeout = CONF.conductor.build_request_timeout
        # A lost boot waits at most twice its timeout for its burial.
        return min(CONF.periodic_interval, timeout) if timeout > 0 \
            else CONF.periodic_interval

    def schedule_and_build_instances(self, context, instance_uuids,
                                     request_spec, requested_networks,
                                     admin_password=None,
                                     injected_files=None):
        """1.1: schedule the build requests of instance_uuids and build
        them in the cells of the hosts picked (or bury them in cell0);
        1.8: with the personality files the guests get."""
        self.builder.schedule_and_build_instances(
            context, instance_uuids, request_spec, requested_networks,
            admin_password, injected_files=injected_files)

    def migrate_server(self, context, instance, flavor, host=None,
                       allow_cross_cell=False):
        """1.2: resize instance to flavor (an EmbeddedFlavor; its own
        for a cold migration) or migrate it, to host if given, within
        its cell (conductor.tasks.migrate); 1.3: allow_cross_cell, to
        another cell if the scheduler picks one. The instance is in
        task_state resize_prep; a failure puts it back as it was and
        is recorded as event conductor_migrate_server of its action."""
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            context, instance.uuid)
        cell = mapping.cell_mapping
        with nova_context.target_cell(context, cell) as cctxt:
            instance.context = cctxt
            try:
                with instance_events.EventReporter(
                        cctxt, 'conductor_migrate_server', CONF.host,
                        instance.uuid):
                    migrate.migrate_server(cctxt, instance, flavor,
                                           cell.uuid, host,
                                           allow_cross_cell)
            except Exception as exc:
                # An expected refusal (no valid host, a host that cannot
                # take it) is one line, the user sees it in the action's
                # event (oslo.log appends the exception); anything else
                # with its traceback.
                LOG.warning('Move of %s did not start', instance.uuid,
                            exc_info=not isinstance(
                                exc, exception.NovaLiteException))

    def live_migrate_instance(self, context, instance, host=None,
                              block_migration=None, disk_over_commit=None,
                              force=False, wait=False):
        """1.7: live-migrate instance (task_state migrating) within its
        cell (conductor.tasks.live_migrate), as event
        conductor_live_migrate_instance of its action. wait (a call):
        the failure is raised to the caller too."""
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            context, instance.uuid)
        cell = mapping.cell_mapping
        with nova_context.target_cell(context, cell) as cctxt:
            instance.context = cctxt
            try:
                with instance_events.EventReporter(
                        cctxt, 'conductor_live_migrate_instance', CONF.host,
                        instance.uuid):
                    live_migrate.live_migrate_instance(
                        cctxt, instance, cell.uuid, host, block_migration,
                        disk_over_commit, force)
            except Exception as exc:
                LOG.warning('Live migration of %s did not start',
                            instance.uuid, exc_info=not isinstance(
                                exc, exception.NovaLiteException))
                if wait and isinstance(exc, exception.NovaLiteException):
                    raise messaging.ExpectedException() from exc

    def unshelve_instance(self, context, instance, host=None):
        """1.4: unshelve instance (task unshelving) within its cell
        (conductor.unshelve), as event conductor_unshelve_instance of
        its action; 1.5: an offloaded one onto host."""
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            context, instance.uuid)
        cell = mapping.cell_mapping
        with nova_context.target_cell(context, cell) as cctxt:
            instance.context = cctxt
            try:
                with instance_events.EventReporter(
                        cctxt, 'conductor_unshelve_instance', CONF.host,
                        instance.uuid):
                    unshelve.unshelve_instance(cctxt, instance, cell.uuid,
                                               host=host)
            except Exception as exc:
                LOG.warning('Unshelve of %s did not start', instance.uuid,
                            exc_info=not isinstance(
                                exc, exception.NovaLiteException))

    def evacuate_server(self, context, instance, migration, host=None,
                        force=False, admin_password=None, stopped=False):
        """1.5: evacuate instance (task rebuilding, its evacuation
        migration accepted) to host (scheduler-picked when None; force:
        skip the scheduler) within its cell (conductor.tasks.evacuate),
        as event conductor_evacuate_server of its action."""
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            context, instance.uuid)
        cell = mapping.cell_mapping
        with nova_context.target_cell(context, cell) as cctxt:
            instance.context = cctxt
            migration.context = cctxt
            try:
                with instance_events.EventReporter(
                        cctxt, evacuate.EVENT, CONF.host, instance.uuid):
                    evacuate.evacuate_server(
                        cctxt, instance, migration, cell.uuid, host=host,
                        force=force, admin_password=admin_password,
                        stopped=stopped)
            except Exception as exc:
                LOG.warning('Evacuation of %s did not start', instance.uuid,
                            exc_info=not isinstance(
                                exc, exception.NovaLiteException))

    def _cross_cell(self, context, instance, migration, step):
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            context, instance.uuid)
        with nova_context.target_cell(context,
                                      mapping.cell_mapping) as cctxt:
            instance.context = cctxt
            migration.context = cctxt
            try:
                step(cctxt, instance, migration)
            except Exception:
                LOG.warning('%s of %s failed', step.__name__,
                            instance.uuid, exc_info=True)

    def confirm_snapshot_based_resize(self, context, instance, migration):
        """1.3: confirm a cross-cell resize (the target cell's instance
        and migration, migration confirming): conductor.tasks.
        cross_cell_finish.confirm."""
        self._cross_cell(context, instance, migration,
                         cross_cell_finish.confirm)

    def revert_snapshot_based_resize(self, context, instance, migration):
        """1.3: revert a cross-cell resize (the target cell's instance
        in resize_reverting, migration reverting): conductor.tasks.
        cross_cell_finish.revert."""
        self._cross_cell(context, instance, migration,
                         cross_cell_finish.revert)


def endpoints(super_conductor):
    """The endpoints a conductor serves: object indirection, and
    compute_task when it is a super conductor (holds the API DB)."""
    roles = [ConductorManager()]
    if super_conductor:
        roles.append(ComputeTaskManager())
    return roles
