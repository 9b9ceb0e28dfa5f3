"""Bodies of /servers/{id}/os-volume_attachments, per microversion."""
from nova_lite.api.openstack import api_version as av


def attachment(bdm, server_id, version, created=False):
    """One attachment; from 2.89 list and show name the Cinder attachment
    and the mapping (attachment_id, bdm_uuid) instead of id, while the
    attach answer keeps id (as the Compute API reference has it)."""
    body = {'volumeId': bdm.volume_id, 'serverId': server_id}
    if created or version < av.VOLUME_ATTACHMENT_IDS:
        body['id'] = bdm.volume_id
    if bdm.device_name:
        body['device'] = bdm.device_name
    if version >= av.VOLUME_ATTACHMENT_TAG_SHOWN:
        body['tag'] = bdm.tag
    if version >= av.VOLUME_ATTACHMENT_DELETE_ON_TERMINATION:
        body['delete_on_termination'] = bool(bdm.delete_on_termination)
    if not created and version >= av.VOLUME_ATTACHMENT_IDS:
        body['attachment_id'] = bdm.attachment_id
        body['bdm_uuid'] = bdm.uuid
    return body


def index(bdms, server_id, version):
    return {'volumeAttachments': [attachment(b, server_id, version)
                                  for b in bdms]}


def show(bdm, server_id, version):
    return {'volumeAttachment': attachment(bdm, server_id, version)}


def created(bdm, server_id, version):
    return {'volumeAttachment': attachment(bdm, server_id, version,
                                           created=True)}
