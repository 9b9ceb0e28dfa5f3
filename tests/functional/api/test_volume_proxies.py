"""The volume proxies below 2.36: os-volumes and os-snapshots, as Nova
34 answers them from Cinder, on the embedded volume service."""
import pytest

from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import api  # noqa: F401
from tests.functional.api.test_servers_boot import OTHER
from tests.functional.conftest import wait_for

VOLUME_FIELDS = {'id', 'status', 'size', 'availabilityZone', 'createdAt',
                 'attachments', 'displayName', 'displayDescription',
                 'volumeType', 'snapshotId', 'metadata'}
SNAPSHOT_FIELDS = {'id', 'volumeId', 'status', 'size', 'createdAt',
                   'displayName', 'displayDescription'}


def _create(api, version='2.1', **extra):  # noqa: F811
    body = {'volume': dict({'size': 1, 'display_name': 'v1',
                            'display_description': 'd1',
                            'metadata': {'Type': 'work'}}, **extra)}
    resp = api('POST', '/os-volumes', body, version=version)
    assert resp.status_code == 200, resp.text
    return resp


@pytest.mark.parametrize('version', ['2.1', '2.35'])
def test_volume_create_show_list_delete(api, version):  # noqa: F811
    resp = _create(api, version)
    volume = resp.json()['volume']
    assert set(volume) == VOLUME_FIELDS
    assert resp.headers['Location'].endswith('/os-volumes/%s'
                                             % volume['id'])
    assert volume['displayName'] == 'v1'
    assert volume['displayDescription'] == 'd1'
    assert volume['metadata'] == {'Type': 'work'}
    assert volume['attachments'] == [{}]
    assert volume['status'] == 'available' and volume['size'] == 1
    assert volume['snapshotId'] is None
    assert volume['availabilityZone'] == 'nova'
    shown = api('GET', '/os-volumes/%s' % volume['id'],
                version=version).json()['volume']
    assert shown == volume
    for path in ('/os-volumes', '/os-volumes/detail'):
        listed = api('GET', path, version=version).json()['volumes']
        assert volume in listed
    # Another project does not see it.
    assert api('GET', '/os-volumes/%s' % volume['id'],
               token=OTHER).status_code == 404
    assert volume['id'] not in [v['id'] for v in api(
        'GET', '/os-volumes', token=OTHER).json()['volumes']]
    resp = api('DELETE', '/os-volumes/%s' % volume['id'], version=version)
    assert resp.status_code == 202, resp.text
    missing = api('GET', '/os-volumes/%s' % volume['id'])
    assert missing.status_code == 404
    assert 'itemNotFound' in missing.json()
    assert api('DELETE', '/os-volumes/%s' % volume['id']).status_code == 404


def test_volume_list_limit_and_offset(api):  # noqa: F811
    ids = [_create(api).json()['volume']['id'] for _ in range(3)]
    listed = [v['id'] for v in api('GET', '/os-volumes').json()['volumes']]
    assert set(ids) <= set(listed)
    page = api('GET', '/os-volumes?limit=1&offset=1').json()['volumes']
    assert [v['id'] for v in page] == listed[1:2]
    assert api('GET', '/os-volumes?limit=-1').status_code == 400


@pytest.mark.parametrize('body, field', [
    ({'volume': {}}, 'size'),
    ({'volume': {'size': 'x'}}, 'size'),
    ({'volume': {'size': 1, 'bogus': 1}}, 'bogus'),
    ({'nope': {}}, 'volume'),
])
def test_volume_create_bad_bodies(api, body, field):  # noqa: F811
    resp = api('POST', '/os-volumes', body)
    assert resp.status_code == 400, resp.text
    assert field in resp.json()['badRequest']['message']


def test_volume_create_errors(api):  # noqa: F811
    assert api('POST', '/os-volumes', {'volume': {'size': 0}}) \
        .status_code == 400
    assert api('POST', '/os-volumes', {'volume': {
        'size': 1, 'snapshot_id': 'nope'}}).status_code == 404


def test_attached_volume_shows_its_server(api):  # noqa: F811
    uuid = api('POST', '/servers', _server(),
               version='2.37').json()['server']['id']
    _wait_status(api, uuid, 'ACTIVE')
    volume = _create(api).json()['volume']
    resp = api('POST', '/servers/%s/os-volume_attachments' % uuid,
               {'volumeAttachment': {'volumeId': volume['id']}})
    assert resp.status_code == 200, resp.text
    device = resp.json()['volumeAttachment']['device']

    def attached():
        body = api('GET', '/os-volumes/%s' % volume['id']).json()
        return body['volume'] if body['volume']['status'] == 'in-use' \
            else None
    shown = wait_for(attached, timeout=30, message='in-use')
    assert shown['attachments'] == [{'id': volume['id'],
                                     'volumeId': volume['id'],
                                     'serverId': uuid, 'device': device}]
    # In use: Cinder refuses the delete (400).
    assert api('DELETE', '/os-volumes/%s' % volume['id']).status_code == 400


def test_snapshot_create_show_list_delete(api):  # noqa: F811
    volume = _create(api).json()['volume']
    resp = api('POST', '/os-snapshots', {'snapshot': {
        'volume_id': volume['id'], 'display_name': 's1',
        'display_description': 'sd', 'force': 'false'}}, version='2.35')
    assert resp.status_code == 200, resp.text
    snap = resp.json()['snapshot']
    assert set(snap) == SNAPSHOT_FIELDS
    assert snap['volumeId'] == volume['id'] and snap['size'] == 1
    assert snap['displayName'] == 's1' and snap['status'] == 'available'
    assert api('GET', '/os-snapshots/%s' % snap['id']).json() == {
        'snapshot': snap}
    for path in ('/os-snapshots', '/os-snapshots/detail'):
        assert snap in api('GET', path).json()['snapshots']
    assert api('GET', '/os-snapshots/%s' % snap['id'],
               token=OTHER).status_code == 404
    # A volume with snapshots is not deleted; one made from it is.
    assert api('DELETE', '/os-volumes/%s' % volume['id']).status_code == 400
    copy = _create(api, snapshot_id=snap['id']).json()['volume']
    assert copy['snapshotId'] == snap['id']
    assert api('DELETE', '/os-volumes/%s' % copy['id']).status_code == 202
    assert api('DELETE', '/os-snapshots/%s' % snap['id']).status_code == 202
    assert api('GET', '/os-snapshots/%s' % snap['id']).status_code == 404
    assert api('DELETE', '/os-snapshots/%s' % snap['id']).status_code == 404
    assert api('DELETE', '/os-volumes/%s' % volume['id']).status_code == 202


def test_snapshot_create_errors(api):  # noqa: F811
    missing = api('POST', '/os-snapshots', {'snapshot': {
        'volume_id': 'nope'}})
    assert missing.status_code == 404, missing.text
    bad = api('POST', '/os-snapshots', {'snapshot': {
        'volume_id': 'x', 'force': 'maybe'}})
    assert bad.status_code == 400 and 'force' in bad.text
    assert api('POST', '/os-snapshots', {'snapshot': {}}).status_code == 400


@pytest.mark.parametrize('path', ['/os-volumes', '/os-volumes/detail',
                                  '/os-volumes/x', '/os-snapshots',
                                  '/os-snapshots/detail', '/os-snapshots/x'])
def test_gone_from_2_36(api, path):  # noqa: F811
    for version in ('2.36', 'latest'):
        resp = api('GET', path, token=ADMIN, version=version)
        assert resp.status_code == 404, (path, version, resp.text)
    assert api('POST', '/os-volumes', {'volume': {'size': 1}},
               version='2.36').status_code == 404
