"""`openstack server migration list` and openstacksdk's migrations()
against a real nova-lite-all-in-one process with two cells (two
computes each), on migration records written into both cells' databases
(the resize flow's own records are its tests' business); then a live
migration with `openstack server migrate --live-migration --host`,
`server migration list/show/force complete/abort` and openstacksdk's
live_migrate_server (the copy slowed to 20 simulated seconds so that
force-complete and abort find it running)."""
import datetime
import json
import os
import time
import urllib.request

from oslo_utils import uuidutils
import pytest
import sqlalchemy as sa

from nova_lite import allinone
from nova_lite.db.main import models
from tests import clients

T0 = datetime.datetime(2026, 1, 1)


def _seed(state_dir, cell, minutes, **values):
    """A migration row in the all-in-one's cell database; its uuid."""
    created = T0 + datetime.timedelta(minutes=minutes)
    row = dict(uuid=uuidutils.generate_uuid(),
               instance_uuid=uuidutils.generate_uuid(),
               source_compute='%s-compute1' % cell,
               dest_compute='%s-compute2' % cell, status='finished',
               migration_type='resize', old_instance_type_id=1,
               new_instance_type_id=2, hidden=False, cross_cell_move=False,
               user_id='admin', project_id='admin', created_at=created,
               updated_at=created, deleted=0)
    row.update(values)
    engine = sa.create_engine(allinone.sqlite_url(state_dir, cell))
    try:
        with engine.begin() as conn:
            conn.execute(models.Migration.__table__.insert().values(**row))
    finally:
        engine.dispose()
    return row['uuid']


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    state_dir = str(tmp_path_factory.mktemp('aio-migrations'))
    conf = os.path.join(state_dir, 'live.conf')
    with open(conf, 'w') as f:
        f.write('[fake_driver]\nlive_migration_seconds = 20\n')
    with clients.all_in_one(state_dir, '--cells', '2', '--computes-per-cell',
                            '2', '--config-file', conf) as (endpoint,
                                                            _proc):
        newest_first = [
            _seed(state_dir, 'cell2', 3, status='confirmed',
                  migration_type='migration'),
            _seed(state_dir, 'cell1', 2),
            _seed(state_dir, 'cell2', 1, status='error')]
        _seed(state_dir, 'cell1', 4, hidden=True)
        yield endpoint, clients.openstack_env(endpoint), newest_first


def test_openstack_server_migration_list(cloud):
    _endpoint, env, newest_first = cloud
    listed = clients.openstack_json(
        env, '--os-compute-api-version', '2.80', 'server', 'migration',
        'list')
    assert [m['UUID'] for m in listed] == newest_first
    assert [m['Type'] for m in listed] == ['migration', 'resize', 'resize']
    assert listed[1]['Source Compute'] == 'cell1-compute1'
    # The client's default microversion: no uuid, the filter still.
    finished = clients.openstack_json(env, 'server', 'migration', 'list',
                                      '--status', 'finished')
    assert [m['Source Compute'] for m in finished] == ['cell1-compute1']


def test_sdk_pages_through_every_cell(cloud):
    endpoint, _env, newest_first = cloud
    conn = clients.sdk_admin(endpoint, '2.80')
    # A page of one at a time, following migrations_links.
    assert [m.uuid for m in conn.compute.migrations(limit=1)] == \
        newest_first


def _http(endpoint, method, path, body=None):
    req = urllib.request.Request(
        endpoint + '/v2.1' + path, method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={'X-Auth-Token': 'admin:admin',
                 'OpenStack-API-Version': 'compute 2.80',
                 'Content-Type': 'application/json'})
    with urllib.request.urlopen(req, timeout=30) as resp:
        raw = resp.read()
        return json.loads(raw) if raw else None


def _wait(what, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        found = what()
        if found:
            return found
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def _running(endpoint, uuid):
    """The server's running live migration (its first progress
    reported)."""
    def running():
        found = _http(endpoint, 'GET',
                      '/servers/%s/migrations' % uuid)['migrations']
        return found and found[0]['status'] == 'running' and found[0]
    return _wait(running)


def _settled(endpoint, uuid):
    def settled():
        server = _http(endpoint, 'GET', '/servers/%s' % uuid)['server']
        return (server['status'] == 'ACTIVE'
                and server['OS-EXT-STS:task_state'] is None and server)
    return _wait(settled)


def test_live_migration_with_the_clients(cloud):
    """(Last in this module: its records are the newest.)"""
    endpoint, env, _newest_first = cloud
    uuid = _http(endpoint, 'POST', '/servers', {'server': {
        'name': 'live', 'flavorRef': '1', 'networks': 'none',
        'imageRef': '155d900f-4e14-4e4c-a73d-069cbf4541e6'}})['server']['id']
    source = _settled(endpoint, uuid)['OS-EXT-SRV-ATTR:host']
    dest = source[:-1] + ('2' if source.endswith('1') else '1')
    # To a named host, then forced to complete.
    clients.openstack(env, '--os-compute-api-version', '2.30', 'server',
                      'migrate', '--live-migration', '--host', dest, uuid)
    running = _running(endpoint, uuid)
    listed = clients.openstack_json(
        env, '--os-compute-api-version', '2.80', 'server', 'migration',
        'list', '--server', uuid)
    assert [(m['Id'], m['Type'], m['Status']) for m in listed] == [
        (running['id'], 'live-migration', 'running')]
    # By uuid: this client's show by id passes the server and migration
    # to openstacksdk in the wrong order (a 404 against any cloud).
    shown = clients.openstack_json(
        env, '--os-compute-api-version', '2.80', 'server', 'migration',
        'show', uuid, running['uuid'])
    assert shown['Dest Compute'] == dest
    assert shown['Memory Total Bytes'] == 512 * 1024 * 1024
    clients.openstack(env, '--os-compute-api-version', '2.22', 'server',
                      'migration', 'force', 'complete', uuid,
                      str(running['id']))
    assert _settled(endpoint, uuid)['OS-EXT-SRV-ATTR:host'] == dest
    # Back where the scheduler picks (openstacksdk), then aborted.
    conn = clients.sdk_admin(endpoint, '2.80')
    conn.compute.live_migrate_server(uuid, block_migration='auto')
    running = _running(endpoint, uuid)
    clients.openstack(env, '--os-compute-api-version', '2.24', 'server',
                      'migration', 'abort', uuid, str(running['id']))
    assert _settled(endpoint, uuid)['OS-EXT-SRV-ATTR:host'] == dest
    statuses = [m['status'] for m in _http(
        endpoint, 'GET', '/os-migrations?instance_uuid=%s' % uuid)[
            'migrations']]
    assert statuses == ['cancelled', 'completed']
