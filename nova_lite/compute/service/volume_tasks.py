"""The compute service's volume work: the volumes of a build, of a
delete, of a cross-cell move, and attach/detach (compute RPC 1.7).

The compute reaches the volume service through nova_lite.volume.api (as
a real compute calls Cinder) and the block device mappings through its
cell conductor (remotable BlockDeviceMapping methods): it opens no
database of its own.

Build: every volume mapping gets its volume (image -> volume and blank
-> volume: created here on the first host that builds the server, its
id saved in the mapping, so a reschedule reuses it), an attachment
reserved for the instance (the API reserved existing volumes already),
then connected to this host (attachment_update with this host's
connector: the connection info is saved in the mapping) and completed
(volume in-use). A failed build disconnects them again but keeps the
reservations (the next host connects them); a delete releases them and
deletes the volumes of delete_on_termination mappings.
"""
from oslo_log import log as logging
from oslo_serialization import jsonutils

from nova_lite.compute import block_devices
from nova_lite.compute import instance_events
from nova_lite import exception
from nova_lite.notifications import instance as notify
from nova_lite import objects

LOG = logging.getLogger(__name__)


class VolumeTasks(object):
    """attach_volume and detach_volume of ComputeManager, and the
    volumes of this host's builds, deletes and cross-cell moves.

    host: this host's name; driver: its virt driver; locks: its
    InstanceLocks; volume_api: the volume service's client.
    """

    def __init__(self, host, driver, locks, volume_api):
        self.host = host
        self.driver = driver
        self.locks = locks
        self.volume_api = volume_api

    def _connector(self):
        return {'host': self.host, 'ip': '127.0.0.1', 'multipath': False,
                'initiator': 'iqn.2026-11.org.nova-lite:%s' % self.host}

    def bdms(self, context, instance):
        """The instance's block device mappings (from its cell)."""
        return objects.BlockDeviceMappingList.get_by_instance_uuid(
            context, instance.uuid)

    def connect(self, context, instance, bdm):
        """Connect bdm's reserved attachment to this host; its
        connection info is saved in bdm and returned."""
        attachment = self.volume_api.attachment_update(
            context, bdm.attachment_id, self._connector(),
            mountpoint=bdm.device_name)
        bdm.connection_info = _dumps(attachment['connection_info'])
        bdm.save()
        return attachment['connection_info']

    def reserve_attachment(self, context, instance, bdm):
        """bdm gets a new attachment reserved for instance, connected
        nowhere (saved). Its previous attachment is the caller's."""
        bdm.attachment_id = self.volume_api.attachment_create(
            context, bdm.volume_id, instance.uuid)['id']
        bdm.connection_info = None
        bdm.save()

    def reconnect(self, context, instance, bdm):
        """bdm, unless connected already, connected to this host,
        plugged into the guest and its attachment completed (volume
        in-use)."""
        if bdm.connection_info:
            return
        info = self.connect(context, instance, bdm)
        self.driver.attach_volume(instance.uuid, info, bdm.device_name)
        self.volume_api.attachment_complete(context, bdm.attachment_id)

    def prep_block_devices(self, context, instance):
        """Create, reserve and connect the instance's volumes on this
        host (see the module doc). Returns (mappings, volume-backed)."""
        bdms = self.bdms(context, instance)
        block_devices.check_disk_devices(len(bdms))
        for bdm in bdms.volumes():
            if bdm.volume_id is None:
                volume = self.volume_api.create(
                    context, bdm.volume_size,
                    '%s-%s' % (instance.display_name or '', bdm.device_name
                               .rsplit('/', 1)[-1]),
                    image_id=bdm.image_id,
                    availability_zone=instance.availability_zone,
                    snapshot_id=bdm.snapshot_id)
                bdm.volume_id = volume['id']
                bdm.save()
            if bdm.attachment_id is None:
                bdm.attachment_id = self.volume_api.attachment_create(
                    context, bdm.volume_id, instance.uuid)['id']
                bdm.save()
            self.connect(context, instance, bdm)
        root = bdms.root_bdm()
        return bdms, bool(root is not None and root.is_volume)

    def plug_block_devices(self, context, instance, bdms):
        """After spawn: plug the connected volumes into the guest and
        complete their attachments (volumes in-use)."""
        for bdm in bdms.volumes():
            self.driver.attach_volume(instance.uuid,
                                      _loads(bdm.connection_info),
                                      bdm.device_name)
            self.volume_api.attachment_complete(context, bdm.attachment_id)

    def disconnect_block_devices(self, context, instance):
        """Undo prep_block_devices on this host for a failed build:
        each connected attachment is replaced by a reservation for the
        instance (volumes stay the instance's; a reschedule connects
        them on its host)."""
        try:
            bdms = self.bdms(context, instance)
        except exception.NovaLiteException:
            return
        for bdm in bdms.volumes():
            if bdm.attachment_id is None or not bdm.connection_info:
                continue
            try:
                block_devices.release(context, [bdm])
                self.reserve_attachment(context, instance, bdm)
            except exception.NovaLiteException:
                LOG.exception('Could not disconnect volume %s of %s',
                              bdm.volume_id, instance.uuid)

    def cleanup_block_devices(self, context, instance):
        """A delete: release every attachment, delete the volumes of
        delete_on_termination mappings."""
        try:
            bdms = self.bdms(context, instance)
        except exception.NovaLiteException:
            LOG.exception('Could not read the volumes of %s', instance.uuid)
            return
        for bdm in bdms.volumes():
            self.driver.detach_volume(instance.uuid, bdm.device_name)
        block_devices.cleanup_volumes(context, bdms.volumes(),
                                      api=self.volume_api)

    # --- RPC API 1.7: volume attachments -------------------------------

    @instance_events.wrap_instance_event(prefix='compute')
    def attach_volume(self, context, instance, bdm):
        """Connect bdm's volume (its attachment reserved by the API) to
        this host and the guest: attachment attached, volume in-use. On
        failure the mapping and the attachment are removed again (the
        volume is available) and the event records the error."""
        with self.locks(instance.uuid):
            try:
                info = self.connect(context, instance, bdm)
                self.driver.attach_volume(instance.uuid, info,
                                          bdm.device_name)
                self.volume_api.attachment_complete(context,
                                                    bdm.attachment_id)
            except Exception:
                LOG.exception('Attaching volume %s to %s failed',
                              bdm.volume_id, instance.uuid)
                self.driver.detach_volume(instance.uuid, bdm.device_name)
                block_devices.release(context, [bdm])
                bdm.destroy()
                raise

    @instance_events.wrap_instance_event(prefix='compute')
    def detach_volume(self, context, instance, volume_id, attachment_id):
        """Unplug the volume from the guest, delete its attachment
        (volume available) and its mapping; on failure the volume is
        in-use again. Never deletes the volume (delete_on_termination is
        for server deletes)."""
        with self.locks(instance.uuid):
            try:
                bdm = objects.BlockDeviceMapping.get_by_volume_and_instance(
                    context, volume_id, instance.uuid)
            except exception.VolumeNotAttached:
                LOG.info('Volume %s is no longer attached to %s',
                         volume_id, instance.uuid)
                return
            try:
                self.driver.detach_volume(instance.uuid, bdm.device_name)
                block_devices.release(context, [bdm])
            except Exception:
                # Still attached: in-use again, so it may be retried.
                LOG.exception('Detaching volume %s from %s failed',
                              volume_id, instance.uuid)
                self.volume_api.roll_detaching(context, volume_id)
                raise
            bdm.destroy()

    def volume_snapshot_create(self, context, instance, volume_id,
                               create_info):
        """os-assisted-volume-snapshots: the driver snapshots the file
        of volume_id's device (a new qcow2 overlay, create_info's
        new_file). Logged, not raised, when the volume has left the
        server meanwhile (the cast has no caller to tell)."""
        with self.locks(instance.uuid):
            bdm = self._snapshot_bdm(context, instance, volume_id)
            if bdm is not None:
                self.driver.volume_snapshot_create(
                    instance.uuid, bdm.device_name, create_info)
                LOG.info('Snapshot %s of volume %s of %s created',
                         create_info.get('snapshot_id'), volume_id,
                         instance.uuid)

    def volume_snapshot_delete(self, context, instance, volume_id,
                               snapshot_id, delete_info):
        """os-assisted-volume-snapshots: the driver deletes snapshot_id
        of volume_id's device."""
        with self.locks(instance.uuid):
            bdm = self._snapshot_bdm(context, instance, volume_id)
            if bdm is not None:
                self.driver.volume_snapshot_delete(
                    instance.uuid, bdm.device_name, snapshot_id)
                LOG.info('Snapshot %s of volume %s of %s deleted',
                         snapshot_id, volume_id, instance.uuid)

    def _snapshot_bdm(self, context, instance, volume_id):
        try:
            return objects.BlockDeviceMapping.get_by_volume_and_instance(
                context, volume_id, instance.uuid)
        except exception.VolumeNotAttached:
            LOG.warning('Volume %s is no longer attached to %s: its '
                        'snapshot request is dropped', volume_id,
                        instance.uuid)
            return None

    @instance_events.wrap_instance_event(prefix='compute')
    def swap_volume(self, context, instance, old_volume_id, new_volume_id,
                    new_attachment_id):
        """The guest moves from old_volume_id (detaching) to
        new_volume_id (attachment new_attachment_id reserved by the
        API) on the same device: the new volume connected, the data
        copied by the guest (the simulated driver swaps the device),
        its attachment completed (in-use) and the mapping moved to it,
        the old volume's attachment deleted (available). On a failure
        the new attachment is deleted (available) and the old volume is
        in-use again. Notifications instance.volume_swap.start/.end (or
        .error)."""
        with self.locks(instance.uuid):
            notify.notify_about_volume_swap(
                context, instance, self.host, notify.START, old_volume_id,
                new_volume_id)
            try:
                self._swap(context, instance, old_volume_id, new_volume_id,
                           new_attachment_id)
            except Exception as exc:
                notify.notify_about_volume_swap(
                    context, instance, self.host, notify.ERROR,
                    old_volume_id, new_volume_id, exception=exc)
                raise
            notify.notify_about_volume_swap(
                context, instance, self.host, notify.END, old_volume_id,
                new_volume_id)

    def _swap(self, context, instance, old_volume_id, new_volume_id,
              new_attachment_id):
        bdm = objects.BlockDeviceMapping.get_by_volume_and_instance(
            context, old_volume_id, instance.uuid)
        old_attachment_id = bdm.attachment_id
        try:
            attachment = self.volume_api.attachment_update(
                context, new_attachment_id, self._connector(),
                mountpoint=bdm.device_name)
            self.driver.swap_volume(instance.uuid, bdm.device_name,
                                    attachment['connection_info'])
            self.volume_api.attachment_complete(context,
                                                new_attachment_id)
        except Exception:
            LOG.exception('Swapping volume %s for %s on %s failed',
                          old_volume_id, new_volume_id, instance.uuid)
            self.driver.attach_volume(instance.uuid,
                                      _loads(bdm.connection_info),
                                      bdm.device_name)
            block_devices.release(context, [
                {'attachment_id': new_attachment_id}])
            self.volume_api.roll_detaching(context, old_volume_id)
            raise
        new_size = self.volume_api.get(context, new_volume_id)['size']
        bdm.volume_id = new_volume_id
        bdm.attachment_id = new_attachment_id
        bdm.connection_info = _dumps(attachment['connection_info'])
        if bdm.volume_size is not None:
            bdm.volume_size = new_size
        bdm.save()
        block_devices.release(context, [
            {'attachment_id': old_attachment_id}])
        LOG.info('Volume %s of %s swapped for %s', old_volume_id,
                 instance.uuid, new_volume_id)


def _dumps(value):
    return None if value is None else jsonutils.dumps(value)


def _loads(value):
    return jsonutils.loads(value) if value else None
