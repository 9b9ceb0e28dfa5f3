"""Instance objects on a cell database: create with the flavor copy and
related rows, compare-and-swap saves, soft and hard delete."""
import datetime

import pytest
import sqlalchemy as sa

from nova_lite import context as nova_context
from nova_lite.db.main import api as main_db
from nova_lite.db.main import instance_pages
from nova_lite import exception
from nova_lite import objects

UUID = '8e1fc4a5-7f35-4b4e-9d48-2f8b6f4f8f01'


@pytest.fixture
def cctxt(cells_env):
    with nova_context.target_cell(cells_env.ctxt,
                                  cells_env.cells['cell2']) as cctxt:
        yield cctxt


def _flavor(**kw):
    values = dict(id=7, flavorid='f7', name='m1.small', memory_mb=512,
                  vcpus=1, root_gb=1, ephemeral_gb=0, swap=0,
                  extra_specs={'hw:cpu_policy': 'shared'})
    values.update(kw)
    return objects.EmbeddedFlavor(**values)


def _create(cctxt, **kw):
    inst = objects.Instance(
        cctxt, uuid=UUID, project_id='p1', user_id='u1',
        display_name='vm', vm_state='building', task_state='scheduling',
        power_state=0, host='h1', node='h1', flavor=_flavor(),
        old_flavor=None, new_flavor=None, metadata={'a': '1'},
        system_metadata={'s': 'x'}, tags=['t1', 't2'],
        network_info=[{'id': 'port-1'}], keypairs=[], **kw)
    inst.create()
    return inst


def test_create_and_load_keeps_the_flavor_copy_and_related_rows(cctxt):
    _create(cctxt)
    inst = objects.Instance.get_by_uuid(cctxt, UUID)
    assert inst.flavor.extra_specs == {'hw:cpu_policy': 'shared'}
    assert inst.flavor.name == 'm1.small' and inst.old_flavor is None
    assert (inst.metadata, inst.system_metadata, inst.tags) == (
        {'a': '1'}, {'s': 'x'}, ['t1', 't2'])
    assert inst.network_info == [{'id': 'port-1'}]


def test_save_writes_only_in_the_expected_task_state(cctxt):
    inst = _create(cctxt)
    other = objects.Instance.get_by_uuid(cctxt, UUID)
    other.task_state = 'deleting'
    other.save()
    inst.task_state = 'networking'
    with pytest.raises(exception.UnexpectedDeletingTaskStateError):
        inst.save(expected_task_state=['scheduling'])
    assert objects.Instance.get_by_uuid(cctxt, UUID).task_state == \
        'deleting'
    inst = objects.Instance.get_by_uuid(cctxt, UUID)
    inst.vm_state = 'active'
    with pytest.raises(exception.InstanceInvalidState):
        inst.save(expected_vm_state=['error'])


def test_save_of_flavors_metadata_and_tags(cctxt):
    inst = _create(cctxt)
    inst.new_flavor = _flavor(id=8, flavorid='f8', memory_mb=1024)
    inst.metadata = {'b': '2'}
    inst.tags = ['t3']
    inst.save()
    again = objects.Instance.get_by_uuid(cctxt, UUID)
    assert again.new_flavor.memory_mb == 1024
    assert again.flavor.memory_mb == 512
    assert (again.metadata, again.tags) == ({'b': '2'}, ['t3'])


def test_destroy_is_soft_and_hard_delete_leaves_no_row(cctxt):
    inst = _create(cctxt)
    inst.add_fault(500, 'boom')
    inst.destroy()
    with pytest.raises(exception.InstanceNotFound):
        objects.Instance.get_by_uuid(cctxt, UUID)
    gone = objects.Instance.get_by_uuid(cctxt, UUID, read_deleted='yes')
    assert gone.deleted and gone.vm_state == 'deleted'
    gone.hard_delete()
    engine = main_db.get_engine(cctxt)
    with engine.connect() as conn:
        for table in ('instances', 'instance_extra', 'instance_info_caches',
                      'instance_metadata', 'instance_system_metadata',
                      'instance_faults', 'tags'):
            column = 'resource_id' if table == 'tags' else (
                'uuid' if table == 'instances' else 'instance_uuid')
            assert conn.execute(sa.text(
                'SELECT COUNT(*) FROM %s WHERE %s = :u' % (table, column)),
                {'u': UUID}).scalar() == 0, table


def test_list_records_pages_by_created_at_then_uuid(cctxt):
    base = datetime.datetime(2026, 1, 1)
    uuids = ['00000000-0000-4000-8000-%012d' % i for i in range(5)]
    for i, uuid in enumerate(uuids):
        # Two by two in the same second: uuid breaks the tie.
        objects.Instance(cctxt, uuid=uuid, project_id='p1',
                         display_name='vm%d' % i, vm_state='active',
                         flavor=_flavor(), created_at=base
                         + datetime.timedelta(seconds=i // 2)).create()
    page = instance_pages.list_records(cctxt, {}, ['created_at', 'uuid'],
                                     ['desc', 'desc'], limit=2)
    assert [r['uuid'] for r in page] == [uuids[4], uuids[3]]
    marker = {'created_at': page[-1]['created_at'], 'uuid': uuids[3]}
    rest = instance_pages.list_records(cctxt, {}, ['created_at', 'uuid'],
                                     ['desc', 'desc'], marker=marker)
    assert [r['uuid'] for r in rest] == [uuids[2], uuids[1], uuids[0]]


def test_build_requests_in_the_default_order_read_one_page(cells_env):
    """A list in the default order reads at most its page of build
    requests (newest first, after the marker), not every one."""
    from nova_lite.compute.api import server_records
    from nova_lite.objects import build_request as br_obj
    ctxt = cells_env.ctxt
    base = datetime.datetime(2026, 1, 1)
    requests = []
    for i in range(5):
        inst = objects.Instance(
            ctxt, uuid='00000000-0000-4000-8000-00000000000%d' % i,
            project_id='p1', user_id='u1', display_name='b%d' % i,
            vm_state='building', task_state='scheduling', flavor=_flavor(),
            created_at=base + datetime.timedelta(seconds=i))
        spec = objects.RequestSpec(
            instance_uuid=inst.uuid, project_id='p1', user_id='u1',
            flavor=_flavor(), image=None, num_instances=1,
            availability_zone=None, ignore_hosts=[],
            requested_destination=None, scheduler_hints=None)
        requests.append((objects.BuildRequest(
            ctxt, instance_uuid=inst.uuid, project_id='p1', user_id='u1',
            instance=inst, block_device_mappings=[], tags=[]), spec))
    br_obj.create_servers(ctxt, requests)
    keys, dirs = ['created_at', 'uuid'], ['desc', 'desc']
    page = server_records.build_request_records(
        ctxt, {'project_id': 'p1'}, keys, dirs, limit=2)
    assert [r['display_name'] for r in page] == ['b4', 'b3']
    rest = server_records.build_request_records(
        ctxt, {'project_id': 'p1'}, keys, dirs, limit=2, marker=page[-1])
    assert [r['display_name'] for r in rest] == ['b2', 'b1']
    # Another order: every build request, ordered by the caller.
    assert len(server_records.build_request_records(
        ctxt, {'project_id': 'p1'}, ['display_name', 'uuid'],
        ['asc', 'asc'], limit=2)) == 5


def _events(cctxt, request_id):
    action = objects.InstanceAction.get_by_request_id(cctxt, UUID,
                                                      request_id)
    return [(e.event, e.result, e.finish_time is not None) for e in
            objects.InstanceActionEventList.get_by_action(cctxt, action.id)]


def test_writes_inside_writing_commit_together_or_not_at_all(cctxt):
    inst = _create(cctxt)
    inst.locked = True
    with pytest.raises(RuntimeError):
        with main_db.writing(cctxt):
            inst.save()
            objects.InstanceAction.action_start(cctxt, UUID, 'lock',
                                                want_result=False)
            raise RuntimeError('between the writes and the commit')
    assert objects.Instance.get_by_uuid(cctxt, UUID).locked is False
    with pytest.raises(exception.InstanceActionNotFound):
        objects.InstanceAction.get_by_request_id(cctxt, UUID,
                                                 cctxt.request_id)
    inst = objects.Instance.get_by_uuid(cctxt, UUID)
    inst.locked = True
    with main_db.writing(cctxt):
        inst.save()
        objects.InstanceAction.action_start(cctxt, UUID, 'lock',
                                            want_result=False)
    assert objects.Instance.get_by_uuid(cctxt, UUID).locked is True
    assert objects.InstanceAction.get_by_request_id(
        cctxt, UUID, cctxt.request_id).action == 'lock'


def test_save_and_finish_event_writes_both_or_neither(cctxt):
    inst = _create(cctxt)
    objects.InstanceAction.action_start(cctxt, UUID, 'stop',
                                        want_result=False)
    objects.InstanceActionEvent.event_start(
        cctxt, UUID, 'compute_stop_instance', host='h1', want_result=False)
    # Refused save: the event stays open.
    other = objects.Instance.get_by_uuid(cctxt, UUID)
    other.task_state = 'deleting'
    other.save()
    inst.vm_state, inst.task_state = 'stopped', None
    with pytest.raises(exception.UnexpectedDeletingTaskStateError):
        inst.save_and_finish_event('compute_stop_instance', host='h1',
                                   expected_task_state=['powering-off'])
    assert _events(cctxt, cctxt.request_id) == [
        ('compute_stop_instance', None, False)]
    assert objects.Instance.get_by_uuid(cctxt, UUID).vm_state == 'building'
    # Accepted: the state and the finished event together.
    other.task_state = 'powering-off'
    other.save()
    inst = objects.Instance.get_by_uuid(cctxt, UUID)
    inst.vm_state, inst.task_state = 'stopped', None
    inst.save_and_finish_event('compute_stop_instance', host='h1',
                               expected_task_state=['powering-off'])
    assert _events(cctxt, cctxt.request_id) == [
        ('compute_stop_instance', 'Success', True)]
    saved = objects.Instance.get_by_uuid(cctxt, UUID)
    assert (saved.vm_state, saved.task_state) == ('stopped', None)
    assert inst.obj_what_changed() == set()
    # No action of this request: nothing is written.
    other_request = nova_context.RequestContext(
        user_id='u1', project_id='p1', is_admin=True)
    with nova_context.target_cell(other_request,
                                  objects.CellMapping.get_by_uuid(
                                      other_request, cctxt.cell_uuid)) as c:
        mine = objects.Instance.get_by_uuid(c, UUID)
        mine.display_name = 'renamed'
        with pytest.raises(exception.InstanceActionNotFound):
            mine.save_and_finish_event('compute_stop_instance')
    assert objects.Instance.get_by_uuid(cctxt, UUID).display_name == 'vm'
