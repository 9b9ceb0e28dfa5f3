"""Interface attachments as the Compute API shows them: a port of the
server, its tag from 2.70."""
from nova_lite.api.openstack import api_version as av


def _one(port, tag, version):
    body = {'net_id': port['network_id'], 'port_id': port['id'],
            'mac_addr': port['mac_address'], 'port_state': port['status'],
            'fixed_ips': port['fixed_ips']}
    if version >= av.VOLUME_ATTACHMENT_TAG_SHOWN:
        body['tag'] = tag
    return body


def index(interfaces, version):
    return {'interfaceAttachments': [_one(p, t, version)
                                     for p, t in interfaces]}


def show(port, tag, version):
    return {'interfaceAttachment': _one(port, tag, version)}
