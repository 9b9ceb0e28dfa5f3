"""Shelve, offload and unshelve on this host (compute RPC 1.9).

A shelve powers the guest off and, for an image-backed server, uploads
a snapshot of it into the image the compute API made (queued): the
server ends SHELVED, its guest, host and allocations kept, the image
named in its system metadata (shelved_at, shelved_image_id,
shelved_host, as Nova keeps them). An offload destroys the guest,
disconnects its volumes (their attachments reserved for it), frees its
allocations and clears its host and node: SHELVED_OFFLOADED. An
unshelve brings the guest back: powered on where it was (SHELVED), or
spawned on the host the super conductor claimed (SHELVED_OFFLOADED),
after which the snapshot image is deleted.

Every step is a compare-and-swap on the task state it expects (a delete
or a reset meanwhile wins and nothing more is done) and runs under the
instance's lock on this host. A failure leaves the server where it
started (task cleared, a fault recorded, nothing claimed or uploaded
left behind); a restart of this service in the middle is finished or
undone by recover_interrupted.
"""
from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.compute import instance_events
from nova_lite.compute.service import group_check
from nova_lite.compute.service import guest_info
from nova_lite.compute.service import saves
from nova_lite.compute.service import vif_plugging
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite.notifications import instance as notify
from nova_lite import objects
from nova_lite.objects import compute_inventory
from nova_lite.objects import instance as instance_obj
from nova_lite.virt import fake

LOG = logging.getLogger(__name__)

# System metadata a shelved server carries (as Nova's).
SHELVED_AT, SHELVED_IMAGE_ID, SHELVED_HOST = (
    'shelved_at', 'shelved_image_id', 'shelved_host')
_SHELVE_KEYS = (SHELVED_AT, SHELVED_IMAGE_ID, SHELVED_HOST)

# Task states a stop of this compute may interrupt.
_INTERRUPTED_SHELVE = (instance_obj.SHELVING,
                       instance_obj.SHELVING_IMAGE_PENDING_UPLOAD,
                       instance_obj.SHELVING_IMAGE_UPLOADING)
INTERRUPTED = _INTERRUPTED_SHELVE + (instance_obj.SHELVING_OFFLOADING,
                                     instance_obj.UNSHELVING)


def _quiet_delete_image(context, image_id):
    if not image_id:
        return
    try:
        image_api.API().delete(context.elevated(), image_id)
    except exception.ImageNotFound:
        pass
    except Exception:
        LOG.exception('Could not delete image %s', image_id)


def _without_shelve_keys(instance):
    sysmeta = dict(instance.system_metadata or {})
    for key in _SHELVE_KEYS:
        sysmeta.pop(key, None)
    return sysmeta


class ShelveTasks(object):
    """shelve_instance, shelve_offload_instance and unshelve_instance of
    ComputeManager. host: this host's name; driver: its virt driver;
    locks: its InstanceLocks; network_api: the network service's
    client; volumes: this host's VolumeTasks; waits: its EventWaits
    (an offloaded server's unshelve waits for network-vif-plugged)."""

    def __init__(self, host, driver, locks, network_api, volumes,
                 waits=None):
        self.host = host
        self.waits = waits
        self.driver = driver
        self.locks = locks
        self.network_api = network_api
        self.volumes = volumes
        self._last_poll = None

    # --- shelve ---------------------------------------------------------

    @instance_events.wrap_instance_event(prefix='compute')
    def shelve_instance(self, context, instance, image_id):
        """On entry task shelving (vm_state active, stopped, paused or
        suspended), image_id queued. Then shelving_image_pending_upload,
        shelving_image_uploading, and SHELVED (SHUTDOWN) with no task;
        offloaded at once when [DEFAULT] shelved_offload_time is 0. A
        failure deletes the image, powers the guest on again if it was
        running and clears the task (vm_state unchanged, fault
        recorded). Notifications: instance.shelve.start/.end."""
        with self.locks(instance.uuid):
            offload = self._shelve(context, instance, image_id)
            if offload:
                self._offload(context, instance)

    def _shelve(self, context, instance, image_id):
        was = instance.vm_state
        images = image_api.API()
        try:
            with notify.action(context, instance, self.host, 'shelve'):
                self.driver.power_off(instance.uuid)
                instance.task_state = (
                    instance_obj.SHELVING_IMAGE_PENDING_UPLOAD)
                instance.save(expected_task_state=[instance_obj.SHELVING])
                disk = self.driver.snapshot(instance.uuid)
                instance.task_state = instance_obj.SHELVING_IMAGE_UPLOADING
                instance.save(expected_task_state=[
                    instance_obj.SHELVING_IMAGE_PENDING_UPLOAD])
                images.update(context, image_id, status='active',
                              size=disk['size'], checksum=disk['checksum'])
                return self._mark_shelved(instance, image_id, [
                    instance_obj.SHELVING_IMAGE_UPLOADING])
        except saves.MOVED_ON as exc:
            LOG.info('Instance %s moved on while shelving: %s',
                     instance.uuid, exc)
            _quiet_delete_image(context, image_id)
            return False
        except Exception as exc:
            LOG.warning('Shelve of %s failed on %s: %s', instance.uuid,
                        self.host, exc)
            _quiet_delete_image(context, image_id)
            self._restore_power(instance, was)
            saves.record_fault(instance, exc, self.host)
            saves.save_quietly(instance, list(_INTERRUPTED_SHELVE),
                               task_state=None)
            raise

    def _mark_shelved(self, instance, image_id, expected):
        """SHELVED with the shelve's system metadata (task
        shelving_offloading when it offloads at once). Returns whether
        it does."""
        offload = CONF.shelved_offload_time == 0
        sysmeta = dict(instance.system_metadata or {})
        sysmeta.update({SHELVED_AT: timeutils.utcnow().isoformat(),
                        SHELVED_IMAGE_ID: image_id or '',
                        SHELVED_HOST: self.host})
        if not image_id:
            del sysmeta[SHELVED_IMAGE_ID]
        instance.system_metadata = sysmeta
        instance.vm_state = instance_obj.SHELVED
        instance.power_state = instance_obj.SHUTDOWN
        instance.task_state = (instance_obj.SHELVING_OFFLOADING if offload
                               else None)
        instance.save(expected_task_state=expected)
        LOG.info('Instance %s shelved on %s', instance.uuid, self.host)
        return offload

    def _restore_power(self, instance, vm_state):
        if vm_state != instance_obj.ACTIVE:
            return
        try:
            self.driver.power_on(instance.uuid)
        except Exception:
            LOG.exception('Could not power %s on again', instance.uuid)

    # --- offload --------------------------------------------------------

    @instance_events.wrap_instance_event(prefix='compute')
    def shelve_offload_instance(self, context, instance):
        """On entry task shelving_offloading: a SHELVED server (shelveOffload)
        or a volume-backed one being shelved (active, stopped, paused
        or suspended), whose shelve then ends here. On exit
        SHELVED_OFFLOADED: guest destroyed, volumes disconnected
        (attachments reserved), allocations freed, host and node
        cleared. Notifications: instance.shelve_offload.start/.end (a
        volume-backed shelve: instance.shelve.start/.end first)."""
        with self.locks(instance.uuid):
            if instance.vm_state != instance_obj.SHELVED:
                with notify.action(context, instance, self.host, 'shelve'):
                    self.driver.power_off(instance.uuid)
                    if not self._save_volume_backed_shelved(instance):
                        return
            self._offload(context, instance)

    def _save_volume_backed_shelved(self, instance):
        sysmeta = dict(instance.system_metadata or {})
        sysmeta.update({SHELVED_AT: timeutils.utcnow().isoformat(),
                        SHELVED_HOST: self.host})
        return saves.save_quietly(
            instance, [instance_obj.SHELVING_OFFLOADING],
            system_metadata=sysmeta, vm_state=instance_obj.SHELVED,
            power_state=instance_obj.SHUTDOWN)

    def _offload(self, context, instance):
        """Offload (task shelving_offloading, this host). Idempotent: a
        restart mid-way runs it again. The allocations go before the
        host is cleared, so an interrupted offload still names the host
        whose recovery finishes it."""
        with notify.action(context, instance, self.host, 'shelve_offload'):
            try:
                self.driver.power_off(instance.uuid)
            except fake.GuestNotFound:
                pass
            self.volumes.disconnect_block_devices(context, instance)
            self.driver.destroy(instance.uuid)
            compute_inventory.placement_for(context).remove_allocations(
                context, instance.uuid)
            if saves.save_quietly(
                    instance, [instance_obj.SHELVING_OFFLOADING],
                    vm_state=instance_obj.SHELVED_OFFLOADED,
                    power_state=instance_obj.NOSTATE, host=None, node=None,
                    task_state=None):
                LOG.info('Instance %s offloaded from %s', instance.uuid,
                         self.host)

    # --- unshelve -------------------------------------------------------

    @instance_events.wrap_instance_event(prefix='compute')
    def unshelve_instance(self, context, instance, request_spec=None):
        """On entry task unshelving: SHELVED here (the guest is powered
        on), or SHELVED_OFFLOADED and claimed here by the super
        conductor (task spawning, ports bound here, volumes connected,
        the guest spawned). On exit ACTIVE (RUNNING), the snapshot image
        deleted and the shelve's system metadata gone. A failed spawn
        undoes what it did here, frees the claim and leaves the server
        SHELVED_OFFLOADED with a fault. Notifications:
        instance.unshelve.start/.end."""
        with self.locks(instance.uuid), notify.action(
                context, instance, self.host, 'unshelve'):
            if instance.vm_state == instance_obj.SHELVED:
                self._power_on_shelved(context, instance)
            else:
                self._check_group(context, instance, request_spec)
                self._spawn_offloaded(context, instance)

    def _check_group(self, context, instance, request_spec):
        """The late check of the server group's policy (group_check)
        for an offloaded server coming here: a violation leaves it
        SHELVED_OFFLOADED with no host (before the group's lock is
        released), its claim freed and the violation as its fault;
        InstanceGroupPolicyViolated then."""
        try:
            group_check.check(
                context, self.host, self.locks, instance,
                group_check.group_of_spec(request_spec),
                lambda: self.undo_spawn(context, instance,
                                        [instance_obj.UNSHELVING]),
                'Unshelve')
        except exception.InstanceGroupPolicyViolated as exc:
            saves.record_fault(instance, exc, self.host)
            raise

    def _power_on_shelved(self, context, instance):
        try:
            self.driver.power_on(instance.uuid)
        except Exception as exc:
            saves.record_fault(instance, exc, self.host)
            saves.save_quietly(instance, [instance_obj.UNSHELVING],
                               task_state=None)
            raise
        self._finish_unshelve(context, instance, [instance_obj.UNSHELVING])

    def _finish_unshelve(self, context, instance, expected):
        image_id = (instance.system_metadata or {}).get(SHELVED_IMAGE_ID)
        if saves.save_quietly(instance, expected,
                              system_metadata=_without_shelve_keys(instance),
                              vm_state=instance_obj.ACTIVE,
                              power_state=instance_obj.RUNNING,
                              task_state=None,
                              launched_at=timeutils.utcnow()):
            _quiet_delete_image(context, image_id)
            LOG.info('Instance %s unshelved on %s', instance.uuid,
                     self.host)

    def _spawn_offloaded(self, context, instance):
        image_id = (instance.system_metadata or {}).get(SHELVED_IMAGE_ID)
        if not saves.save_quietly(instance, [instance_obj.UNSHELVING],
                                  task_state=instance_obj.SPAWNING):
            return
        try:
            if image_id:
                image_api.API().get(context.elevated(), image_id)
            down = self.network_api.bind_ports_to_host(
                context, instance.uuid, self.host) or []
            bdms, volume_backed = self.volumes.prep_block_devices(
                context, instance)
            flavor = instance.flavor

            def spawn():
                self.driver.spawn(
                    instance.uuid, flavor.vcpus, flavor.memory_mb,
                    (0 if volume_backed else flavor.root_gb)
                    + flavor.ephemeral_gb, name=instance.display_name,
                    guest=guest_info.describe(
                        instance, volume_backed=volume_backed))
            if self.waits is None:
                spawn()
            else:
                vif_plugging.spawn_and_wait(
                    self.waits, self.network_api, context, instance,
                    self.host, [v['id'] for v in instance.network_info or ()],
                    down, spawn)
            self.volumes.plug_block_devices(context, instance, bdms)
        except Exception as exc:
            LOG.warning('Unshelve of %s failed on %s: %s', instance.uuid,
                        self.host, exc)
            saves.record_fault(instance, exc, self.host)
            self.undo_spawn(context, instance, [instance_obj.SPAWNING])
            raise
        self._finish_unshelve(context, instance, [instance_obj.SPAWNING])

    def undo_spawn(self, context, instance, expected):
        """An unshelve that did not finish here: guest destroyed,
        volumes disconnected, claim freed, the server SHELVED_OFFLOADED
        again with no host (if it is still in expected)."""
        self.driver.destroy(instance.uuid)
        self.volumes.disconnect_block_devices(context, instance)
        try:
            compute_inventory.placement_for(context).remove_allocations(
                context, instance.uuid)
        except Exception:
            LOG.exception('Could not free the claim of %s', instance.uuid)
        saves.save_quietly(instance, expected,
                           vm_state=instance_obj.SHELVED_OFFLOADED,
                           power_state=instance_obj.NOSTATE, host=None,
                           node=None, task_state=None)

    # --- restart and periodic -------------------------------------------

    def recover_interrupted(self, context, instance):
        """After a restart of this host, an instance here whose shelve,
        offload or unshelve it interrupted: a shelve is undone (image
        deleted, guest powered on again if it was running, task
        cleared); an offload is run to its end; an unshelve that was
        spawning is undone (SHELVED_OFFLOADED, claim freed); one still
        unshelving has its cast waiting in this host's queue. Never
        raises (logged)."""
        task = instance.task_state
        LOG.warning('%s of %s was interrupted by a restart of %s', task,
                    instance.uuid, self.host)
        try:
            with self.locks(instance.uuid):
                if task in _INTERRUPTED_SHELVE:
                    _quiet_delete_image(context, (instance.system_metadata
                                                  or {}).get(
                        SHELVED_IMAGE_ID) or self._queued_image(
                        context, instance))
                    self._restore_power(instance, instance.vm_state)
                    saves.save_quietly(instance, [task], task_state=None)
                elif task == instance_obj.SHELVING_OFFLOADING:
                    self._offload(context, instance)
                elif (task == instance_obj.SPAWNING and instance.vm_state
                      == instance_obj.SHELVED_OFFLOADED):
                    self.undo_spawn(context, instance, [task])
        except Exception:
            LOG.exception('Could not recover %s of %s', task, instance.uuid)

    def _queued_image(self, context, instance):
        """The image an interrupted shelve was uploading into (queued,
        its instance_uuid and name the shelve's), or None."""
        try:
            for image in image_api.API().get_all(
                    context.elevated(),
                    filters={'name': '%s-shelved' % instance.display_name}):
                props = image.get('properties') or {}
                if (props.get('instance_uuid') == instance.uuid
                        and image.get('status') != 'active'):
                    return image['id']
        except Exception:
            LOG.exception('Could not look for the image of %s',
                          instance.uuid)
        return None

    def offload_old_shelved(self, context):
        """Every shelved_poll_interval seconds (when shelved_offload_time
        is positive): offload the servers of this host shelved longer
        than shelved_offload_time ago. Seconds until the next look
        (None: no periodic look). Never raises (logged)."""
        interval = CONF.shelved_poll_interval
        if interval <= 0 or CONF.shelved_offload_time <= 0:
            return None
        now = timeutils.utcnow()
        if (self._last_poll is not None and timeutils.delta_seconds(
                self._last_poll, now) < interval):
            return max(1, interval - timeutils.delta_seconds(
                self._last_poll, now))
        self._last_poll = now
        try:
            shelved = objects.InstanceList.get_by_filters(
                context, {'host': self.host,
                          'vm_state': [instance_obj.SHELVED],
                          'task_state': [None]})
        except Exception:
            LOG.exception('Could not list the shelved servers of %s',
                          self.host)
            return interval
        for instance in shelved:
            if self._shelved_longer_than_allowed(instance, now):
                self._offload_old(context, instance)
        return interval

    def _shelved_longer_than_allowed(self, instance, now):
        at = (instance.system_metadata or {}).get(SHELVED_AT)
        if not at:
            return True
        return timeutils.delta_seconds(
            timeutils.normalize_time(timeutils.parse_isotime(at)),
            now) >= CONF.shelved_offload_time

    def _offload_old(self, context, instance):
        try:
            with self.locks(instance.uuid):
                if saves.save_quietly(instance, [None],
                                      task_state=(
                                          instance_obj.SHELVING_OFFLOADING)):
                    self._offload(context, instance)
        except Exception:
            LOG.exception('Could not offload shelved server %s',
                          instance.uuid)
