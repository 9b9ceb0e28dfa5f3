"""EmbeddedFlavor: the flavor snapshot a server carries in instance_extra
round-trips through its JSON and never reads a database."""
import json

import pytest

from nova_lite.db.api import api as api_db
from nova_lite.db.main import api as main_db
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import embedded_flavor
from nova_lite.objects import flavor as flavor_obj

objects.register_all()


@pytest.fixture(autouse=True)
def no_database(monkeypatch):
    """Any database access raises, as in a cell with no API DB (and a
    compute with no DB at all)."""
    for db in (api_db, main_db):
        monkeypatch.setattr(db.DB, '_configured', False)
        monkeypatch.setattr(db.DB, '_disabled', True)


def _flavor(**kw):
    values = dict(id=7, flavorid='m1.small', name='m1.small', memory_mb=512,
                  vcpus=1, root_gb=1, ephemeral_gb=0, swap=0,
                  rxtx_factor=1.0, vcpu_weight=None, disabled=False,
                  is_public=False, description='small',
                  extra_specs={'hw:cpu_policy': 'dedicated'},
                  projects=['p1'])
    values.update(kw)
    return flavor_obj.Flavor(**values)


def test_the_fixture_really_forbids_database_access():
    with pytest.raises(RuntimeError):
        api_db.get_engine()
    with pytest.raises(RuntimeError):
        main_db.get_engine()


def test_snapshot_of_a_flavor_copies_what_servers_show_and_resize_needs():
    flavor = _flavor()
    snap = embedded_flavor.EmbeddedFlavor.from_flavor(flavor)
    assert (snap.id, snap.flavorid, snap.name, snap.memory_mb, snap.vcpus,
            snap.root_gb, snap.ephemeral_gb, snap.swap, snap.extra_specs) \
        == (7, 'm1.small', 'm1.small', 512, 1, 1, 0, 0,
            {'hw:cpu_policy': 'dedicated'})
    # A snapshot: later changes to the flavor do not reach it.
    flavor.extra_specs['hw:cpu_policy'] = 'shared'
    flavor.name = 'renamed'
    assert snap.extra_specs == {'hw:cpu_policy': 'dedicated'}
    assert snap.name == 'm1.small'


def test_snapshot_has_no_access_list_and_never_lazy_loads():
    snap = embedded_flavor.EmbeddedFlavor.from_flavor(_flavor())
    assert 'projects' not in snap.fields and 'is_public' not in snap.fields
    partial = embedded_flavor.EmbeddedFlavor(flavorid='x', vcpus=1)
    with pytest.raises(exception.ObjectActionError):
        partial.memory_mb
    with pytest.raises(exception.ObjectActionError):
        partial.extra_specs


def _unordered(primitive):
    return {key: sorted(value) if key.endswith('.changes') else value
            for key, value in primitive.items()}


def test_cur_old_new_round_trip_through_instance_extra_json():
    cur = embedded_flavor.EmbeddedFlavor.from_flavor(_flavor())
    new = embedded_flavor.EmbeddedFlavor.from_flavor(_flavor(
        id=8, flavorid='m1.big', name='m1.big', memory_mb=4096, vcpus=4,
        root_gb=40, ephemeral_gb=5, swap=1024, extra_specs={}))
    blob = embedded_flavor.to_json(cur, old=cur, new=new)
    stored = json.loads(blob)
    assert set(stored) == {'cur', 'old', 'new'}
    back = embedded_flavor.from_json(blob)
    for slot, expected in (('cur', cur), ('old', cur), ('new', new)):
        got = back[slot]
        assert isinstance(got, embedded_flavor.EmbeddedFlavor)
        # Changed fields are a set: their order in a primitive is not.
        assert _unordered(got.obj_to_primitive()) == _unordered(
            expected.obj_to_primitive())
    assert back['new'].swap == 1024 and back['new'].extra_specs == {}


def test_json_without_old_and_new():
    cur = embedded_flavor.EmbeddedFlavor.from_flavor(_flavor())
    back = embedded_flavor.from_json(embedded_flavor.to_json(cur))
    assert back['old'] is None and back['new'] is None
    assert back['cur'].flavorid == 'm1.small'
    assert embedded_flavor.from_json(None) == {'cur': None, 'old': None,
                                               'new': None}


def test_json_for_an_older_reader_is_backported():
    cur = embedded_flavor.EmbeddedFlavor.from_flavor(_flavor())
    stored = json.loads(embedded_flavor.to_json(cur, target_version='1.0'))
    assert stored['cur']['nova_lite_object.version'] == '1.0'
