"""No orphan guest, no delete stuck, on a running plane (two cells).

Servers are booted and deleted through the REST API. The faults are
the ones a broker or compute outage leaves, written straight into the
cell database as test data: a server row deleted behind its compute's
back (its guest keeps running), a delete whose message was lost (the
server stays in task_state deleting). Then the consistency checker
(`nova-lite-manage placement check_guests`) reports the orphan, the
compute's periodic task reaps it (as [DEFAULT]
running_deleted_instance_action says) and frees its allocations, and a
stuck delete completes."""
import datetime
import json
import time
import urllib.error
import urllib.request

from oslo_utils import timeutils
import pytest

from nova_lite.cmd import manage
from nova_lite.compute import guest_audit
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models as main_models
from nova_lite import objects
from nova_lite.placement import allocations
from tests.functional.conftest import start_plane
from tests.functional.conftest import stop_plane
from tests.functional.conftest import wait_for

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
ADMIN = {'X-Auth-Token': 'admin:admin', 'Content-Type': 'application/json',
         'OpenStack-API-Version': 'compute 2.53'}
INSTANCES = main_models.Instance.__table__


def call(plane, method, path, body=None):
    req = urllib.request.Request(
        plane.endpoint + '/v2.1' + path, method=method, headers=ADMIN,
        data=None if body is None else json.dumps(body).encode())
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            raw = resp.read()
            return resp.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b'null')


def _start(tmp_path, conf, **overrides):
    for name, value in overrides.items():
        conf.set_override(name, value)
    plane = start_plane(tmp_path / 'state')
    status, body = call(plane, 'POST', '/flavors', {'flavor': {
        'name': 'o', 'id': 'o', 'ram': 256, 'vcpus': 1, 'disk': 1}})
    assert status == 200, body
    return plane


@pytest.fixture
def started():
    planes = []
    yield planes
    for plane in planes:
        stop_plane(plane)


def _boot(plane, name):
    status, body = call(plane, 'POST', '/servers', {'server': {
        'name': name, 'flavorRef': 'o', 'imageRef': IMAGE,
        'networks': 'none'}})
    assert status == 202, body
    uuid = body['server']['id']

    def active():
        server = call(plane, 'GET', '/servers/%s' % uuid)[1]['server']
        assert server['status'] != 'ERROR', server
        return server if server['status'] == 'ACTIVE' else None
    return wait_for(active, timeout=30, message='%s ACTIVE' % name)


def _driver(plane, host):
    svc = next(s for s in plane.services
               if s.host == host and s.binary == 'nova-compute')
    return svc.endpoints[0].driver


def _write_instance(uuid, **values):
    """Change the server's row in its cell (test data: the fault)."""
    ctxt = nova_context.get_admin_context()
    mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt, uuid)
    with nova_context.target_cell(ctxt, mapping.cell_mapping) as cctxt:
        @main_db.writer
        def go(c):
            c.session.execute(INSTANCES.update().where(
                INSTANCES.c.uuid == uuid).values(**values))
        go(cctxt)


def _gone(plane, uuid):
    wait_for(lambda: call(plane, 'GET', '/servers/%s' % uuid)[0] == 404,
             timeout=15, message='%s gone' % uuid)


def test_orphan_is_reported_then_reaped(tmp_path, conf, started, capsys):
    plane = _start(tmp_path, conf, periodic_interval=1,
                   running_deleted_instance_poll_interval=1,
                   running_deleted_instance_action='log')
    started.append(plane)
    kept = _boot(plane, 'kept')
    lost = _boot(plane, 'lost')
    host = lost['OS-EXT-SRV-ATTR:host']
    ctxt = nova_context.get_admin_context()
    assert guest_audit.check(ctxt).ok
    # The row goes behind the compute's back; guest and allocation stay.
    _write_instance(lost['id'], deleted=INSTANCES.c.id,
                    deleted_at=timeutils.utcnow())

    report = guest_audit.check(ctxt)
    [diff] = report.differences
    assert (diff.kind, diff.host, diff.guest, diff.server) == (
        'orphan', host, lost['id'], lost['id'])
    assert 'is deleted' in diff.detail
    assert report.checked['computes'] == 4
    # 'log' only reports it: several periodic runs later it still runs.
    time.sleep(2.5)
    assert lost['id'] in _driver(plane, host).list_guests()
    assert allocations.get_allocations(ctxt, lost['id'])

    conf.set_override('running_deleted_instance_action', 'reap')
    wait_for(lambda: lost['id'] not in _driver(plane, host).list_guests()
             and allocations.get_allocations(ctxt, lost['id']) == {},
             timeout=15, message='orphan reaped')
    assert kept['id'] in _driver(
        plane, kept['OS-EXT-SRV-ATTR:host']).list_guests()
    assert allocations.get_allocations(ctxt, kept['id'])
    assert guest_audit.check(ctxt).ok


def test_check_guests_command(tmp_path, conf, started, capsys):
    # The orphan is only logged, so the command (which re-reads the
    # configuration) sees it whatever the periodic task does.
    plane = _start(tmp_path, conf, running_deleted_instance_action='log')
    started.append(plane)
    lost = _boot(plane, 'lost')
    config = plane.state_dir + '/nova_lite.conf'
    _write_instance(lost['id'], deleted=INSTANCES.c.id,
                    deleted_at=timeutils.utcnow())
    capsys.readouterr()
    assert manage.main(['--config-file', config, 'placement',
                        'check_guests', '--verbose']) == 3
    out = capsys.readouterr().out
    assert 'Checked 1 guests on 4 computes in 2 cells' in out
    assert 'orphan' in out and lost['id'] in out
    assert manage.main(['--config-file', config, 'placement',
                        'check_guests', '--json']) == 3
    body = json.loads(capsys.readouterr().out)
    assert [d['server'] for d in body['differences']] == [lost['id']]


def test_local_delete_while_compute_down_is_reaped(tmp_path, conf,
                                                   started):
    """The API deletes locally while the compute is forced down; the
    compute (still running) reaps the guest it was never told about."""
    plane = _start(tmp_path, conf, periodic_interval=1,
                   running_deleted_instance_poll_interval=1)
    started.append(plane)
    server = _boot(plane, 'stranded')
    host = server['OS-EXT-SRV-ATTR:host']
    [service] = call(plane, 'GET', '/os-services?host=%s&binary='
                     'nova-compute' % host)[1]['services']
    assert call(plane, 'PUT', '/os-services/%s' % service['id'],
                {'forced_down': True})[0] == 200
    assert call(plane, 'DELETE', '/servers/%s' % server['id'])[0] == 204
    _gone(plane, server['id'])
    ctxt = nova_context.get_admin_context()
    assert allocations.get_allocations(ctxt, server['id']) == {}
    wait_for(lambda: server['id'] not in _driver(plane, host).list_guests(),
             timeout=15, message='guest reaped')


def _stuck_deleting(uuid):
    """A delete whose message was lost: deleting for an hour."""
    _write_instance(uuid, task_state='deleting',
                    updated_at=timeutils.utcnow()
                    - datetime.timedelta(hours=1))


def test_a_second_delete_of_a_stuck_server_completes(tmp_path, conf,
                                                      started):
    # No periodic run during the test: only the second DELETE helps.
    plane = _start(tmp_path, conf, periodic_interval=600)
    started.append(plane)
    server = _boot(plane, 'stuck')
    host = server['OS-EXT-SRV-ATTR:host']
    _stuck_deleting(server['id'])
    assert call(plane, 'DELETE', '/servers/%s' % server['id'])[0] == 204
    _gone(plane, server['id'])
    assert server['id'] not in _driver(plane, host).list_guests()
    ctxt = nova_context.get_admin_context()
    assert allocations.get_allocations(ctxt, server['id']) == {}
    # Deleting again is a 404, nothing else.
    assert call(plane, 'DELETE', '/servers/%s' % server['id'])[0] == 404


def test_a_recent_delete_is_not_sent_again(tmp_path, conf, started):
    plane = _start(tmp_path, conf, periodic_interval=600)
    started.append(plane)
    server = _boot(plane, 'fresh')
    _write_instance(server['id'], task_state='deleting',
                    updated_at=timeutils.utcnow())
    assert CONF.delete_retry_interval == 60
    assert call(plane, 'DELETE', '/servers/%s' % server['id'])[0] == 204
    time.sleep(1)
    status, body = call(plane, 'GET', '/servers/%s' % server['id'])
    assert status == 200 and body['server']['OS-EXT-STS:task_state'] == \
        'deleting'


def test_compute_finishes_its_stuck_deletes(tmp_path, conf, started):
    plane = _start(tmp_path, conf, periodic_interval=1)
    started.append(plane)
    server = _boot(plane, 'stuck')
    host = server['OS-EXT-SRV-ATTR:host']
    _stuck_deleting(server['id'])
    _gone(plane, server['id'])
    assert server['id'] not in _driver(plane, host).list_guests()
    ctxt = nova_context.get_admin_context()
    assert allocations.get_allocations(ctxt, server['id']) == {}


def test_a_build_its_failure_could_not_undo_goes_to_error(tmp_path, conf,
                                                         started):
    """A build left in spawning with no build running for it (it failed
    while the database was down, and so did its undoing): the compute's
    periodic task ends it in ERROR with a fault, no host, its guest and
    claim freed -- not left in BUILD until the compute restarts."""
    plane = _start(tmp_path, conf, periodic_interval=1)
    started.append(plane)
    server = _boot(plane, 'abandoned')
    host = server['OS-EXT-SRV-ATTR:host']
    _write_instance(server['id'], vm_state='building',
                    task_state='spawning')

    def ended():
        found = call(plane, 'GET', '/servers/%s' % server['id'])[1][
            'server']
        # (The fault is recorded beside the state: wait for both.)
        return found if found['status'] == 'ERROR' and \
            found['OS-EXT-STS:task_state'] is None and \
            'fault' in found else None
    found = wait_for(ended, timeout=20, message='build ended in ERROR')
    assert 'could not be undone' in found['fault']['message']
    assert found['OS-EXT-SRV-ATTR:host'] is None
    assert server['id'] not in _driver(plane, host).list_guests()
    ctxt = nova_context.get_admin_context()
    assert allocations.get_allocations(ctxt, server['id']) == {}
