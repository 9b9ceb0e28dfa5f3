"""/servers/{id}/shares (2.97) through the REST API on a running plane,
with a share made through the embedded shares service's Manila-shaped
API (/share/v2): absent below 2.97, attach only to a stopped server,
the share in the server's list and show (uuid and export_location for
administrators), the access rule granted and revoked, instance actions
and notifications, detach, and the grants gone with a deleted
server."""
import requests

from nova_lite import context as nova_context
from nova_lite.db.main import api as main_db
from tests.functional.api.cross_cell_helpers import xplane  # noqa: F401
from tests.functional.api.test_server_actions import act
from tests.functional.api.test_server_actions import boot
from tests.functional.api.test_server_actions import client_with_flavor
from tests.functional.api.test_server_actions import refused
from tests.functional.api.test_server_actions import settled
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.api.test_servers_boot import OTHER
from tests.functional.api.test_spice_direct_console import \
    set_compute_version
from tests.functional.conftest import wait_for
from tests.functional.db import inventory_helpers as h

V = '2.97'
PROJECT_ADMIN = 'admin:project-a'
READER_ROLE = {'X-Roles': 'reader'}
MISSING = '8a6d3d1e-4b8e-4e0e-9d7f-1c2b3a4d5e6f'


class Shares(object):
    """The embedded Shared File Systems API (/share/v2) as a client uses
    it."""

    def __init__(self, endpoint):
        self.base = endpoint + '/share/v2'

    def __call__(self, method, path, body=None, token=MEMBER):
        return requests.request(method, self.base + path, json=body,
                                headers={'X-Auth-Token': token}, timeout=30)

    def create(self, proto='NFS', size=1, token=MEMBER):
        response = self('POST', '/shares', {'share': {
            'share_proto': proto, 'size': size, 'name': 'docs'}},
            token=token)
        assert response.status_code == 200, response.text
        share = response.json()['share']
        assert share['status'] == 'available'
        return share

    def rules(self, share_id):
        response = self('GET', '/share-access-rules?share_id=%s' % share_id)
        assert response.status_code == 200, response.text
        return response.json()['access_list']


def _stopped_server(api):
    uuid = boot(api)
    assert act(api, uuid, {'os-stop': None}).status_code == 202
    settled(api, uuid, 'SHUTOFF')
    return uuid


def _attach(api, uuid, body, token=MEMBER, version=V):
    return api('POST', '/servers/%s/shares' % uuid, body, version=version,
               token=token)


def test_shares_service_creates_lists_and_deletes_shares(plane):
    shares = Shares(plane.endpoint)
    share = shares.create(proto='cephfs')
    assert share['share_proto'] == 'CEPHFS'
    assert share['export_locations'] == [share['export_location']]
    listed = shares('GET', '/shares/detail').json()['shares']
    assert [s['id'] for s in listed] == [share['id']]
    assert shares('GET', '/shares', token=OTHER).json()['shares'] == []
    assert shares('GET', '/shares/%s' % share['id'],
                  token=OTHER).status_code == 404
    bad = shares('POST', '/shares', {'share': {'size': 1}})
    assert bad.status_code == 400 and 'share_proto' in bad.text
    assert shares('POST', '/shares', {'share': {
        'share_proto': 'XFS', 'size': 1}}).status_code == 400
    assert shares('DELETE', '/shares/%s' % share['id']).status_code == 202
    assert shares('GET', '/shares/%s' % share['id']).status_code == 404


def test_attach_list_show_and_detach_a_share(plane, notifications):
    api = client_with_flavor(plane)
    shares = Shares(plane.endpoint)
    share = shares.create()
    uuid = boot(api)
    body = {'share': {'share_id': share['id']}}
    # Absent below 2.97.
    assert _attach(api, uuid, body, version='2.96').status_code == 404
    assert api('GET', '/servers/%s/shares' % uuid,
               version='2.96').status_code == 404
    # Only a stopped server takes a share.
    refused(_attach(api, uuid, body), 'vm_state active')
    assert act(api, uuid, {'os-stop': None}).status_code == 202
    settled(api, uuid, 'SHUTOFF')
    missing = _attach(api, uuid, {'share': {'share_id': MISSING}})
    assert missing.status_code == 404, missing.text
    # A server mounts NFS and CephFS shares only.
    cifs = shares.create(proto='CIFS')
    wrong = _attach(api, uuid, {'share': {'share_id': cifs['id']}})
    assert wrong.status_code == 409, wrong.text
    assert 'CIFS' in wrong.text
    assert shares('DELETE', '/shares/%s' % cifs['id']).status_code == 202

    created = _attach(api, uuid, body)
    assert created.status_code == 201, created.text
    assert created.json() == {'share': {
        'share_id': share['id'], 'status': 'inactive', 'tag': share['id']}}
    listed = api('GET', '/servers/%s/shares' % uuid, version=V).json()
    assert listed == {'shares': [created.json()['share']]}
    # Administrators also see the mapping's uuid and the export.
    shown = api('GET', '/servers/%s/shares/%s' % (uuid, share['id']),
                version=V, token=PROJECT_ADMIN).json()['share']
    assert set(shown) == {'share_id', 'status', 'tag', 'uuid',
                          'export_location'}
    assert shown['export_location'] == share['export_location']
    # The server was granted access to the share.
    rule, = shares.rules(share['id'])
    assert (rule['access_type'], rule['access_to'], rule['state'],
            rule['access_level']) == ('user', uuid, 'active', 'rw')
    # Used by a server: the share cannot be deleted.
    assert shares('DELETE', '/shares/%s' % share['id']).status_code == 400
    # The same share (or tag) twice is a conflict.
    assert _attach(api, uuid, body).status_code == 409
    other = shares.create()
    assert _attach(api, uuid, {'share': {
        'share_id': other['id'], 'tag': share['id']}}).status_code == 409
    tagged = _attach(api, uuid, {'share': {'share_id': other['id'],
                                           'tag': 'data'}})
    assert tagged.status_code == 201 and \
        tagged.json()['share']['tag'] == 'data'

    # Running, the guest has them mounted; detach needs it stopped.
    assert act(api, uuid, {'os-start': None}).status_code == 202
    settled(api, uuid, 'ACTIVE')
    statuses = [s['status'] for s in api(
        'GET', '/servers/%s/shares' % uuid, version=V).json()['shares']]
    assert statuses == ['active', 'active']
    refused(api('DELETE', '/servers/%s/shares/%s' % (uuid, share['id']),
                version=V), 'vm_state active')
    assert act(api, uuid, {'os-stop': None}).status_code == 202
    settled(api, uuid, 'SHUTOFF')

    detached = api('DELETE', '/servers/%s/shares/%s' % (uuid, share['id']),
                   version=V)
    assert detached.status_code == 200, detached.text
    assert detached.text == ''
    assert shares.rules(share['id']) == []
    assert api('GET', '/servers/%s/shares/%s' % (uuid, share['id']),
               version=V).status_code == 404
    assert api('DELETE', '/servers/%s/shares/%s' % (uuid, share['id']),
               version=V).status_code == 404
    assert shares('DELETE', '/shares/%s' % share['id']).status_code == 202

    actions = [a['action'] for a in api(
        'GET', '/servers/%s/os-instance-actions' % uuid).json()[
        'instanceActions']]
    assert actions.count('share_attach') == 2
    assert actions.count('share_detach') == 1
    for event in ('instance.share_attach.start', 'instance.share_attach.end',
                  'instance.share_detach.start', 'instance.share_detach.end'):
        assert notifications.about(uuid, event), event

    # Deleting the server revokes what it was granted.
    assert api('DELETE', '/servers/%s' % uuid).status_code == 204
    wait_for(lambda: shares.rules(other['id']) == [], timeout=30,
             message='grants of a deleted server revoked')
    assert shares('DELETE', '/shares/%s' % other['id']).status_code == 202


def test_shares_are_the_server_projects_own(plane):
    api = client_with_flavor(plane)
    shares = Shares(plane.endpoint)
    uuid = _stopped_server(api)
    theirs = Shares(plane.endpoint).create(token=OTHER)
    # Another project's share does not exist for this server's owner.
    assert _attach(api, uuid, {'share': {
        'share_id': theirs['id']}}).status_code == 404
    share = shares.create()
    # Another project's server does not exist either.
    assert _attach(api, uuid, {'share': {'share_id': share['id']}},
                   token=OTHER).status_code == 404
    # A member's view has no administrator fields.
    created = _attach(api, uuid, {'share': {'share_id': share['id']}})
    assert set(created.json()['share']) == {'share_id', 'status', 'tag'}


def test_bad_share_bodies_are_400(plane):
    api = client_with_flavor(plane)
    uuid = _stopped_server(api)
    for body, field in (
            ({}, 'share'),
            ({'share': {}}, 'share_id'),
            ({'share': {'share_id': 'nope'}}, 'share_id'),
            ({'share': {'share_id': MISSING, 'tag': ''}}, 'tag'),
            ({'share': {'share_id': MISSING, 'tag': 'a b'}}, 'tag'),
            ({'share': {'share_id': MISSING, 'extra': 1}}, 'extra')):
        response = _attach(api, uuid, body)
        assert response.status_code == 400, (body, response.text)
        assert field in response.text, (body, response.text)
    assert api('GET', '/servers/%s/shares?foo=1' % uuid,
               version=V).status_code == 400


def test_a_share_list_reads_in_statements_independent_of_its_size(plane):
    api = client_with_flavor(plane)
    shares = Shares(plane.endpoint)
    uuid = _stopped_server(api)
    counts = []
    for count in (1, 3):
        while len(api('GET', '/servers/%s/shares' % uuid,
                      version=V).json()['shares']) < count:
            share = shares.create()
            assert _attach(api, uuid, {'share': {
                'share_id': share['id']}}).status_code == 201
        engines = {}
        for name, cell in plane.cells.items():
            with nova_context.target_cell(nova_context.get_admin_context(),
                                          cell) as cctxt:
                engines[name] = main_db.get_engines(cctxt)
        counter = h.StatementCounter(**engines)
        with counter.counting():
            listed = api('GET', '/servers/%s/shares' % uuid,
                         version=V).json()['shares']
        assert len(listed) == count
        counts.append(sum(counter.counts.values()))
    # The same statements for one share as for three.
    assert counts[0] == counts[1], counts


def test_a_cross_cell_resize_keeps_the_shares(xplane):  # noqa: F811
    shares = Shares(xplane.plane.endpoint)
    share = shares.create()
    uuid = xplane.boot('cell1')
    xplane.act(uuid, {'os-stop': None})
    xplane.settle(uuid, 'stopped')
    attached = _attach(xplane.api, uuid, {'share': {
        'share_id': share['id'], 'tag': 'docs'}})
    assert attached.status_code == 201, attached.text
    xplane.resize_into(uuid, 'cell2')
    assert xplane.mapped_cell(uuid) == 'cell2'
    xplane.act(uuid, {'confirmResize': None}, status=204)
    xplane.wait_status(uuid, 'SHUTOFF')
    assert xplane.copies(uuid) == {'cell2': False}
    listed = xplane.api('GET', '/servers/%s/shares' % uuid,
                        version=V).json()['shares']
    assert listed == [{'share_id': share['id'], 'status': 'inactive',
                       'tag': 'docs'}]
    assert [r['access_to'] for r in shares.rules(share['id'])] == [uuid]


def test_a_compute_too_old_to_revoke_grants_gets_no_share(
        xplane):  # noqa: F811
    """A compute before service version 22 would leave a deleted
    server's grants behind: its servers get no share (409)."""
    share = Shares(xplane.plane.endpoint).create()
    uuid = xplane.boot('cell2')
    xplane.act(uuid, {'os-stop': None})
    xplane.settle(uuid, 'stopped')
    host = xplane.host(uuid)
    previous = set_compute_version(xplane, host, 21)
    try:
        response = _attach(xplane.api, uuid, {'share': {
            'share_id': share['id']}})
        assert response.status_code == 409, response.text
        assert xplane.api('GET', '/servers/%s/shares' % uuid,
                          version=V).json() == {'shares': []}
    finally:
        set_compute_version(xplane, host, previous)
    response = _attach(xplane.api, uuid, {'share': {'share_id': share['id']}})
    assert response.status_code == 201, response.text
