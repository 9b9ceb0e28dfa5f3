"""The allocation consistency checker on a running plane (two cells):
``consistency.check()`` and ``nova-lite-manage placement
check_allocations [--verbose] [--json]``.

Servers are booted through the REST API; the inconsistencies the
checker exists for are seeded through the placement functions the
scheduler and computes use (claims, moves to a migration consumer) and
migration rows written into a cell's database as test data; nothing of
nova_lite is mocked."""
import json

from oslo_utils import uuidutils
import pytest

from nova_lite import allinone
from nova_lite.cmd import manage
from nova_lite import context as nova_context
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models as main_models
from nova_lite import objects
from nova_lite.placement import allocations
from nova_lite.placement import consistency
from nova_lite import rpc
from tests.functional.conftest import start_plane
from tests.functional import test_placement_audit as audit_helpers

MIGRATIONS = main_models.Migration.__table__
call = audit_helpers.call


@pytest.fixture
def plane(tmp_path, conf):
    p = start_plane(tmp_path / 'state')
    p.running = True
    yield p
    _quiet(p)
    rpc.cleanup()
    allinone.unconfigure()


def _quiet(plane):
    """Stop the plane's services; its databases stay configured."""
    if plane.running:
        plane.stop()
        plane.wait()
        plane.running = False


def _boot(plane, name):
    return audit_helpers._boot(plane, name)


def _cell_of(uuid):
    ctxt = nova_context.get_admin_context()
    return objects.InstanceMapping.get_by_instance_uuid(
        ctxt, uuid).cell_mapping


def _node(host):
    return audit_helpers._node_uuid(host)


@main_db.writer
def _write(cctxt, statement):
    cctxt.session.execute(statement)


def _migration(instance_uuid, status, source, dest):
    """A migration row in the instance's cell (test data); its uuid."""
    uuid = uuidutils.generate_uuid()
    ctxt = nova_context.get_admin_context()
    with nova_context.target_cell(ctxt, _cell_of(instance_uuid)) as cctxt:
        _write(cctxt, MIGRATIONS.insert().values(
            uuid=uuid, instance_uuid=instance_uuid, status=status,
            source_compute=source, source_node=source, dest_compute=dest,
            dest_node=dest, dest_host='127.0.0.1', migration_type='resize',
            deleted=0, hidden=False, cross_cell_move=False))
    return uuid


def _set_migration_status(instance_uuid, uuid, status):
    ctxt = nova_context.get_admin_context()
    with nova_context.target_cell(ctxt, _cell_of(instance_uuid)) as cctxt:
        _write(cctxt, MIGRATIONS.update().where(
            MIGRATIONS.c.uuid == uuid).values(status=status))


def _update_instance(uuid, **values):
    ctxt = nova_context.get_admin_context()
    with nova_context.target_cell(ctxt, _cell_of(uuid)) as cctxt:
        instance = objects.Instance.get_by_uuid(cctxt, uuid)
        for name, value in values.items():
            setattr(instance, name, value)
        instance.save()


def _held(consumer):
    return allocations.get_allocations(nova_context.get_admin_context(),
                                       consumer)


def _check():
    return consistency.check(nova_context.get_admin_context())


def _kinds(report):
    return sorted((p.kind, p.consumer) for p in report.problems)


def _cli(plane, capsys, *args):
    """(exit code, stdout, stderr) of the command on the plane's config
    (its services stopped: the command resets this process's CONF)."""
    _quiet(plane)
    capsys.readouterr()
    try:
        code = manage.main(['--config-file',
                            plane.state_dir + '/nova_lite.conf',
                            'placement', 'check_allocations'] + list(args))
    finally:
        allinone.configure(plane.state_dir, plane.host, plane.port)
    out, err = capsys.readouterr()
    return code, out, err


def test_check_finds_mismatches_leaks_stale_migrations_and_orphans(
        plane, capsys):
    a = _boot(plane, 'a')
    b = _boot(plane, 'b')
    ctxt = nova_context.get_admin_context()
    report = _check()
    assert report.ok, report.problems
    assert report.checked['instances'] >= 2
    assert report.checked['busy'] == 0

    a_node = _node(a['OS-EXT-SRV-ATTR:host'])
    b_node = _node(b['OS-EXT-SRV-ATTR:host'])
    a_held, b_held = _held(a['id']), _held(b['id'])
    other = _node(next(h for h in ('cell1-compute1', 'cell1-compute2',
                                   'cell2-compute1', 'cell2-compute2')
                       if h != b['OS-EXT-SRV-ATTR:host']))
    # a holds more memory than its flavor; b holds on another node.
    allocations.claim(ctxt, a['id'], {a_node: dict(
        a_held[a_node], MEMORY_MB=a_held[a_node]['MEMORY_MB'] * 2)})
    allocations.claim(ctxt, b['id'], {other: b_held[b_node]})
    ghost = uuidutils.generate_uuid()
    allocations.claim(ctxt, ghost, {a_node: {'VCPU': 1}}, project_id='p',
                      user_id='u')
    # A confirmed migration still holding; a migration left 'migrating'
    # by an idle instance.
    leaked = _migration(b['id'], 'confirmed', b['OS-EXT-SRV-ATTR:host'],
                        b['OS-EXT-SRV-ATTR:host'])
    allocations.claim(ctxt, leaked, {b_node: {'VCPU': 1}}, project_id='p',
                      user_id='u')
    stale = _migration(a['id'], 'migrating', a['OS-EXT-SRV-ATTR:host'],
                       a['OS-EXT-SRV-ATTR:host'])

    report = _check()
    assert _kinds(report) == sorted([
        (consistency.MISMATCH, a['id']), (consistency.MISMATCH, b['id']),
        (consistency.ORPHAN, ghost),
        (consistency.LEAKED_MIGRATION, leaked),
        (consistency.STALE_MIGRATION, stale)])
    by = {p.consumer: p for p in report.problems}
    assert by[a['id']].expected == {a_node: a_held[a_node]}
    assert by[a['id']].held[a_node]['MEMORY_MB'] == \
        2 * a_held[a_node]['MEMORY_MB']
    assert by[b['id']].held == {other: b_held[b_node]}
    assert by[leaked].held == {b_node: {'VCPU': 1}}
    assert by[leaked].instance == b['id']

    # An instance with a task state is busy: neither it nor its
    # migrations are judged.
    _update_instance(a['id'], task_state='resize_migrating')
    report = _check()
    assert report.checked['busy'] == 1
    assert a['id'] not in {p.consumer for p in report.problems}
    assert stale not in {p.consumer for p in report.problems}
    _update_instance(a['id'], task_state=None)

    code, out, _ = _cli(plane, capsys)
    assert code == 3, out
    assert 'Inconsistent allocations (5)' in out
    for kind in ('mismatch', 'orphan', 'leaked_migration',
                 'stale_migration'):
        assert kind in out
    code, out, _ = _cli(plane, capsys, '--json')
    assert code == 3
    data = json.loads(out)
    assert len(data['problems']) == 5 and data['checked']['cells'] == 3

    # Put right, it is consistent again.
    _set_migration_status(a['id'], stale, 'error')
    allocations.claim(ctxt, a['id'], {a_node: a_held[a_node]})
    allocations.claim(ctxt, b['id'], b_held)
    allocations.remove_allocations(ctxt, ghost)
    allocations.remove_allocations(ctxt, leaked)
    assert _check().ok, _check().problems
    code, out, _ = _cli(plane, capsys, '--verbose')
    assert code == 0, out
    assert 'consistent' in out and 'Checked' in out

    # The statements it sends do not grow with what it finds (the
    # plane's services are stopped: nothing else is counted).
    few = audit_helpers._count_statements(_check)[1]
    for _ in range(20):
        leaked = _migration(b['id'], 'reverted', b['OS-EXT-SRV-ATTR:host'],
                            b['OS-EXT-SRV-ATTR:host'])
        allocations.claim(ctxt, leaked, {b_node: {'VCPU': 1}},
                          project_id='p', user_id='u')
        allocations.claim(ctxt, uuidutils.generate_uuid(),
                          {b_node: {'VCPU': 1}}, project_id='p', user_id='u')
    report, many = audit_helpers._count_statements(_check)
    assert len(report.problems) == 40
    assert len(many) == len(few), (few, many)


def test_check_judges_verify_resize_by_both_consumers(plane, capsys):
    """A resize seeded as the scheduler claims it (the instance's source
    allocation moved to the migration, the new flavor claimed on the
    destination in one transaction) is consistent in VERIFY_RESIZE;
    confirming without releasing the migration's claim is a leak."""
    server = _boot(plane, 'r')
    ctxt = nova_context.get_admin_context()
    source = server['OS-EXT-SRV-ATTR:host']
    dest = source[:-1] + ('2' if source.endswith('1') else '1')
    src_node, dst_node = _node(source), _node(dest)
    old = _held(server['id'])[src_node]
    status, body = call(plane, 'POST', '/flavors', {'flavor': {
        'name': 'bigger', 'id': 'bigger', 'ram': 512, 'vcpus': 2,
        'disk': 1}})
    assert status == 200, body
    bigger = objects.EmbeddedFlavor.from_flavor(
        objects.Flavor.get_by_flavor_id(ctxt, 'bigger'))
    migration = _migration(server['id'], 'finished', source, dest)
    allocations.claim(ctxt, server['id'],
                      {dst_node: {'VCPU': 2, 'MEMORY_MB': 512,
                                  'DISK_GB': 1}}, move_to=migration)
    with nova_context.target_cell(ctxt, _cell_of(server['id'])) as cctxt:
        instance = objects.Instance.get_by_uuid(cctxt, server['id'])
        instance.old_flavor, instance.new_flavor = instance.flavor, bigger
        instance.flavor = bigger
        instance.host, instance.node = dest, dest
        instance.vm_state = 'resized'
        instance.save()
    assert call(plane, 'GET', '/servers/%s' % server['id'])[1]['server'][
        'status'] == 'VERIFY_RESIZE'
    report = _check()
    assert report.ok, report.problems

    # The migration holding the new flavor instead of the old one.
    allocations.claim(ctxt, migration, {src_node: {
        'VCPU': 2, 'MEMORY_MB': 512, 'DISK_GB': 1}})
    report = _check()
    assert _kinds(report) == [(consistency.MISMATCH, migration)]
    assert report.problems[0].expected == {src_node: old}
    assert report.problems[0].instance == server['id']

    # Confirmed (instance active on the new flavor) but the source
    # claim left behind: leaked.
    _update_instance(server['id'], vm_state='active', old_flavor=None,
                     new_flavor=None)
    _set_migration_status(server['id'], migration, 'confirmed')
    report = _check()
    assert _kinds(report) == [(consistency.LEAKED_MIGRATION, migration)]
    code, out, _ = _cli(plane, capsys)
    assert code == 3 and 'leaked_migration' in out and migration in out
    allocations.remove_allocations(ctxt, migration)
    assert _check().ok


def test_check_allocations_needs_the_api_database(tmp_path, capsys, conf):
    path = tmp_path / 'nova_lite.conf'
    path.write_text('[DEFAULT]\n')
    code = manage.main(['--config-file', str(path), 'placement',
                        'check_allocations'])
    assert code == 1
    assert '[api_database] connection' in capsys.readouterr().err
    code = manage.main(['--config-file', str(path), 'placement',
                        'check_allocations', '--help'])
    assert code == 0
    out = capsys.readouterr().out
    assert 'Exit codes' in out and '--json' in out and '--verbose' in out
