"""The boot flow on a running plane (two cells, cell0): API create ->
super conductor -> scheduler (claim) -> cell compute, and delete, seen
in the databases the flow writes."""
import pytest

from nova_lite.compute.api import server_listing
from nova_lite.compute.api import servers as compute_servers
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.placement import allocations
from tests.functional.conftest import start_plane
from tests.functional.conftest import stop_plane
from tests.functional.conftest import wait_for

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'


@pytest.fixture
def plane(tmp_path, conf):
    p = start_plane(tmp_path / 'state', with_api=False)
    yield p
    stop_plane(p)


@pytest.fixture
def user():
    return nova_context.RequestContext(user_id='u1', project_id='p1',
                                       roles=['member'])


@pytest.fixture
def flavor(plane):
    admin = nova_context.get_admin_context()
    f = objects.Flavor(admin, name='small', flavorid='small', memory_mb=512,
                       vcpus=1, root_gb=1, ephemeral_gb=0, swap=0,
                       is_public=True)
    f.create()
    return f


def _find(plane, uuid):
    admin = nova_context.get_admin_context()
    mapping = objects.InstanceMapping.get_by_instance_uuid(admin, uuid)
    if mapping.cell_mapping is None:
        return None, None
    with nova_context.target_cell(admin, mapping.cell_mapping) as cctxt:
        try:
            return mapping.cell_mapping, objects.Instance.get_by_uuid(
                cctxt, uuid, read_deleted='yes')
        except exception.InstanceNotFound:
            return mapping.cell_mapping, None


def _wait_state(plane, uuid, vm_state):
    def ready():
        cell, inst = _find(plane, uuid)
        return inst if inst is not None and inst.vm_state == vm_state \
            and inst.task_state is None else None
    return wait_for(ready, timeout=15, message='%s %s' % (uuid, vm_state))


def test_boot_goes_active_in_a_cell_with_its_claim_and_port(plane, user,
                                                            flavor):
    instances, resv = compute_servers.create(
        user, flavor.flavorid, IMAGE, 'web', requested_networks='auto')
    uuid = instances[0].uuid
    inst = _wait_state(plane, uuid, 'active')
    assert inst.power_state == 1
    assert inst.host.startswith(('cell1-', 'cell2-'))
    assert inst.flavor.memory_mb == 512
    assert inst.network_info[0]['network']['label'] == 'private'
    admin = nova_context.get_admin_context()
    held = allocations.get_allocations(admin, uuid)
    assert list(held.values()) == [{'VCPU': 1, 'MEMORY_MB': 512,
                                    'DISK_GB': 1}]
    with pytest.raises(exception.BuildRequestNotFound):
        objects.BuildRequest.get_by_instance_uuid(admin, uuid)

    compute_servers.delete(user, uuid)
    wait_for(lambda: _find(plane, uuid)[1].deleted, timeout=15,
             message='deleted')
    assert allocations.get_allocations(admin, uuid) == {}


def test_no_valid_host_buries_the_server_in_cell0(plane, user):
    admin = nova_context.get_admin_context()
    huge = objects.Flavor(admin, name='huge', flavorid='huge',
                          memory_mb=10 ** 7, vcpus=1, root_gb=1,
                          ephemeral_gb=0, swap=0, is_public=True)
    huge.create()
    instances, _ = compute_servers.create(user, 'huge', IMAGE, 'big',
                                          requested_networks='none')
    uuid = instances[0].uuid

    def buried():
        cell, inst = _find(plane, uuid)
        return inst if cell is not None and cell.is_cell0() else None
    inst = wait_for(buried, timeout=15, message='cell0')
    assert inst.vm_state == 'error'
    compute_servers.delete(user, uuid)
    assert _find(plane, uuid)[1].deleted


def _ports(uuid):
    from nova_lite.network import api as network_api
    return network_api.API().get_ports(nova_context.get_admin_context(),
                                       device_id=uuid)


def test_spawn_failure_reschedules_to_an_alternate_in_the_cell(
        plane, user, flavor, conf):
    # Spawns fail on the first compute of each cell. The first server
    # lands anywhere; once it holds a claim, the failing hosts weigh
    # the most (their claims were freed), so the second server's
    # primary is one of them and only a reschedule makes it ACTIVE.
    conf.set_override('fail_spawn_on_hosts',
                      ['cell1-compute1', 'cell2-compute1'],
                      group='fake_driver')
    admin = nova_context.get_admin_context()
    for name in ('retry-1', 'retry-2'):
        instances, _ = compute_servers.create(user, flavor.flavorid, IMAGE,
                                              name,
                                              requested_networks='auto')
        uuid = instances[0].uuid
        inst = _wait_state(plane, uuid, 'active')
        assert inst.host.endswith('-compute2')
        held = allocations.get_allocations(admin, uuid)
        assert len(held) == 1 and list(held.values())[0]['MEMORY_MB'] == 512
        assert len(_ports(uuid)) == 1


def test_every_alternate_failing_ends_in_error_with_a_fault(
        plane, user, flavor, conf):
    conf.set_override('fail_spawn_for_names', ['doomed'],
                      group='fake_driver')
    instances, _ = compute_servers.create(user, flavor.flavorid, IMAGE,
                                          'doomed', requested_networks='auto')
    uuid = instances[0].uuid
    inst = _wait_state(plane, uuid, 'error')
    admin = nova_context.get_admin_context()
    assert allocations.get_allocations(admin, uuid) == {}
    assert _ports(uuid) == []
    cell, _ = _find(plane, uuid)
    from nova_lite.db.main import instances as instances_db
    with nova_context.target_cell(admin, cell) as cctxt:
        rec = instances_db.get_record(cctxt, uuid)
    assert 'Exceeded maximum number of retries' in rec['fault']['message']
    assert inst.host is None


def test_delete_while_spawning_leaves_nothing_behind(plane, user, flavor,
                                                     conf):
    conf.set_override('spawn_delay', 1.0, group='fake_driver')
    instances, _ = compute_servers.create(user, flavor.flavorid, IMAGE,
                                          'slow', requested_networks='auto')
    uuid = instances[0].uuid
    wait_for(lambda: (_find(plane, uuid)[1] or objects.Instance(
        task_state=None)).task_state == 'spawning', timeout=10,
        message='spawning')
    compute_servers.delete(user, uuid)
    wait_for(lambda: _find(plane, uuid)[1].deleted, timeout=15,
             message='deleted')
    admin = nova_context.get_admin_context()
    wait_for(lambda: allocations.get_allocations(admin, uuid) == {},
             message='allocations freed')
    assert _ports(uuid) == []


def test_delete_before_scheduling_creates_nothing(plane, user, flavor):
    instances, _ = compute_servers.create(user, flavor.flavorid, IMAGE,
                                          'gone', requested_networks='auto',
                                          max_count=3, min_count=3)
    for inst in instances:
        compute_servers.delete(user, inst.uuid)
    admin = nova_context.get_admin_context()

    def settled():
        return all(allocations.get_allocations(admin, i.uuid) == {}
                   and (_find(plane, i.uuid)[1] is None
                        or _find(plane, i.uuid)[1].deleted)
                   for i in instances)
    # The conductor may already be scheduling: give it time to undo.
    import time
    time.sleep(1.0)
    wait_for(settled, message='nothing left')
    for inst in instances:
        assert _ports(inst.uuid) == []


def _fast_heartbeats(conf, spawn_delay):
    """Heartbeats every second, a compute down after two, and a spawn
    long enough to act on the compute while it runs."""
    conf.set_override('periodic_interval', 1)
    conf.set_override('report_interval', 1)
    conf.set_override('service_down_time', 2)
    conf.set_override('spawn_delay', spawn_delay, group='fake_driver')


def _spawning(p, user, name, timeout):
    """The instance of a new networked build on plane p, once spawning."""
    admin = nova_context.get_admin_context()
    objects.Flavor(admin, name='small', flavorid='small', memory_mb=512,
                   vcpus=1, root_gb=1, ephemeral_gb=0, swap=0,
                   is_public=True).create()
    instances, _ = compute_servers.create(
        user, 'small', IMAGE, name, requested_networks='auto')
    uuid = instances[0].uuid
    return wait_for(lambda: (lambda i: i if i is not None
                             and i.task_state == 'spawning' else None)(
        _find(p, uuid)[1]), timeout=timeout, message='spawning')


def test_build_on_a_compute_that_dies_ends_in_error(tmp_path, conf, user):
    _fast_heartbeats(conf, 6.0)
    p = start_plane(tmp_path / 'dies', with_api=False)
    try:
        admin = nova_context.get_admin_context()
        inst = _spawning(p, user, 'orphan', timeout=10)
        uuid = inst.uuid
        # The compute goes down (forced down: as if its heartbeats had
        # stopped) while its spawn still runs.
        cell, _ = _find(p, uuid)
        with nova_context.target_cell(admin, cell) as cctxt:
            svc = [s for s in objects.ServiceList.get_by_host(
                cctxt, inst.host) if s.binary == 'nova-compute'][0]
            svc.forced_down = True
            svc.save()
        inst = _wait_state(p, uuid, 'error')
        wait_for(lambda: allocations.get_allocations(admin, uuid) == {}
                 and _ports(uuid) == [], message='claim and port freed')
        # No host holds it any more (placement check_allocations agrees).
        assert (inst.host, inst.node) == (None, None)
    finally:
        stop_plane(p)


def test_build_goes_on_while_its_compute_heartbeat_is_late(tmp_path, conf,
                                                          user):
    """A compute whose heartbeat is late but which answers its cell
    conductor's ping keeps its builds (a conductor or an all-in-one
    process that fell behind -- starved, or paused -- sees every
    heartbeat late): the build ends ACTIVE, not in ERROR."""
    # A spawn long enough for the conductor to find the heartbeat late
    # while the guest spawns, on a loaded machine too.
    _fast_heartbeats(conf, 10.0)
    p = start_plane(tmp_path / 'late', with_api=False)
    try:
        admin = nova_context.get_admin_context()
        inst = _spawning(p, user, 'late', timeout=60)
        uuid = inst.uuid
        compute = [s for s in p.services if s.binary == 'nova-compute'
                   and s.host == inst.host][0]
        # Its heartbeats stop reaching the database (test machinery);
        # it still takes its messages.
        compute.report_state = lambda: None
        cell, _ = _find(p, uuid)
        with nova_context.target_cell(admin, cell) as cctxt:
            wait_for(lambda: not [
                s for s in objects.ServiceList.get_by_host(
                    cctxt, inst.host) if s.binary == 'nova-compute'][
                0].is_up(), timeout=60, message='heartbeat late')
        active = wait_for(lambda: (lambda i: i if i is not None and i.vm_state
                                   in ('active', 'error') else None)(
            _find(p, uuid)[1]), timeout=60, message='build ended')
        assert (active.vm_state, active.task_state) == ('active', None)
        assert active.host == inst.host
        assert allocations.get_allocations(admin, uuid) != {}
    finally:
        stop_plane(p)


def test_delete_with_its_compute_down_is_done_by_the_api(plane, user,
                                                         flavor):
    instances, _ = compute_servers.create(user, flavor.flavorid, IMAGE,
                                          'stranded',
                                          requested_networks='auto')
    uuid = instances[0].uuid
    inst = _wait_state(plane, uuid, 'active')
    admin = nova_context.get_admin_context()
    cell, _ = _find(plane, uuid)
    with nova_context.target_cell(admin, cell) as cctxt:
        svc = [s for s in objects.ServiceList.get_by_host(cctxt, inst.host)
               if s.binary == 'nova-compute'][0]
        svc.forced_down = True
        svc.save()
    compute_servers.delete(user, uuid)
    # Done in the call itself: no compute involved.
    assert _find(plane, uuid)[1].deleted
    assert allocations.get_allocations(admin, uuid) == {}
    assert _ports(uuid) == []


def test_no_answer_from_the_scheduler_buries_the_server_in_cell0(
        tmp_path, conf, user):
    """A scheduler that does not answer within long_rpc_timeout leaves no
    server in BUILD: ERROR in cell0 with the timeout as its fault."""
    conf.set_override('long_rpc_timeout', 1)
    p = start_plane(tmp_path / 'noscheduler', with_api=False)
    try:
        admin = nova_context.get_admin_context()
        objects.Flavor(admin, name='small', flavorid='small', memory_mb=512,
                       vcpus=1, root_gb=1, ephemeral_gb=0, swap=0,
                       is_public=True).create()
        scheduler = [s for s in p.services
                     if s.binary == 'nova-scheduler'][0]
        scheduler.stop()
        instances, _ = compute_servers.create(
            user, 'small', IMAGE, 'unscheduled', requested_networks='none',
            min_count=2, max_count=2)

        def buried(uuid):
            cell, inst = _find(p, uuid)
            return inst if cell is not None and cell.is_cell0() else None
        for inst in instances:
            found = wait_for(lambda: buried(inst.uuid), timeout=15,
                             message='cell0')
            assert found.vm_state == 'error'
            fault = server_listing.get(admin, inst.uuid).fault
            assert 'MessagingTimeout' in fault['message']
            assert allocations.get_allocations(admin, inst.uuid) == {}
    finally:
        stop_plane(p)
