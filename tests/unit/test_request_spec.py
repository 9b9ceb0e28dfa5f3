"""RequestSpec 1.2: a cross-cell requested_destination, and what an
older (1.1) scheduler reads instead: the source cell only."""
from nova_lite import objects

objects.register_all()

SOURCE = 'c0ffee00-0000-4000-8000-000000000001'


def _spec(dest):
    return objects.RequestSpec(
        instance_uuid='11111111-2222-4333-8444-555555555555',
        project_id='p', user_id='u', requested_destination=dest,
        ignore_hosts=['src'], is_bfv=False)


def _dest_at(spec, version):
    primitive = spec.obj_to_primitive(target_version=version)
    assert primitive['nova_lite_object.version'] == version
    return primitive['nova_lite_object.data'].get('requested_destination')


def test_cross_cell_destination_round_trips_at_1_2():
    dest = {'cell_uuid': None, 'host': None, 'allow_cross_cell_move': True,
            'source_cell_uuid': SOURCE}
    spec = _spec(dest)
    back = objects.RequestSpec.obj_from_primitive(spec.obj_to_primitive())
    assert back.requested_destination == dest
    assert objects.RequestSpec.VERSION == '1.3'


def test_backport_to_1_1_pins_the_source_cell():
    spec = _spec({'cell_uuid': None, 'host': None,
                  'allow_cross_cell_move': True,
                  'source_cell_uuid': SOURCE})
    assert _dest_at(spec, '1.1') == {'cell_uuid': SOURCE, 'host': None}
    # The object itself is untouched.
    assert spec.requested_destination['allow_cross_cell_move'] is True


def test_backport_keeps_the_admin_host():
    spec = _spec({'cell_uuid': None, 'host': 'cmp2',
                  'allow_cross_cell_move': True,
                  'source_cell_uuid': SOURCE})
    assert _dest_at(spec, '1.1') == {'cell_uuid': SOURCE, 'host': 'cmp2'}
    # 1.0 also drops is_bfv.
    primitive = spec.obj_to_primitive(target_version='1.0')
    assert 'is_bfv' not in primitive['nova_lite_object.data']
    assert primitive['nova_lite_object.data']['requested_destination'] == {
        'cell_uuid': SOURCE, 'host': 'cmp2'}


def test_same_cell_destinations_are_unchanged():
    for dest in (None, {'cell_uuid': SOURCE, 'host': None},
                 {'cell_uuid': SOURCE, 'host': 'cmp1', 'node': 'n1'}):
        assert _dest_at(_spec(dest), '1.1') == dest


def test_instance_group_round_trips_at_1_3_and_is_dropped_for_1_2():
    spec = _spec(None)
    spec.instance_group = objects.InstanceGroup(
        uuid='7e3c4b1a-5d2f-4c8e-9a0b-1f2e3d4c5b6a', name='g',
        policy='anti-affinity', rules={'max_server_per_host': 2},
        members=['m1'], hosts=['h1', 'h1'])
    back = objects.RequestSpec.obj_from_primitive(spec.obj_to_primitive())
    assert back.instance_group.hosts == ['h1', 'h1']
    assert back.instance_group.max_server_per_host == 2
    old = spec.obj_to_primitive(target_version='1.2')
    assert 'instance_group' not in old['nova_lite_object.data']
