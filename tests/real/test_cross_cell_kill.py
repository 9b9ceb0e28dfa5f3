"""Issue 17 item 7(d): a real super conductor SIGKILLed at every step
boundary of a cross-cell resize, confirm and revert, and of the
scheduling before a resize is handed off, on MariaDB +
RabbitMQ (the session's tools/deployment.py deployment).

For each step the super conductor is restarted with
NOVA_LITE_TEST_KILL_AT_STEP=<step> (the tests' plugin, tests/plugin,
installed only in the test environment, adds a step observer as the
process starts that SIGKILLs it before that step), the operation is
started through the REST API, the process must die by SIGKILL (exit
status -9, its log naming the step), and it is started again without
the hook. Its start-up recovery must
then complete or roll back the move (conductor.tasks.
cross_cell_recovery) so that the server settles with exactly one
visible copy across the cells, its instance mapping in that copy's
cell (or, killed before the hand-off, conductor.tasks.move_recovery
rolls it back), GET /servers/{id} showing a host of that cell, the server once
in GET /servers/detail, allocations held where the copy is (and,
during VERIFY_RESIZE, the migration's at the source) with
`nova-lite-manage placement check_allocations` consistent, no resize
snapshot image left behind, a volume-backed server's root volume
attached on its host through the attachment its mapping names.
Afterwards the server is still usable: a
completed resize can be confirmed, a rolled-back one resized again,
and deleting it frees every allocation.

Servers are booted in cell1 (cell2's computes disabled) and resized
with cell1's computes disabled, so every resize goes to cell2.
"""
import os
import re
import signal
import subprocess
import time

import nova_lite_test_hooks as step_hooks
import pytest
import sqlalchemy as sa

from nova_lite.conductor.tasks import cross_cell_migrate
from nova_lite.virt import fake
from tests.functional.conftest import wait_for
from tests.real import test_cross_cell_resize_deployment as xcell
from tests.real import test_deployment as deployed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TASKS = os.path.join(ROOT, 'nova_lite', 'conductor', 'tasks')
FLAVORS = ({'name': 'xk.1', 'id': 'xk.1', 'ram': 64, 'vcpus': 1,
            'disk': 1},
           {'name': 'xk.2', 'id': 'xk.2', 'ram': 128, 'vcpus': 1,
            'disk': 1})
SMALL = {'VCPU': 1, 'MEMORY_MB': 64, 'DISK_GB': 1}
BIG = {'VCPU': 1, 'MEMORY_MB': 128, 'DISK_GB': 1}

# step -> (the action interrupted, how the move ends after the restart:
# 'source' rolled back or reverted, ACTIVE in cell1; 'verify' completed
# to VERIFY_RESIZE in cell2; 'target' confirmed, ACTIVE in cell2)
STEPS = {
    'target_db_setup': ('resize', 'source'),
    'prep_resize_at_dest': ('resize', 'source'),
    'prep_resize_at_source': ('resize', 'source'),
    'finish_resize_at_dest': ('resize', 'source'),
    'mapping_swap': ('resize', 'verify'),
    'confirm_at_source': ('confirmResize', 'target'),
    'confirm_delete_source': ('confirmResize', 'target'),
    'confirm_finish': ('confirmResize', 'target'),
    'revert_sync_to_source': ('revertResize', 'source'),
    'revert_mapping_swap': ('revertResize', 'source'),
    'revert_at_dest': ('revertResize', 'source'),
    'revert_delete_target': ('revertResize', 'source'),
    'revert_finish_at_source': ('revertResize', 'source'),
    # migrate_server, before the hand-off (conductor.tasks.move_recovery)
    'schedule': ('resize', 'source'),
    'dispatch': ('resize', 'source'),
}
# Every other step's server boots from a volume (image-backed
# otherwise: a snapshot carries its disk across).
VOLUME_BACKED = set(list(STEPS)[1::2])
FINAL = {'source': ('ACTIVE', 'cell1'), 'verify': ('VERIFY_RESIZE', 'cell2'),
         'target': ('ACTIVE', 'cell2')}
# The migration's status once the restart dealt with it.
MIGRATION_ENDS = {'resize': ('error', 'finished'),
                  'confirmResize': ('confirmed',),
                  'revertResize': ('reverted',)}
# uuid -> its migrations' uuids, of the servers the steps deleted
DELETED = {}
# Whether the running super conductor has the kill hook set.
HOOKED = []


def test_every_step_boundary_is_killed():
    """STEPS names every step_boundary() of the cross-cell tasks and
    of migrate_server (the scheduling before them)."""
    found = set()
    for name in os.listdir(TASKS):
        if ((name.startswith('cross_cell') and name.endswith('.py'))
                or name == 'migrate.py'):
            with open(os.path.join(TASKS, name)) as f:
                found.update(re.findall(r"step_boundary\('(\w+)'\)",
                                        f.read()))
    assert found == set(STEPS)


# --- the deployment -----------------------------------------------------

def _computes(dep, cell, enabled):
    xcell._set_cell_computes(dep, cell, enabled)


def _boot(dep, name, volume):
    server = {'name': name, 'flavorRef': 'xk.1', 'imageRef': deployed.IMAGE,
              'networks': 'none'}
    if volume:
        server.update(imageRef='', block_device_mapping_v2=[{
            'source_type': 'image', 'destination_type': 'volume',
            'uuid': deployed.IMAGE, 'boot_index': 0, 'volume_size': 1,
            'delete_on_termination': True}])
    status, body = deployed.api(dep, 'POST', '/servers', {'server': server},
                                version='2.67')
    assert status == 202, body
    return body['server']['id']


def _act(dep, uuid, action, body=None):
    status, reply = deployed.api(dep, 'POST', '/servers/%s/action' % uuid,
                                 {action: body})
    assert status in (202, 204), (action, status, reply)


def _wait(dep, uuids, status, timeout=90):
    def reached():
        servers = {u: xcell._server(dep, u) for u in uuids}
        for server in servers.values():
            assert server['status'] != 'ERROR', server.get('fault')
        if all(s['status'] == status and s['OS-EXT-STS:task_state'] is None
               for s in servers.values()):
            return servers
        return None
    return wait_for(reached, timeout, interval=0.2,
                    message='%s %s' % (uuids, status))


@pytest.fixture(scope='module')
def fleet(shared_deployment):
    """The deployment with cross-cell resize allowed for admins (API
    restarted with the policy), every server the steps need: for a
    resize step one ACTIVE in cell1, for a confirm or revert step one
    resized to cell2 (VERIFY_RESIZE); cell1's computes disabled so that
    resizes go to cell2. Everything is put back afterwards."""
    dep = shared_deployment
    start = time.monotonic()
    policy = os.path.join(dep.workdir, 'xcell-policy.yaml')
    with open(policy, 'w') as f:
        f.write(xcell.POLICY)
    conf = os.path.join(dep.workdir, 'xcell-policy.conf')
    with open(conf, 'w') as f:
        f.write('[oslo_policy]\npolicy_file = %s\n' % policy)
    xcell._restart_api(dep, conf)
    servers = {}
    try:
        for flavor in FLAVORS:
            status, body = deployed.api(dep, 'POST', '/flavors',
                                        {'flavor': flavor})
            assert status in (200, 409), body
        _computes(dep, 'cell2', False)
        try:
            servers = {step: _boot(dep, 'xk-%s' % step,
                                   step in VOLUME_BACKED)
                       for step in STEPS}
            _wait(dep, servers.values(), 'ACTIVE')
        finally:
            _computes(dep, 'cell2', True)
        _computes(dep, 'cell1', False)
        moved = [servers[step] for step, (action, _) in STEPS.items()
                 if action != 'resize']
        # One at a time: concurrent copies into a cell can deadlock on
        # MariaDB (db.main.instance_copy's deletes of absent rows take
        # gap locks), which is not what this module tests.
        for uuid in moved:
            _act(dep, uuid, 'resize', {'flavorRef': 'xk.2'})
            server = _wait(dep, [uuid], 'VERIFY_RESIZE')[uuid]
            assert xcell._cell(server) == 'cell2', server
        print('kill fleet: %d servers booted, %d resized to cell2 in %.1fs'
              % (len(servers), len(moved), time.monotonic() - start))
        yield dep, servers
    finally:
        # Never leave a super conductor with the hook behind.
        if HOOKED:
            if dep.exit_status('conductor') is None:
                _wait_killed(dep, dep.procs['conductor'])
            dep.respawn('conductor')
            del HOOKED[:]
        elif dep.exit_status('conductor') is not None:
            dep.respawn('conductor')
        _computes(dep, 'cell1', True)
        for uuid in servers.values():
            deployed.api(dep, 'DELETE', '/servers/%s' % uuid)
        for flavor in FLAVORS:
            deployed.api(dep, 'DELETE', '/flavors/%s' % flavor['id'])
        xcell._restart_api(dep)


# --- what is checked ----------------------------------------------------

def _rows(dep, db, sql, **params):
    engine = deployed._engine(dep, db)
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text(sql), params).fetchall()
    finally:
        engine.dispose()


def _visible_copies(dep, uuid):
    """{cell: host} of the copies with hidden = false, deleted = 0."""
    copies = {}
    for cell in dep.cell_names():
        for host, in _rows(dep, cell, 'SELECT host FROM instances WHERE '
                           'uuid = :u AND hidden = 0 AND deleted = 0',
                           u=uuid):
            copies.setdefault(cell, []).append(host)
    return copies


def _copies(dep, uuid):
    """{cell: [hidden, ...]} of every copy (deleted = 0) of uuid."""
    copies = {}
    for cell in dep.cell_names():
        for hidden, in _rows(dep, cell, 'SELECT hidden FROM instances '
                             'WHERE uuid = :u AND deleted = 0', u=uuid):
            copies.setdefault(cell, []).append(bool(hidden))
    return copies


def _guests(dep, uuid):
    """{host: [guest name, ...]} of uuid's guests (a set-aside one too)
    on the simulated hypervisors (their state files)."""
    found = {}
    for cell in dep.cell_names():
        for i in range(1, dep.computes_per_cell + 1):
            host = '%s-compute%d' % (cell, i)
            names = [g for g in fake.load_guests(os.path.join(
                dep.workdir, 'state', 'fake-hypervisor'), host)
                if g.startswith(uuid)]
            if names:
                found[host] = sorted(names)
    return found


def _mapped_cell(dep, uuid):
    rows = _rows(dep, 'api', 'SELECT c.name FROM instance_mappings m '
                 'JOIN cell_mappings c ON c.id = m.cell_id '
                 'WHERE m.instance_uuid = :u', u=uuid)
    return [r[0] for r in rows]


def _held(dep, consumer):
    """{provider name: {resource class: used}} of consumer."""
    held = {}
    for name, rc, used in _rows(
            dep, 'api', 'SELECT p.name, c.name, a.used FROM allocations a '
            'JOIN resource_providers p ON p.id = a.resource_provider_id '
            'JOIN resource_classes c ON c.id = a.resource_class_id '
            'WHERE a.consumer_id = :u', u=consumer):
        if used:
            held.setdefault(name, {})[rc] = used
    return held


def _flavor(name, step):
    """What the flavor's server holds (no root disk from a volume)."""
    held = dict(BIG if name == 'xk.2' else SMALL)
    if step in VOLUME_BACKED:
        del held['DISK_GB']
    return held


def _attachments(dep, uuid):
    """[(volume, attachment, status, host)] of uuid's attachments."""
    return sorted(tuple(r) for r in _rows(
        dep, 'local_services', 'SELECT volume_id, id, attach_status, '
        'attached_host FROM volume_attachments WHERE instance_uuid = :u',
        u=uuid))


def _volume_mappings(dep, cell, uuid):
    """[(volume, attachment)] of uuid's mappings in cell's database."""
    return sorted(tuple(r) for r in _rows(
        dep, cell, 'SELECT volume_id, attachment_id FROM '
        'block_device_mapping WHERE instance_uuid = :u AND deleted = 0 '
        'AND volume_id IS NOT NULL', u=uuid))


def _migration(dep, uuid):
    status, body = deployed.api(dep, 'GET', '/os-migrations?instance_uuid='
                                + uuid, version='2.59')
    assert status == 200, body
    # The newest (ids are per cell).
    return max(body['migrations'], key=lambda m: (m['created_at'], m['id']))


def _snapshots_left(dep, migration_uuid):
    return _rows(dep, 'local_services', "SELECT id FROM images WHERE "
                 "name = :n AND status != 'deleted'",
                 n=cross_cell_migrate.snapshot_name(migration_uuid))


def _wait_killed(dep, kill=None):
    """The super conductor's exit status once it has exited (SIGKILLed
    first when kill names its pid)."""
    if kill is not None:
        os.killpg(kill, signal.SIGKILL)
    died = []

    def dead():
        status = dep.exit_status('conductor')
        if status is not None:
            died.append(status)
        return died
    return wait_for(dead, 90, interval=0.05,
                    message='super conductor exit')[0]


def _killed_at(dep, step, act):
    """Restart the super conductor with the kill hook at step, act(),
    and wait until the process has died there (SIGKILL); start it again
    without the hook."""
    # The running one is idle (the last move settled): killed too, as
    # it is faster than its graceful stop.
    _wait_killed(dep, dep.procs['conductor'])
    log = os.path.join(dep.workdir, 'conductor.log')
    marker = 'Killing myself at step %s ' % step
    with open(log) as f:
        before = f.read().count(marker)
    dep.respawn('conductor', env={step_hooks.KILL_ENV: step})
    HOOKED.append(step)
    act()
    assert _wait_killed(dep) == -signal.SIGKILL
    with open(log) as f:
        assert f.read().count(marker) == before + 1
    dep.respawn('conductor')
    del HOOKED[:]


def _check_settled(dep, uuid, step):
    """Wait until the restarted super conductor finished the move;
    assert one visible copy, its mapping, the API's view and the
    allocations. Returns (server, migration)."""
    action, ends = STEPS[step]
    status, cell = FINAL[ends]
    server = _wait(dep, [uuid], status)[uuid]
    migration = wait_for(
        lambda: (lambda m: m if m['status'] in MIGRATION_ENDS[action]
                 else None)(_migration(dep, uuid)), 30, interval=0.2,
        message='migration of %s ended' % uuid)
    # The checker (a process of its own) runs beside the checks below.
    checker = subprocess.Popen(
        [os.path.join(deployed.BIN, 'nova-lite-manage'), '--config-file',
         os.path.join(dep.workdir, 'top.conf'), 'placement',
         'check_allocations', '--json'],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        _check_copies(dep, uuid, step, server, migration)
    finally:
        out = checker.communicate(timeout=120)[0]
    assert checker.returncode == 0, out[-3000:]
    return server, migration


def _check_copies(dep, uuid, step, server, migration):
    action, ends = STEPS[step]
    cell = FINAL[ends][1]
    host = server['OS-EXT-SRV-ATTR:host']
    assert xcell._cell(server) == cell, server
    # Exactly one visible copy, where the mapping points; the API shows
    # its host.
    assert _visible_copies(dep, uuid) == {cell: [host]}
    assert _mapped_cell(dep, uuid) == [cell]
    # Hidden copies: only the source's, while the resize awaits its
    # confirmation.
    assert _copies(dep, uuid) == (
        {'cell2': [False], 'cell1': [True]} if ends == 'verify'
        else {cell: [False]})
    # One guest, on the host shown (VERIFY_RESIZE: the source's kept
    # disks, no guest, at most).
    guests = _guests(dep, uuid)
    if ends == 'verify':
        guests.pop(migration['source_compute'], None)
    assert guests == {host: [uuid]}
    status, body = deployed.api(dep, 'GET', '/servers/detail?all_tenants=1',
                                version='2.47')
    assert status == 200, body
    listed = [s for s in body['servers'] if s['id'] == uuid]
    assert len(listed) == 1
    assert listed[0]['OS-EXT-SRV-ATTR:host'] == host
    assert listed[0]['status'] == server['status']
    # Allocations: the instance's where it is, the migration's on the
    # source only while the resize waits for its confirmation.
    assert _held(dep, uuid) == {
        host: _flavor(server['flavor']['original_name'], step)}
    if ends == 'verify':
        assert migration['status'] == 'finished'
        assert _held(dep, migration['uuid']) == {
            migration['source_node']: _flavor('xk.1', step)}
    else:
        assert _held(dep, migration['uuid']) == {}
    if ends == 'source':
        assert host == migration['source_compute']
        assert server['flavor']['original_name'] == 'xk.1'
        if action == 'resize':
            assert migration['status'] == 'error'
            faults = _rows(dep, cell, 'SELECT message FROM instance_faults '
                           'WHERE instance_uuid = :u', u=uuid)
            assert any('super conductor' in m for m, in faults), faults
    else:
        assert host == migration['dest_compute']
        assert server['flavor']['original_name'] == 'xk.2'
    assert _snapshots_left(dep, migration['uuid']) == []
    if step in VOLUME_BACKED:
        # The root volume attached where the server is, through the
        # attachment its mapping names (during VERIFY_RESIZE the source
        # copy's placeholder attachment too).
        attachments = _attachments(dep, uuid)
        live = [a for a in attachments if a[2] == 'attached']
        assert [a[3] for a in live] == [host], attachments
        assert _volume_mappings(dep, cell, uuid) == [live[0][:2]]
        if ends == 'verify':
            assert len(attachments) == 2, attachments
            assert _volume_mappings(dep, 'cell1', uuid) == [
                a[:2] for a in attachments if a not in live]
        else:
            assert attachments == live


@pytest.mark.parametrize('step', list(STEPS))
def test_super_conductor_killed_at(fleet, step):
    dep, servers = fleet
    uuid = servers[step]
    action, ends = STEPS[step]
    if action == 'resize':
        act = lambda: _act(dep, uuid, 'resize',  # noqa: E731
                           {'flavorRef': 'xk.2'})
    else:
        act = lambda: _act(dep, uuid, action)  # noqa: E731
    start = time.monotonic()
    _killed_at(dep, step, act)
    killed = time.monotonic()
    server, migration = _check_settled(dep, uuid, step)
    settled = time.monotonic()
    print('killed at %s after %.1fs; restarted, settled (%s) and checked '
          'in %.1fs' % (step, killed - start, migration['status'],
                        settled - killed))
    migrations = [migration['uuid']]

    # Still usable: a completed resize is confirmed; a rolled-back one
    # resizes again (to cell2) and is confirmed there.
    if ends == 'source' and action == 'resize':
        _act(dep, uuid, 'resize', {'flavorRef': 'xk.2'})
        moved = _wait(dep, [uuid], 'VERIFY_RESIZE')[uuid]
        assert xcell._cell(moved) == 'cell2'
        migrations.append(_migration(dep, uuid)['uuid'])
    if action == 'resize':
        _act(dep, uuid, 'confirmResize')
        done = _wait(dep, [uuid], 'ACTIVE')[uuid]
        assert xcell._cell(done) == 'cell2'
        assert _visible_copies(dep, uuid) == {
            'cell2': [done['OS-EXT-SRV-ATTR:host']]}
        assert _held(dep, uuid) == {
            done['OS-EXT-SRV-ATTR:host']: _flavor('xk.2', step)}
        assert _held(dep, migrations[-1]) == {}

    # Deleted; test_deleted_servers_leave_nothing waits for them all.
    status, _ = deployed.api(dep, 'DELETE', '/servers/%s' % uuid)
    assert status == 204
    DELETED[uuid] = migrations


def test_deleted_servers_leave_nothing(fleet):
    """Every server the steps deleted is gone from the API and both
    cells, with no allocation left for it or its migrations."""
    dep, _ = fleet
    assert DELETED

    def gone():
        return all(deployed.api(dep, 'GET', '/servers/%s' % uuid)[0] == 404
                   for uuid in DELETED)
    wait_for(gone, 60, interval=0.2, message='deleted servers gone')
    consumers = list(DELETED) + [m for ms in DELETED.values() for m in ms]
    wait_for(lambda: deployed._allocations(dep, consumers) == 0, 30,
             interval=0.2, message='allocations freed')
    for uuid in DELETED:
        assert _visible_copies(dep, uuid) == {}
        assert _guests(dep, uuid) == {}
        assert _attachments(dep, uuid) == []
    xcell._check_allocations(dep)
