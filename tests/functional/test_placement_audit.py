"""Consistent allocations on a running plane (two cells): deleting a
compute service removes its node's resource provider once nothing else
allocates from it (409 while servers do), and ``nova-lite-manage
placement audit [--delete] [--verbose]`` finds, prints and removes
orphaned allocations and providers without a compute node, idempotently.

Servers are booted and deleted through the REST API; the faults the
audit exists for (a consumer forgotten by a crashed service, an
instance row gone behind placement's back, a provider left by a
deleted node) are written straight into the databases."""
import json
import sqlite3
import urllib.error
import urllib.request

from oslo_utils import uuidutils
import pytest
import sqlalchemy as sa

from nova_lite import allinone
from nova_lite.cmd import manage
from nova_lite import context as nova_context
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models as main_models
from nova_lite import objects
from nova_lite.placement import allocations
from nova_lite.placement import providers
from tests.functional.conftest import start_plane
from tests.functional.conftest import stop_plane
from tests.functional.conftest import wait_for

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
ADMIN = {'X-Auth-Token': 'admin:admin', 'Content-Type': 'application/json',
         'OpenStack-API-Version': 'compute 2.53'}
INVENTORY = {'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 4096},
             'DISK_GB': {'total': 100}}


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


@pytest.fixture
def plane(tmp_path, conf):
    p = start_plane(tmp_path / 'state')
    yield p
    if p.services:
        stop_plane(p)


def _boot(plane, name):
    status, body = call(plane, 'POST', '/flavors', {'flavor': {
        'name': 'a-' + name, 'id': 'a-' + name, 'ram': 256, 'vcpus': 1,
        'disk': 1}})
    assert status == 200, body
    status, body = call(plane, 'POST', '/servers', {'server': {
        'name': name, 'flavorRef': 'a-' + name, 'imageRef': IMAGE,
        'networks': 'auto'}})
    assert status == 202, body
    uuid = body['server']['id']

    def active():
        server = call(plane, 'GET', '/servers/%s' % uuid)[1]['server']
        assert server['status'] != 'ERROR', server
        return server if server['status'] == 'ACTIVE' else None
    return wait_for(active, timeout=30, message='%s ACTIVE' % name)


def _delete_server(plane, uuid):
    assert call(plane, 'DELETE', '/servers/%s' % uuid)[0] == 204
    wait_for(lambda: call(plane, 'GET', '/servers/%s' % uuid)[0] == 404,
             timeout=30, message='server %s gone' % uuid)


def _node_uuid(host):
    ctxt = nova_context.get_admin_context()
    mapping = objects.HostMapping.get_by_host(ctxt, host)
    with nova_context.target_cell(ctxt, mapping.cell_mapping) as cctxt:
        return objects.ComputeNodeList.get_all_by_host(cctxt, host)[0].uuid


def _provider_exists(uuid):
    ctxt = nova_context.get_admin_context()
    with allocations.placement_db.reading(ctxt) as session:
        return session.execute(sa.select(providers.RP.c.id).where(
            providers.RP.c.uuid == uuid)).first() is not None


def _api_db(plane, sql, *params):
    """Rows of sql on the plane's API database file (the plane stopped:
    the process no longer has it configured)."""
    path = allinone.sqlite_url(plane.state_dir, 'api')[len('sqlite:///'):]
    with sqlite3.connect(path) as conn:
        return conn.execute(sql, params).fetchall()


def _held(plane, consumer):
    return _api_db(plane, 'SELECT used FROM allocations WHERE '
                   'consumer_id = ?', consumer)


def _provider_left(plane, uuid):
    return bool(_api_db(plane, 'SELECT id FROM resource_providers WHERE '
                        'uuid = ?', uuid))


def _stop_compute(plane, host):
    svc = next(s for s in plane.services if s.host == host)
    svc.stop()
    svc.wait()
    plane.services.remove(svc)


def _audit(plane, capsys, *args):
    capsys.readouterr()
    code = manage.main(['--config-file', plane.state_dir + '/nova_lite.conf',
                        'placement', 'audit'] + list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_deleting_a_compute_service_removes_its_provider_when_unused(plane):
    server = _boot(plane, 'web')
    host = server['OS-EXT-SRV-ATTR:host']
    node = _node_uuid(host)
    assert _provider_exists(node)
    services = call(plane, 'GET', '/os-services?host=%s' % host)[1]
    service_id = services['services'][0]['id']

    # It hosts a server (as Nova: 409).
    status, fault = call(plane, 'DELETE', '/os-services/%s' % service_id)
    assert status == 409
    assert fault['conflictingRequest']['message'] == (
        'Unable to delete compute service that is hosting instances. '
        'Migrate or delete the instances first.')
    assert _provider_exists(node)
    assert call(plane, 'GET', '/os-services?host=%s' % host)[1]['services']

    _delete_server(plane, server['id'])
    _stop_compute(plane, host)     # no compute re-creates its records
    # A consumer that is no server of this host still allocates from it.
    ctxt = nova_context.get_admin_context()
    ghost = uuidutils.generate_uuid()
    allocations.claim(ctxt, ghost, {node: {'VCPU': 1}}, project_id='p',
                      user_id='u')
    status, fault = call(plane, 'DELETE', '/os-services/%s' % service_id)
    assert status == 409
    message = fault['conflictingRequest']['message']
    assert node in message and 'allocations' in message
    # Nothing was deleted.
    assert _provider_exists(node)
    assert call(plane, 'GET', '/os-services?host=%s' % host)[1]['services']
    assert allocations.get_allocations(ctxt, ghost)

    allocations.remove_allocations(ctxt, ghost)
    assert call(plane, 'DELETE', '/os-services/%s' % service_id)[0] == 204
    assert not _provider_exists(node)
    assert call(plane, 'GET', '/os-services?host=%s' % host)[1][
        'services'] == []
    # Other computes keep theirs.
    others = [s.host for s in plane.services if '-compute' in s.host]
    assert others and all(_provider_exists(_node_uuid(h)) for h in others)


def _soft_delete_instance(uuid):
    """The instance row goes, its allocations stay (a crashed delete)."""
    ctxt = nova_context.get_admin_context()
    mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt, uuid)
    with nova_context.target_cell(ctxt, mapping.cell_mapping) as cctxt:
        @main_db.writer
        def go(c):
            table = main_models.Instance.__table__
            c.session.execute(table.update().where(table.c.uuid == uuid)
                              .values(deleted=table.c.id))
        go(cctxt)


def test_audit_finds_prints_and_deletes_orphans_idempotently(plane,
                                                             capsys):
    kept = _boot(plane, 'kept')
    lost = _boot(plane, 'lost')
    ctxt = nova_context.get_admin_context()
    node = _node_uuid(kept['OS-EXT-SRV-ATTR:host'])
    # A consumer nobody knows, on a live node.
    ghost = uuidutils.generate_uuid()
    allocations.claim(ctxt, ghost, {node: {'VCPU': 1, 'MEMORY_MB': 64}},
                      project_id='p', user_id='u')
    # An instance gone behind placement's back.
    _soft_delete_instance(lost['id'])
    # A provider whose node is gone.
    stray = uuidutils.generate_uuid()
    providers.create_provider(ctxt, stray, 'gone-node', INVENTORY)
    stop_plane(plane)
    plane.services = []

    code, out, _ = _audit(plane, capsys)
    assert code == 3, out
    assert ghost in out and lost['id'] in out and stray in out
    assert kept['id'] not in out
    assert 'VCPU=1' in out and 'found' in out
    assert 'Orphaned allocations (2 consumers)' in out
    assert 'Resource providers without a compute node (1)' in out
    # Looking changes nothing.
    assert _audit(plane, capsys)[0] == 3

    code, out, _ = _audit(plane, capsys, '--delete', '--verbose')
    assert code == 4, out
    assert 'Checked' in out and 'deleted' in out
    assert _held(plane, ghost) == [] and _held(plane, lost['id']) == []
    assert _held(plane, kept['id'])
    assert not _provider_left(plane, stray) and _provider_left(plane, node)

    for args in ((), ('--delete',), ('--verbose',)):
        code, out, _ = _audit(plane, capsys, *args)
        assert code == 0, out
        assert 'No orphaned allocations or resource providers found' in out


def test_audit_keeps_a_provider_live_consumers_use(plane, capsys):
    """A provider without a node that a live server still allocates
    from is reported but kept; the server's allocation stays."""
    server = _boot(plane, 'live')
    ctxt = nova_context.get_admin_context()
    stray = uuidutils.generate_uuid()
    providers.create_provider(ctxt, stray, 'gone-node', INVENTORY)
    held = allocations.get_consumer(ctxt, server['id'])
    request = dict(held['allocations'], **{stray: {'VCPU': 1}})
    allocations.claim(ctxt, server['id'], request,
                      consumer_generation=held['generation'],
                      project_id=held['project_id'],
                      user_id=held['user_id'])
    stop_plane(plane)
    plane.services = []
    code, out, _ = _audit(plane, capsys, '--delete')
    assert code == 3, out
    assert 'kept: live consumers still allocate from it' in out
    assert _provider_left(plane, stray)
    assert len(_held(plane, server['id'])) == 4     # 3 + 1 on stray


def test_audit_needs_the_api_database(tmp_path, capsys, conf):
    path = tmp_path / 'nova_lite.conf'
    path.write_text('[DEFAULT]\n')
    code = manage.main(['--config-file', str(path), 'placement', 'audit'])
    assert code == 1
    assert '[api_database] connection' in capsys.readouterr().err


def test_audit_help_documents_exit_codes(tmp_path, capsys, conf):
    path = tmp_path / 'nova_lite.conf'
    path.write_text('[DEFAULT]\n')
    code = manage.main(['--config-file', str(path), 'placement', 'audit',
                        '--help'])
    assert code == 0
    out = capsys.readouterr().out
    assert 'Exit codes' in out and '--delete' in out and '--verbose' in out


def test_audit_with_a_cell_down_reports_nothing_and_fails(plane, capsys):
    ghost = uuidutils.generate_uuid()
    ctxt = nova_context.get_admin_context()
    stray = uuidutils.generate_uuid()
    providers.create_provider(ctxt, stray, 'gone-node', INVENTORY)
    allocations.claim(ctxt, ghost, {stray: {'VCPU': 1}}, project_id='p',
                      user_id='u')
    stop_plane(plane)
    plane.services = []
    _api_db(plane, "UPDATE cell_mappings SET database_connection = "
            "'sqlite:////nonexistent/dir/cell2.sqlite' WHERE name = 'cell2'")
    code, out, err = _audit(plane, capsys, '--delete')
    assert code == 1, (out, err)
    assert 'cell2' in err and 'did not answer' in err
    assert _held(plane, ghost) and _provider_left(plane, stray)


def _count_statements(fn):
    """(fn(), statements every engine of this process sent meanwhile)."""
    sent = []

    def count(conn, cursor, statement, parameters, context, many):
        if not statement.lstrip().upper().startswith(
                ('BEGIN', 'COMMIT', 'ROLLBACK', 'SAVEPOINT', 'RELEASE')):
            sent.append(statement)
    sa.event.listen(sa.engine.Engine, 'before_cursor_execute', count)
    try:
        return fn(), sent
    finally:
        sa.event.remove(sa.engine.Engine, 'before_cursor_execute', count)


def test_audit_statements_do_not_grow_with_orphans(plane, capsys):
    ctxt = nova_context.get_admin_context()
    node = _node_uuid('cell1-compute1')
    allocations.claim(ctxt, uuidutils.generate_uuid(), {node: {'VCPU': 1}},
                      project_id='p', user_id='u')
    providers.create_provider(ctxt, uuidutils.generate_uuid(), 'gone-0',
                              INVENTORY)
    stop_plane(plane)
    plane.services = []
    code, few = _count_statements(lambda: _audit(plane, capsys)[0])
    assert code == 3
    # 30 more orphaned consumers and 10 more providers without a node.
    rp_id, rc_id = _api_db(plane, 'SELECT resource_provider_id, '
                           'resource_class_id FROM allocations LIMIT 1')[0]
    for _ in range(30):
        _api_db(plane, 'INSERT INTO allocations (resource_provider_id, '
                'consumer_id, resource_class_id, used) VALUES (?, ?, ?, 1)',
                rp_id, uuidutils.generate_uuid(), rc_id)
    for i in range(10):
        _api_db(plane, 'INSERT INTO resource_providers (uuid, name, '
                'generation) VALUES (?, ?, 0)', uuidutils.generate_uuid(),
                'gone-%d' % (i + 1))
    (code, out, _), many = _count_statements(lambda: _audit(plane, capsys))
    assert code == 3 and 'Orphaned allocations (31 consumers)' in out
    assert 'Resource providers without a compute node (11)' in out
    assert len(many) == len(few), (few, many)


def test_a_compute_in_a_migration_in_progress_is_not_deleted(plane):
    host = 'cell2-compute1'
    _stop_compute(plane, host)
    ctxt = nova_context.get_admin_context()
    mapping = objects.HostMapping.get_by_host(ctxt, host)
    table = main_models.Migration.__table__

    @main_db.writer
    def write(c, statement):
        c.session.execute(statement)
    with nova_context.target_cell(ctxt, mapping.cell_mapping) as cctxt:
        write(cctxt, table.insert().values(
            uuid=uuidutils.generate_uuid(), source_compute='cell1-compute1',
            dest_compute=host, status='migrating', deleted=0,
            instance_uuid=uuidutils.generate_uuid()))
    service_id = call(plane, 'GET', '/os-services?host=%s' % host)[1][
        'services'][0]['id']
    status, fault = call(plane, 'DELETE', '/os-services/%s' % service_id)
    assert status == 409
    assert 'in-progress migrations' in fault['conflictingRequest']['message']
    with nova_context.target_cell(ctxt, mapping.cell_mapping) as cctxt:
        write(cctxt, table.update().values(status='confirmed'))
    assert call(plane, 'DELETE', '/os-services/%s' % service_id)[0] == 204
    assert _provider_exists(_node_uuid("cell1-compute1"))
