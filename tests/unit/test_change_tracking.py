"""Our objects' change tracking (objects.base.FastFieldsMixin) answers
as oslo.versionedobjects' own does, and the conductor's object_action
reports back every change a remote method makes, in place or not."""
from oslo_versionedobjects import base as ovo_base
import pytest

from nova_lite.conductor import manager as conductor_manager
from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite.objects import embedded_flavor

objects.register_all()


def _instance():
    inst = objects.Instance(
        uuid='9f3c3ad0-5d0b-4b61-9a43-0d1f4ddc3b83', host='h1',
        vm_state='active', task_state=None, metadata={'a': '1'},
        system_metadata={}, tags=['x'],
        flavor=embedded_flavor.EmbeddedFlavor(
            id=1, flavorid='f1', name='f1', memory_mb=64, vcpus=1, root_gb=1,
            ephemeral_gb=0, swap=0, extra_specs={}))
    inst.obj_reset_changes(recursive=True)
    return inst


def _ovo_what_changed(obj):
    return ovo_base.VersionedObject.obj_what_changed(obj)


def test_what_changed_matches_ovo_for_own_and_nested_changes():
    inst = _instance()
    assert inst.obj_what_changed() == _ovo_what_changed(inst) == set()
    inst.task_state = 'powering-off'
    inst.flavor.memory_mb = 128      # a change inside a nested object
    assert inst.obj_what_changed() == _ovo_what_changed(inst) == {
        'task_state', 'flavor'}
    inst.obj_reset_changes(recursive=True)
    assert inst.obj_what_changed() == set()


def test_attr_is_set_matches_ovo_and_refuses_unknown_names():
    inst = objects.Instance(uuid='9f3c3ad0-5d0b-4b61-9a43-0d1f4ddc3b83')
    for name in ('uuid', 'host', 'flavor'):
        assert inst.obj_attr_is_set(name) == \
            ovo_base.VersionedObject.obj_attr_is_set(inst, name)
    with pytest.raises(AttributeError):
        inst.obj_attr_is_set('no_such_field')


def test_obj_fields_keeps_order_and_answers_membership():
    inst = objects.Instance()
    names = inst.obj_fields
    assert list(names) == list(objects.Instance.fields) + list(
        objects.Instance.obj_extra_fields)
    assert 'uuid' in names and 'no_such_field' not in names


def test_reset_all_equals_ovo_recursive_reset():
    # instance._reset_all skips ovo's walk for nested objects: it must
    # know every object-valued field of Instance, and the snapshots
    # must hold none of their own.
    from nova_lite.objects import instance as inst_mod
    from oslo_versionedobjects import fields as ovo_fields
    nested = {name for name, field in objects.Instance.fields.items()
              if isinstance(field, (ovo_fields.ObjectField,
                                    ovo_fields.ListOfObjectsField))}
    assert nested == set(inst_mod._FLAVOR_FIELDS)
    assert not [name for name, field in
                embedded_flavor.EmbeddedFlavor.fields.items()
                if isinstance(field, (ovo_fields.ObjectField,
                                      ovo_fields.ListOfObjectsField))]
    inst = _instance()
    inst.task_state = 'powering-off'
    inst.flavor.memory_mb = 128
    inst.old_flavor = None
    inst_mod._reset_all(inst)
    assert inst.obj_what_changed() == _ovo_what_changed(inst) == set()
    assert inst.flavor.obj_what_changed() == set()


def test_object_action_reports_in_place_and_replaced_changes(monkeypatch):
    inst = _instance()
    inst._context = nova_context.get_admin_context()

    def fake_save(self):
        self.metadata['b'] = '2'        # in place
        self.tags.append('y')           # in place
        self.flavor.memory_mb = 256     # inside a nested object
        self.host = 'h2'                # replaced
        self.obj_reset_changes(recursive=True)

    monkeypatch.setattr(objects.Instance, 'save',
                        lambda self, *a, **k: fake_save(self))
    updates, _ = conductor_manager.ConductorManager().object_action(
        inst._context, inst, 'save', (), {})
    assert set(updates) - {'obj_what_changed'} == {
        'metadata', 'tags', 'flavor', 'host'}
    assert updates['metadata'] == {'a': '1', 'b': '2'}
    assert updates['host'] == 'h2'
