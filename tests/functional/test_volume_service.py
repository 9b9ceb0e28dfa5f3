"""The embedded volume service (nova_lite/volume/api.py) on its
local-services database: the Cinder-like status flow of a volume and
its attachments, one attachment per volume however calls race, and
visibility per project."""
import eventlet
import pytest

from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite.volume import api as volume_api

INSTANCE = '3f1c2d7e-0a4b-4c5d-8e9f-0123456789ab'
OTHER_INSTANCE = '4a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d'


@pytest.fixture
def env(cells_env):
    api = volume_api.API()
    ctxt = nova_context.RequestContext('bob', 'project-a')
    return api, ctxt


def test_attachment_flow_moves_the_volume_through_cinders_statuses(env):
    api, ctxt = env
    volume = api.create(ctxt, 2, 'v')
    assert (volume['status'], volume['size'], volume['bootable']) == (
        'available', 2, False)
    attachment = api.attachment_create(ctxt, volume['id'], INSTANCE)
    assert attachment['connection_info'] is None
    assert api.get(ctxt, volume['id'])['status'] == 'reserved'
    connected = api.attachment_update(ctxt, attachment['id'],
                                      {'host': 'h1'}, '/dev/vdb')
    assert connected['connection_info']['data']['host'] == 'h1'
    assert api.get(ctxt, volume['id'])['status'] == 'attaching'
    api.attachment_complete(ctxt, attachment['id'])
    shown = api.get(ctxt, volume['id'])
    assert shown['status'] == 'in-use'
    assert shown['attachments'][0]['server_id'] == INSTANCE
    assert shown['attachments'][0]['device'] == '/dev/vdb'
    # Attached: neither deleted nor attached again.
    with pytest.raises(exception.InvalidVolume):
        api.delete(ctxt, volume['id'])
    with pytest.raises(exception.InvalidVolume):
        api.attachment_create(ctxt, volume['id'], OTHER_INSTANCE)
    api.begin_detaching(ctxt, volume['id'])
    with pytest.raises(exception.InvalidVolume):
        api.begin_detaching(ctxt, volume['id'])
    api.roll_detaching(ctxt, volume['id'])
    api.begin_detaching(ctxt, volume['id'])
    api.attachment_delete(ctxt, attachment['id'])
    assert api.get(ctxt, volume['id'])['status'] == 'available'
    with pytest.raises(exception.VolumeAttachmentNotFound):
        api.attachment_delete(ctxt, attachment['id'])
    api.delete(ctxt, volume['id'])
    with pytest.raises(exception.VolumeNotFound):
        api.get(ctxt, volume['id'])


def test_racing_attachment_creates_give_one_attachment(env):
    api, ctxt = env
    volume = api.create(ctxt, 1, 'v')
    outcomes = []

    def attach(instance):
        try:
            outcomes.append(api.attachment_create(ctxt, volume['id'],
                                                  instance)['id'])
        except exception.InvalidVolume:
            outcomes.append('refused')

    pool = eventlet.GreenPool()
    for i in range(8):
        pool.spawn(attach, '%s%d' % (INSTANCE[:-1], i))
    pool.waitall()
    assert outcomes.count('refused') == 7
    assert len(api.get(ctxt, volume['id'])['attachments']) == 1


def test_volumes_are_seen_by_their_project_and_admins(env):
    api, ctxt = env
    volume = api.create(ctxt, 1, 'mine', image_id='155d900f-4e14-4e4c-'
                                                   'a73d-069cbf4541e6')
    assert volume['bootable'] is True
    assert volume['volume_image_metadata']['image_id'].startswith('155d')
    other = nova_context.RequestContext('eve', 'project-b')
    with pytest.raises(exception.VolumeNotFound):
        api.get(other, volume['id'])
    assert api.get_all(other) == []
    admin = nova_context.get_admin_context()
    assert [v['id'] for v in api.get_all(admin)] == [volume['id']]
    assert [v['name'] for v in api.get_all(ctxt, {'name': 'mine'})] == [
        'mine']
    with pytest.raises(exception.InvalidInput):
        api.create(ctxt, 0, 'empty')


def test_a_moving_instance_gets_a_second_attachment(env):
    """Cross-cell moves connect the destination before the source lets
    go: the same instance may attach an in-use volume again."""
    api, ctxt = env
    volume = api.create(ctxt, 1, 'v')
    source = api.attachment_create(ctxt, volume['id'], INSTANCE,
                                   connector={'host': 'src'})
    api.attachment_complete(ctxt, source['id'])
    dest = api.attachment_create(ctxt, volume['id'], INSTANCE,
                                 connector={'host': 'dest'})
    assert dest['connection_info']['data']['host'] == 'dest'
    api.attachment_complete(ctxt, dest['id'])
    assert api.get(ctxt, volume['id'])['status'] == 'in-use'
    api.attachment_delete(ctxt, source['id'])
    shown = api.get(ctxt, volume['id'])
    assert shown['status'] == 'in-use'
    assert [a['host_name'] for a in shown['attachments']] == ['dest']
    with pytest.raises(exception.InvalidVolume):
        api.attachment_create(ctxt, volume['id'], OTHER_INSTANCE)
    api.attachment_delete(ctxt, dest['id'])
    assert api.get(ctxt, volume['id'])['status'] == 'available'
