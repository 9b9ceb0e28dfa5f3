"""Rebuild of a volume-backed server at microversion 2.93: its root
volume is reimaged by the volume service (Cinder's os-reimage), as Nova
does it.

Within the rebuild's rebuild_block_device_mapping step: the root volume
is unplugged from the guest and disconnected from this host, its
attachment replaced by one reserved for the server (volume reserved);
the volume service is asked to reimage it (reserved -> downloading ->
reserved) and the compute waits for its volume-reimaged event, at most
[DEFAULT] reimage_timeout_per_gb seconds per GiB of the volume. A
missing or failed event fails the rebuild (BuildAbortException: the
server goes to ERROR with the fault). After the guest is rebuilt the
volume is connected and plugged again (in-use).
"""
from oslo_log import log as logging

from nova_lite.compute.service import event_waits
from nova_lite.conf import CONF
from nova_lite import exception

LOG = logging.getLogger(__name__)


class RootVolumeReimage(object):
    """volumes: this host's VolumeTasks; waits: its EventWaits."""

    def __init__(self, driver, volumes, waits):
        self.driver = driver
        self.volumes = volumes
        self.waits = waits

    def root(self, context, instance):
        root = self.volumes.bdms(context, instance).root_bdm()
        if root is None or not root.volume_id:
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid,
                reason='it has no root volume to reimage')
        return root

    def reimage(self, context, instance, image_id):
        """Reimage the root volume with image_id; returns its mapping
        (reserved for the instance, not connected)."""
        root = self.root(context, instance)
        api = self.volumes.volume_api
        self.driver.detach_volume(instance.uuid, root.device_name)
        old = root.attachment_id
        self.volumes.reserve_attachment(context, instance, root)
        if old:
            try:
                api.attachment_delete(context, old)
            except exception.VolumeAttachmentNotFound:
                pass
        size = api.get(context, root.volume_id)['size']
        event = {'name': event_waits.VOLUME_REIMAGED, 'tag': root.volume_id,
                 'status': 'completed'}

        def failed(name, tag):
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid,
                reason='the volume service failed to reimage volume %s'
                       % tag)
        try:
            with self.waits.wait_for(
                    instance.uuid, [(event['name'], event['tag'])],
                    CONF.reimage_timeout_per_gb * size,
                    error_callback=failed):
                left = api.reimage_volume(context, root.volume_id, image_id,
                                          reimage_reserved=True)
                if left['status'] != 'downloading':
                    # Done already: no event to come.
                    self.waits.pop(instance.uuid, event)
        except event_waits.EventWaitTimeout:
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid,
                reason='volume %s was not reimaged within %d seconds'
                       % (root.volume_id, CONF.reimage_timeout_per_gb * size))
        LOG.info('Root volume %s of %s reimaged with %s', root.volume_id,
                 instance.uuid, image_id)
        return root

    def reconnect(self, context, instance, root):
        self.volumes.reconnect(context, instance, root)
