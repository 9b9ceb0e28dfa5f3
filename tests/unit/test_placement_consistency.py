"""consistency._Checker: what each instance and migration should hold,
judged on rows as one cell's read returns them (no database)."""
from oslo_serialization import jsonutils

from nova_lite import objects
from nova_lite.placement import consistency

SRC, DST = 'node-src-uuid', 'node-dst-uuid'
NODES = {('h1', 'h1'): SRC, ('h2', 'h2'): DST}


def _flavor(name, ram, vcpus, disk=1, swap=0):
    return objects.EmbeddedFlavor(
        id=1, flavorid=name, name=name, memory_mb=ram, vcpus=vcpus,
        root_gb=disk, ephemeral_gb=0, swap=swap, extra_specs={})


SMALL, BIG = _flavor('small', 256, 1), _flavor('big', 512, 2, swap=1500)
SMALL_RES = {'VCPU': 1, 'MEMORY_MB': 256, 'DISK_GB': 1}
BIG_RES = {'VCPU': 2, 'MEMORY_MB': 512, 'DISK_GB': 3}   # swap rounds up


def _instance(uuid='i1', host='h1', vm_state='active', task_state=None,
              cur=SMALL, old=None, volume_backed=False):
    return {'uuid': uuid, 'host': host, 'node': host, 'vm_state': vm_state,
            'task_state': task_state, 'volume_backed': volume_backed,
            'flavor': jsonutils.dumps({
                'cur': cur.obj_to_primitive(),
                'old': old and old.obj_to_primitive(), 'new': None})}


def _migration(status, uuid='m1', instance='i1', mid=1, hidden=False):
    return {'id': mid, 'uuid': uuid, 'instance_uuid': instance,
            'status': status, 'source_compute': 'h1', 'source_node': 'h1',
            'dest_compute': 'h2', 'dest_node': 'h2', 'hidden': hidden}


def _problems(held, instances, migrations):
    checker = consistency._Checker(held)
    checker.cell(instances, migrations, NODES)
    return sorted((p.kind, p.consumer) for p in checker.problems), checker


def test_instance_holds_its_flavor_on_its_node():
    assert _problems({'i1': {SRC: SMALL_RES}}, [_instance()], [])[0] == []
    assert _problems({'i1': {DST: SMALL_RES}}, [_instance()], [])[0] == [
        ('mismatch', 'i1')]
    assert _problems({}, [_instance()], [])[0] == [('mismatch', 'i1')]


def test_verify_resize_new_flavor_on_dest_old_on_source_in_migration():
    resized = _instance(host='h2', vm_state='resized', cur=BIG, old=SMALL)
    held = {'i1': {DST: BIG_RES}, 'm1': {SRC: SMALL_RES}}
    assert _problems(held, [resized], [_migration('finished')])[0] == []
    held['m1'] = {SRC: BIG_RES}
    assert _problems(held, [resized], [_migration('finished')])[0] == [
        ('mismatch', 'm1')]
    # VERIFY_RESIZE with no finished migration is itself a problem.
    assert ('mismatch', 'i1') in _problems(
        {'i1': {DST: BIG_RES}}, [resized], [])[0]


def test_migrations_that_are_over_hold_nothing():
    held = {'i1': {SRC: SMALL_RES}, 'm1': {SRC: SMALL_RES}}
    for status in ('confirmed', 'reverted', 'error'):
        assert _problems(held, [_instance()], [_migration(status)])[0] == [
            ('leaked_migration', 'm1')]
    assert _problems({'i1': held['i1']}, [_instance()],
                     [_migration('confirmed')])[0] == []


def test_stale_and_busy():
    held = {'i1': {SRC: SMALL_RES}}
    assert _problems(held, [_instance()], [_migration('migrating')])[0] == [
        ('stale_migration', 'm1')]
    busy = _instance(task_state='resize_migrating')
    problems, checker = _problems({}, [busy], [_migration('migrating')])
    assert problems == [] and checker.busy == 1
    # A confirm in flight (no task state, as in Nova) is busy too.
    resized = _instance(host='h2', vm_state='resized', cur=BIG, old=SMALL)
    problems, checker = _problems({}, [resized], [_migration('confirming')])
    assert problems == [] and checker.busy == 1


def test_migrations_of_deleted_instances_only_matter_when_holding():
    assert _problems({}, [], [_migration('migrating')])[0] == []
    assert _problems({'m1': {SRC: SMALL_RES}}, [],
                     [_migration('finished')])[0] == [
        ('leaked_migration', 'm1')]


def test_instance_without_host_holds_nothing():
    assert _problems({}, [_instance(host=None)], [])[0] == []
    assert _problems({'i1': {SRC: SMALL_RES}}, [_instance(host=None)],
                     [])[0] == [('mismatch', 'i1')]


def test_volume_backed_root_disk_is_not_claimed():
    server = _instance(volume_backed=True)
    no_disk = {rc: n for rc, n in SMALL_RES.items() if rc != 'DISK_GB'}
    assert _problems({'i1': {SRC: no_disk}}, [server], [])[0] == []
    assert _problems({'i1': {SRC: SMALL_RES}}, [server], [])[0] == [
        ('mismatch', 'i1')]


def test_a_cross_cell_move_is_checked_once_across_its_cells():
    """VERIFY_RESIZE after a cross-cell resize: the instance visible in
    the target cell (its source copy hidden: not read), the migration in
    both cells (hidden in the source), the source node in the other
    cell."""
    resized = _instance(host='h2', vm_state='resized', cur=BIG, old=SMALL)
    source_cell = ([], [_migration('finished', mid=7, hidden=True)],
                   {('h1', 'h1'): SRC})
    target_cell = ([resized], [_migration('finished', mid=1)],
                   {('h2', 'h2'): DST})
    instances, migrations, nodes = consistency._merged(
        [source_cell, target_cell])
    assert [m['hidden'] for m in migrations] == [False]
    held = {'i1': {DST: BIG_RES}, 'm1': {SRC: SMALL_RES}}
    checker = consistency._Checker(held)
    checker.cell(instances, migrations, nodes)
    assert checker.problems == []
    checker = consistency._Checker(dict(held, m1={}))
    checker.cell(instances, migrations, nodes)
    assert [(p.kind, p.consumer) for p in checker.problems] == [
        ('mismatch', 'm1')]
