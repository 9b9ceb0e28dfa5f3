"""Power actions on this host (compute RPC 1.4): stop, start, reboot,
pause, unpause, suspend, resume, and reset_network.

The API set the task state (compare-and-swap) and recorded the action
before casting; each method here runs one event of it, serialised per
instance with build and terminate, and ends with the state Nova ends
in (or, on failure, the task state cleared).

A hard reboot unplugs and plugs again the VIFs of the ports whose VNIC
type [workarounds] wait_for_vif_plugged_event_during_hard_reboot names
and waits for their network-vif-plugged (vif_plugging.spawn_and_wait),
as Nova's option does; by default (empty) nothing is awaited, as in
Nova. A fatal miss leaves the guest running (the reboot itself
happened): a fault is recorded and the server ends ACTIVE, as Nova
ends a failed reboot whose guest runs.
"""
from oslo_log import log as logging

from nova_lite.compute import instance_events
from nova_lite.compute.service import saves
from nova_lite.compute.service import vif_plugging
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.notifications import instance as notify
from nova_lite.objects import instance as instance_obj

LOG = logging.getLogger(__name__)


# Each task state of a power action: (driver method, the vm_state and
# power_state it ends in). Reboots of any kind end as a hard reboot.
_POWER_TASKS = {
    instance_obj.POWERING_OFF: ('power_off', instance_obj.STOPPED,
                                instance_obj.SHUTDOWN),
    instance_obj.POWERING_ON: ('power_on', instance_obj.ACTIVE,
                               instance_obj.RUNNING),
    instance_obj.PAUSING: ('pause', instance_obj.PAUSED,
                           instance_obj.POWER_PAUSED),
    instance_obj.UNPAUSING: ('unpause', instance_obj.ACTIVE,
                             instance_obj.RUNNING),
    instance_obj.SUSPENDING: ('suspend', instance_obj.SUSPENDED,
                              instance_obj.POWER_SUSPENDED),
    instance_obj.RESUMING: ('resume', instance_obj.ACTIVE,
                            instance_obj.RUNNING),
}
_POWER_TASKS.update({state: ('reboot', instance_obj.ACTIVE,
                             instance_obj.RUNNING)
                     for state in instance_obj.SOFT_REBOOT_STATES
                     + instance_obj.HARD_REBOOT_STATES})

# The task states of a power action (a stop of this host may interrupt
# any of them).
TASK_STATES = frozenset(_POWER_TASKS)


class PowerTasks(object):
    """The power actions of ComputeManager. host: this host's name;
    driver: its virt driver; locks: its InstanceLocks; network_api and
    waits (its EventWaits): for the waits of a hard reboot (None: no
    wait)."""

    def __init__(self, host, driver, locks, network_api=None, waits=None):
        self.host = host
        self.driver = driver
        self.locks = locks
        self.network_api = network_api
        self.waits = waits

    def _hard_reboot(self, context, instance):
        """The guest rebooted (hard), waiting for network-vif-plugged of
        the ports the workaround option names (see the module doc)."""
        types = CONF.workarounds.wait_for_vif_plugged_event_during_hard_reboot
        port_ids = [v['id'] for v in instance.network_info or ()
                    if v.get('vnic_type', 'normal') in types]
        if not port_ids or self.waits is None or self.network_api is None:
            self.driver.reboot(instance.uuid, hard=True)
            return
        down = self.network_api.ports_unplugged(context, instance.uuid,
                                                port_ids, self.host)
        try:
            vif_plugging.spawn_and_wait(
                self.waits, self.network_api, context, instance, self.host,
                port_ids, down,
                lambda: self.driver.reboot(instance.uuid, hard=True))
        except exception.VirtualInterfaceCreateException as exc:
            LOG.warning('Reboot of %s: %s; the guest runs', instance.uuid,
                        exc)
            saves.record_fault(instance, exc, self.host)

    def _power_action(self, instance, task_state, event=None):
        """Run task_state's driver operation and save the state it ends
        in, if the instance is still in task_state (a delete may have
        overtaken it: then nothing is saved), finishing event (an
        EventReporter; None: a restart's recovery, no event) with it. A
        driver failure clears the task state and raises."""
        method, vm_state, power_state = _POWER_TASKS[task_state]
        try:
            if method == 'reboot':
                self.driver.reboot(instance.uuid, hard=True)
            else:
                getattr(self.driver, method)(instance.uuid)
        except Exception:
            saves.save_quietly(instance, [task_state], task_state=None)
            raise
        saves.save_quietly(instance, [task_state], vm_state=vm_state,
                           power_state=power_state, task_state=None,
                           finishing=event)

    def finish_interrupted(self, instance):
        """After a restart of this host: an action the stop interrupted
        (task in TASK_STATES) is run to its end (every driver power
        operation is idempotent); a failure is logged, never raised."""
        LOG.warning('%s of %s was interrupted by a restart of %s; '
                    'finishing it', instance.task_state, instance.uuid,
                    self.host)
        try:
            with self.locks(instance.uuid):
                self._power_action(instance, instance.task_state)
        except Exception:
            LOG.exception('Could not finish %s of %s', instance.task_state,
                          instance.uuid)

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def stop_instance(self, context, instance, event):
        """powering-off -> stopped, SHUTDOWN."""
        with self.locks(instance.uuid), notify.action(
                context, instance, self.host, 'power_off'):
            self._power_action(instance, instance_obj.POWERING_OFF, event)

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def start_instance(self, context, instance, event):
        """powering-on -> active, RUNNING."""
        with self.locks(instance.uuid), notify.action(
                context, instance, self.host, 'power_on'):
            self._power_action(instance, instance_obj.POWERING_ON, event)

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def reboot_instance(self, context, instance, reboot_type, event):
        """rebooting -> reboot_pending -> reboot_started -> active (the
        _hard states for HARD); a soft reboot of a guest that is not
        running fails (task state cleared)."""
        hard = reboot_type == 'HARD'
        requested, pending, started = (
            instance_obj.HARD_REBOOT_STATES if hard
            else instance_obj.SOFT_REBOOT_STATES)
        with self.locks(instance.uuid), notify.action(
                context, instance, self.host, 'reboot', error_phase=True):
            if not saves.save_quietly(instance, [requested],
                                      task_state=pending):
                return
            if not saves.save_quietly(instance, [pending],
                                      task_state=started):
                return
            try:
                if hard:
                    self._hard_reboot(context, instance)
                else:
                    self.driver.reboot(instance.uuid, hard=False)
            except Exception:
                saves.save_quietly(instance, [started], task_state=None)
                raise
            saves.save_quietly(instance, [started],
                               vm_state=instance_obj.ACTIVE,
                               power_state=instance_obj.RUNNING,
                               task_state=None, finishing=event)

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def pause_instance(self, context, instance, event):
        """pausing -> paused, PAUSED."""
        with self.locks(instance.uuid), notify.action(
                context, instance, self.host, 'pause'):
            self._power_action(instance, instance_obj.PAUSING, event)

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def unpause_instance(self, context, instance, event):
        """unpausing -> active, RUNNING."""
        with self.locks(instance.uuid), notify.action(
                context, instance, self.host, 'unpause'):
            self._power_action(instance, instance_obj.UNPAUSING, event)

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def suspend_instance(self, context, instance, event):
        """suspending -> suspended, SUSPENDED."""
        with self.locks(instance.uuid), notify.action(
                context, instance, self.host, 'suspend'):
            self._power_action(instance, instance_obj.SUSPENDING, event)

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def resume_instance(self, context, instance, event):
        """resuming -> active, RUNNING."""
        with self.locks(instance.uuid), notify.action(
                context, instance, self.host, 'resume'):
            self._power_action(instance, instance_obj.RESUMING, event)

    @instance_events.wrap_instance_event(prefix='compute')
    def reset_network(self, context, instance):
        """Re-plug the guest's networking (no state change)."""
        with self.locks(instance.uuid):
            self.driver.reset_network(instance.uuid)
