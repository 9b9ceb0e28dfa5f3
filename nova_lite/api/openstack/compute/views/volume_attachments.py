"""Bodies of /servers/{id}/os-volume_attachments, per microversion."""
from nova_lite.api.openstack import api_version as av


def attachment(bdm, server_id, version):
    body = {'id': bdm.volume_id, 'volumeId': bdm.volume_id,
            'serverId': server_id}
    if bdm.device_name:
        body['device'] = bdm.device_name
    if version >= av.VOLUME_ATTACHMENT_TAG_SHOWN:
        body['tag'] = bdm.tag
    if version >= av.VOLUME_ATTACHMENT_DELETE_ON_TERMINATION:
        body['delete_on_termination'] = bool(bdm.delete_on_termination)
    return body


def index(bdms, server_id, version):
    return {'volumeAttachments': [attachment(b, server_id, version)
                                  for b in bdms]}


def show(bdm, server_id, version):
    return {'volumeAttachment': attachment(bdm, server_id, version)}
