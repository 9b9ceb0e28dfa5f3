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
    assert objects.RequestSpec.VERSION == '1.4'


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


def test_forced_host_round_trips_at_1_4_and_is_requested_for_1_3():
    spec = _spec(None)
    spec.force_hosts = ['cmp1']
    spec.force_nodes = ['n1']
    back = objects.RequestSpec.obj_from_primitive(spec.obj_to_primitive())
    assert (back.force_hosts, back.force_nodes) == (['cmp1'], ['n1'])
    old = spec.obj_to_primitive(target_version='1.3')['nova_lite_object.data']
    assert 'force_hosts' not in old and 'force_nodes' not in old
    assert old['requested_destination'] == {'host': 'cmp1', 'node': 'n1'}
    # A requested destination already there is kept as it is.
    spec = _spec({'cell_uuid': SOURCE, 'host': None})
    spec.force_hosts = ['cmp1']
    assert _dest_at(spec, '1.3') == {'cell_uuid': SOURCE, 'host': None}


def _from_a_newer_release(primitive, version, **new_fields):
    """primitive as a release whose RequestSpec is at version (with
    new_fields added) would have stored it."""
    primitive = dict(primitive, **{'nova_lite_object.version': version})
    primitive['nova_lite_object.data'] = dict(
        primitive['nova_lite_object.data'], **new_fields)
    primitive['nova_lite_object.changes'] = sorted(
        primitive['nova_lite_object.data'])
    return primitive


def test_a_spec_stored_by_a_newer_release_is_read():
    """A rolling upgrade: an upgraded API stored a RequestSpec 1.99 with a
    field this release does not know (and a flavor of a newer version
    inside it); this release's conductor reads it as its own newest
    version, the unknown fields dropped, the known ones kept."""
    import json

    spec = _spec(None)
    spec.flavor = objects.EmbeddedFlavor(
        id=1, flavorid='f', name='f', memory_mb=64, vcpus=1, root_gb=0,
        ephemeral_gb=0, swap=0, extra_specs={})
    primitive = spec.obj_to_primitive()
    data = primitive['nova_lite_object.data']
    data['flavor'] = _from_a_newer_release(
        data['flavor'], '1.99',
        shiny='new')
    newer = _from_a_newer_release(primitive, '1.99', future_hint=['x'])
    # ovo alone refuses it.
    try:
        objects.RequestSpec.obj_from_primitive(newer)
    except Exception as exc:
        assert 'IncompatibleObjectVersion' in type(exc).__name__
    else:
        raise AssertionError('ovo read a newer version')
    read = objects.RequestSpec.from_json(None, json.dumps(newer))
    assert read.VERSION == objects.RequestSpec.VERSION
    assert read.project_id == 'p' and read.ignore_hosts == ['src']
    assert read.flavor.flavorid == 'f' and read.flavor.memory_mb == 64
    assert 'future_hint' not in read.obj_fields
    assert 'shiny' not in read.flavor.obj_fields
    # Its own version and older ones read as before.
    assert objects.RequestSpec.from_json(
        None, json.dumps(spec.obj_to_primitive())).flavor.name == 'f'
    older = spec.obj_to_primitive(target_version='1.1')
    assert objects.RequestSpec.from_json(
        None, json.dumps(older)).project_id == 'p'
