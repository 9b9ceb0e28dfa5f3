"""Client side of the conductor's RPC APIs, both on topic 'conductor'.

ConductorAPI (default namespace), served by every conductor:
    1.0 - Initial: object indirection (object_class_action_versions,
          object_action, object_backport_versions) for computes.
    1.1 - build_instances(instance, request_spec, requested_networks,
          host_list, failure): reschedule to an alternate (cast).
    1.2 - object_action runs Instance 1.1's save_and_finish_event (a
          compute asks for it only while it may send 1.2:
          can_send_version).
    1.3 - object methods take start_time: InstanceActionEvent 1.1's
          event_start and event_finish, Instance 1.2's
          save_and_finish_event (a compute records a quick action's
          event start with its finish only while it may send 1.3; a
          call passing start_time is sent as 1.3).
    1.4 - build_instances(..., injected_files) (sent as 1.4 only with
          personality files: a reschedule carries them to the next
          host).

ComputeTaskAPI (namespace 'compute_task'), served by super conductors
only (those holding the API database):
    1.0 - Initial: ping(arg).
    1.1 - schedule_and_build_instances(instance_uuids, request_spec,
          requested_networks, admin_password) (cast).
    1.2 - migrate_server(instance, flavor, host) (cast): resize or cold
          migration within the instance's cell.
    1.3 - migrate_server(..., allow_cross_cell) (sent as 1.3 only when
          True: the scheduler may pick a host of another cell, the
          super conductor then runs the cross-cell chain);
          confirm_snapshot_based_resize(instance, migration) (cast, or
          call with do_cast=False) and
          revert_snapshot_based_resize(instance, migration) (cast): the
          confirm and revert of a cross-cell move.
    1.4 - unshelve_instance(instance) (cast): a shelved server back on
          its host, an offloaded one scheduled anew within its cell.
    1.5 - evacuate_server(instance, migration, host, force,
          admin_password, stopped) (cast): rebuild a server of a down
          compute on another host of its cell.
    1.6 - unshelve_instance(instance, host) (sent as 1.6 only with a
          host): an offloaded server scheduled onto that host (2.91).
    1.7 - live_migrate_instance(instance, host, block_migration,
          disk_over_commit, force, wait) (a call when wait, else a
          cast): live migration within the instance's cell.
    1.8 - schedule_and_build_instances(..., injected_files) (sent as 1.8
          only with personality files; an older super conductor is sent
          none and its servers boot without them).

Caps: [upgrade_levels] conductor and compute_task, re-derived on each
call from the minimum service versions, which SIGHUP makes the process
read again.
"""
import oslo_messaging as messaging

from nova_lite.objects import service_version
from nova_lite import rpc

TOPIC = 'conductor'
# The version that runs Instance.save_and_finish_event.
SAVE_AND_FINISH_EVENT_VERSION = '1.2'
# The version whose object methods take start_time.
EVENT_START_TIME_VERSION = '1.3'
# object_action methods a conductor runs from a version later than 1.0.
OBJECT_ACTION_VERSIONS = {'save_and_finish_event':
                          SAVE_AND_FINISH_EVENT_VERSION}
COMPUTE_TASK_NAMESPACE = 'compute_task'
# The compute_task version that has unshelve_instance.
UNSHELVE_VERSION = '1.4'
# The compute_task version that has evacuate_server.
EVACUATE_VERSION = '1.5'
# The compute_task version whose unshelve_instance takes a host.
UNSHELVE_HOST_VERSION = '1.6'
# compute_task version of live_migrate_instance.
LIVE_MIGRATE_VERSION = '1.7'
# compute_task version whose schedule_and_build_instances takes
# injected_files.
INJECTED_FILES_TASK_VERSION = '1.8'
# conductor version whose build_instances takes injected_files.
INJECTED_FILES_VERSION = '1.4'


def _version(objmethod, kwargs):
    """The version an object method's call goes out as."""
    if 'start_time' in kwargs:
        return EVENT_START_TIME_VERSION
    return OBJECT_ACTION_VERSIONS.get(objmethod, '1.0')


class ConductorAPI(object):
    """Calls the cell conductor; used as computes' indirection API."""
    VERSION = '1.4'

    def __init__(self, transport=None, timeout=None, retry=None):
        self.transport = transport
        self.timeout = timeout
        self.retry = retry
        self.client = rpc.CappedClient(
            messaging.Target(topic=TOPIC, version='1.0'),
            lambda: service_version.rpc_version_cap('conductor'),
            transport=transport)

    def with_timeout(self, timeout, retry=1):
        """The same API whose calls wait at most timeout seconds for a
        reply (instead of rpc_response_timeout) and retry connecting to
        the message queue at most retry times to send (instead of for
        ever): a compute's heartbeat must not wait longer than its
        interval, whatever happened to the broker."""
        return ConductorAPI(transport=self.transport, timeout=timeout,
                            retry=retry)

    def _prepare(self, **kwargs):
        if self.timeout is not None:
            kwargs['timeout'] = self.timeout
        if self.retry is not None:
            kwargs['retry'] = self.retry
        return self.client.prepare(**kwargs)

    def can_send_version(self, version):
        """Whether the cap in force ([upgrade_levels] conductor) lets a
        call of RPC version go out."""
        return self.client.can_send_version(version)

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        cctxt = self._prepare(version=_version(objmethod, kwargs))
        return cctxt.call(context, 'object_class_action_versions',
                          objname=objname, objmethod=objmethod,
                          object_versions=object_versions,
                          args=args, kwargs=kwargs)

    def object_action(self, context, objinst, objmethod, args, kwargs):
        cctxt = self._prepare(version=_version(objmethod, kwargs))
        return cctxt.call(context, 'object_action', objinst=objinst,
                          objmethod=objmethod, args=args, kwargs=kwargs)

    def object_backport_versions(self, context, objinst, object_versions):
        cctxt = self._prepare()
        return cctxt.call(context, 'object_backport_versions',
                          objinst=objinst, object_versions=object_versions)

    def build_instances(self, context, instance, request_spec,
                        requested_networks, host_list, failure,
                        injected_files=None):
        kwargs = {}
        version = '1.1'
        if injected_files and self.client.can_send_version(
                INJECTED_FILES_VERSION):
            version = INJECTED_FILES_VERSION
            kwargs['injected_files'] = injected_files
        cctxt = self.client.prepare(version=version)
        cctxt.cast(context, 'build_instances', instance=instance,
                   request_spec=request_spec,
                   requested_networks=requested_networks,
                   host_list=host_list, failure=failure, **kwargs)


class ComputeTaskAPI(object):
    """Calls a super conductor's compute_task endpoint (API transport)."""
    VERSION = '1.8'

    def __init__(self, transport=None):
        self.client = rpc.CappedClient(
            messaging.Target(topic=TOPIC, namespace=COMPUTE_TASK_NAMESPACE,
                             version='1.0'),
            lambda: service_version.rpc_version_cap('compute_task'),
            transport=transport)

    def ping(self, context, arg):
        """Round trip to a super conductor; RPCVersionCapError while the
        oldest conductor does not serve compute_task."""
        cctxt = self.client.prepare(version='1.0')
        return cctxt.call(context, 'ping', arg=arg)

    def schedule_and_build_instances(self, context, instance_uuids,
                                     request_spec, requested_networks,
                                     admin_password=None,
                                     injected_files=None):
        """injected_files: [[path, base64 contents]] of the personality
        (sent only to a super conductor at 1.8)."""
        kwargs = {}
        version = '1.1'
        if injected_files and self.can_send(INJECTED_FILES_TASK_VERSION):
            version = INJECTED_FILES_TASK_VERSION
            kwargs['injected_files'] = injected_files
        # A boot whose cast no queue takes is refused (the API undoes
        # it, 503) instead of waiting in BUILD for a conductor.
        cctxt = self.client.prepare(version=version,
                                    transport_options=rpc.AT_LEAST_ONCE)
        cctxt.cast(context, 'schedule_and_build_instances',
                   instance_uuids=instance_uuids, request_spec=request_spec,
                   requested_networks=requested_networks,
                   admin_password=admin_password, **kwargs)

    def can_send(self, version):
        """Whether the oldest super conductor (at the cap in force)
        serves version."""
        return self.client.can_send_version(version)

    def migrate_server(self, context, instance, flavor, host=None,
                       allow_cross_cell=False):
        if allow_cross_cell:
            cctxt = self.client.prepare(version='1.3')
            cctxt.cast(context, 'migrate_server', instance=instance,
                       flavor=flavor, host=host, allow_cross_cell=True)
            return
        cctxt = self.client.prepare(version='1.2')
        cctxt.cast(context, 'migrate_server', instance=instance,
                   flavor=flavor, host=host)

    def confirm_snapshot_based_resize(self, context, instance, migration,
                                      do_cast=True):
        """1.3: confirm a cross-cell resize (instance and migration of
        the target cell)."""
        cctxt = self.client.prepare(version='1.3')
        send = cctxt.cast if do_cast else cctxt.call
        return send(context, 'confirm_snapshot_based_resize',
                    instance=instance, migration=migration)

    def revert_snapshot_based_resize(self, context, instance, migration):
        """1.3: revert a cross-cell resize (cast)."""
        cctxt = self.client.prepare(version='1.3')
        cctxt.cast(context, 'revert_snapshot_based_resize',
                   instance=instance, migration=migration)

    def unshelve_instance(self, context, instance, host=None):
        """1.4: unshelve instance (task_state unshelving); 1.6 with a
        host (an offloaded server onto that host). Callers check
        can_send(UNSHELVE_VERSION), and UNSHELVE_HOST_VERSION for a
        host, first."""
        if host:
            cctxt = self.client.prepare(version=UNSHELVE_HOST_VERSION)
            cctxt.cast(context, 'unshelve_instance', instance=instance,
                       host=host)
            return
        cctxt = self.client.prepare(version=UNSHELVE_VERSION)
        cctxt.cast(context, 'unshelve_instance', instance=instance)

    def evacuate_server(self, context, instance, migration, host=None,
                        force=False, admin_password=None, stopped=False):
        """1.5: evacuate instance (task rebuilding, migration accepted);
        callers check can_send(EVACUATE_VERSION) first."""
        cctxt = self.client.prepare(version=EVACUATE_VERSION)
        cctxt.cast(context, 'evacuate_server', instance=instance,
                   migration=migration, host=host, force=force,
                   admin_password=admin_password, stopped=stopped)

    def live_migrate_instance(self, context, instance, host=None,
                              block_migration=None, disk_over_commit=None,
                              force=False, wait=False):
        """1.7: live-migrate instance (task_state migrating) within its
        cell; wait: a call that raises the pre-checks' error (as Nova's
        API before 2.34), else a cast. Callers check
        can_send(LIVE_MIGRATE_VERSION) first."""
        cctxt = self.client.prepare(version=LIVE_MIGRATE_VERSION)
        send = cctxt.call if wait else cctxt.cast
        return send(context, 'live_migrate_instance', instance=instance,
                    host=host, block_migration=block_migration,
                    disk_over_commit=disk_over_commit, force=force,
                    wait=wait)
