"""Notification payloads and helpers, without a transport: what a
payload carries, when instance.update is due, and that nothing is sent
(or raised) without a driver."""
import datetime

from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite.notifications import base
from nova_lite.notifications import instance as notify
from nova_lite.notifications.objects import instance as payloads
from nova_lite import objects
from nova_lite.objects import embedded_flavor
from nova_lite.objects import instance as instance_obj
from nova_lite import rpc

NETWORK_INFO = [{'id': '0123456789abcdef', 'address': 'fa:16:3e:00:00:01',
                 'network': {'label': 'private', 'subnets': [
                     {'ips': [{'address': '10.0.0.3', 'version': 4}]},
                     {'ips': [{'address': 'fd00::3', 'version': 6}]}]}}]


def _instance(**values):
    fields = dict(
        id=7, uuid='178b0921-8f85-4257-88b6-2e743b5a975c', user_id='bob',
        project_id='project-a', display_name='web', vm_state='active',
        task_state=None, power_state=instance_obj.RUNNING, host='h1',
        image_ref='image-1', metadata={'role': 'web'}, tags=['t1'],
        locked=False, network_info=NETWORK_INFO,
        created_at=datetime.datetime(2026, 1, 1),
        flavor=embedded_flavor.EmbeddedFlavor(
            id=1, flavorid='small', name='m1.small', memory_mb=512,
            vcpus=1, root_gb=1, ephemeral_gb=0, swap=0,
            extra_specs={'hw:cpu_policy': 'shared'}))
    fields.update(values)
    return objects.Instance(**fields)


def _ctx():
    return nova_context.RequestContext(user_id='bob',
                                       project_id='project-a')


def test_create_payload_carries_nova_s_shape():
    primitive = payloads.InstanceCreatePayload(
        _ctx(), _instance()).obj_to_primitive()
    assert primitive['nova_object.name'] == 'InstanceCreatePayload'
    assert primitive['nova_object.namespace'] == 'nova'
    data = primitive['nova_object.data']
    assert data['tenant_id'] == 'project-a'
    assert data['state'] == 'active' and data['power_state'] == 'running'
    assert data['created_at'] == '2026-01-01T00:00:00Z'
    assert data['instance_name'] == 'instance-00000007'
    assert data['tags'] == ['t1'] and data['metadata'] == {'role': 'web'}
    assert data['flavor']['nova_object.data']['extra_specs'] == {
        'hw:cpu_policy': 'shared'}
    assert [ip['nova_object.data']['address'] for ip in
            data['ip_addresses']] == ['10.0.0.3', 'fd00::3']
    assert data['ip_addresses'][0]['nova_object.data']['device_name'] == \
        'tap0123456789a'
    assert data['action_initiator_user'] == 'bob'


def test_a_payload_is_sent_whole_with_no_changes_in_its_primitive():
    payload = payloads.InstanceActionPayload(_ctx(), _instance())
    payload.display_name = 'renamed'
    primitive = payload.obj_to_primitive()
    assert payload.obj_what_changed() == set()
    assert 'nova_object.changes' not in primitive
    assert 'nova_object.changes' not in primitive['nova_object.data'][
        'flavor']
    assert primitive['nova_object.data']['display_name'] == 'renamed'


def test_a_build_request_instance_with_few_fields_still_has_a_payload():
    bare = objects.Instance(uuid='178b0921-8f85-4257-88b6-2e743b5a975c',
                            vm_state='building')
    data = payloads.InstanceActionPayload(
        _ctx(), bare).obj_to_primitive()['nova_object.data']
    assert data['flavor'] is None and data['ip_addresses'] == []
    assert data['power_state'] == 'pending' and data['locked'] is False


def test_exception_payload_names_where_it_was_raised():
    try:
        raise ValueError('boom')
    except ValueError as exc:
        fault = payloads.ExceptionPayload.from_exception(exc)
    assert fault.exception == 'ValueError'
    assert fault.exception_message == 'boom'
    assert fault.function_name == \
        'test_exception_payload_names_where_it_was_raised'
    assert 'ValueError: boom' in fault.traceback


def test_event_type_strings():
    assert base.EventType(object='instance', action='create',
                          phase='end').to_notification_event_type_field() \
        == 'instance.create.end'
    assert base.EventType(object='instance', action='lock', phase=None
                          ).to_notification_event_type_field() == \
        'instance.lock'


def test_no_driver_means_no_notifier_and_helpers_never_raise(conf):
    conf.set_override('driver', [], group='oslo_messaging_notifications')
    assert rpc.get_notifier('nova-compute:h1') is None
    notify.notify_about_instance_action(_ctx(), _instance(), 'h1', 'pause',
                                        notify.START)
    notify.notify_about_instance_action(_ctx(), object(), 'h1', 'pause',
                                        notify.START)   # logged only


def test_instance_update_is_due_as_notify_on_state_change_says(
        conf, monkeypatch):
    conf.set_override('driver', ['messaging'],
                      group='oslo_messaging_notifications')
    sent = []
    monkeypatch.setattr(notify, 'notify_about_instance_update',
                        lambda ctx, inst, vm, task: sent.append((vm, task)))
    inst = _instance(vm_state='active', task_state=None)
    notify._state_changed(_ctx(), inst, 'active', 'powering-on')
    assert sent == []   # Nova's default: none
    conf.set_override('notify_on_state_change', 'vm_and_task_state',
                      group='notifications')
    notify._state_changed(_ctx(), inst, 'active', 'powering-on')
    conf.set_override('notify_on_state_change', 'vm_state',
                      group='notifications')
    notify._state_changed(_ctx(), inst, 'active', 'powering-on')
    notify._state_changed(_ctx(), inst, 'stopped', 'powering-on')
    conf.set_override('notify_on_state_change', 'none',
                      group='notifications')
    notify._state_changed(_ctx(), inst, 'stopped', 'powering-on')
    assert sent == [('active', 'powering-on'), ('stopped', 'powering-on')]
    # Nothing is due while no driver sends.
    conf.set_override('notify_on_state_change', 'vm_and_task_state',
                      group='notifications')
    for drivers in ([], ['noop']):
        conf.set_override('driver', drivers,
                          group='oslo_messaging_notifications')
        notify._state_changed(_ctx(), inst, 'stopped', 'powering-on')
    assert len(sent) == 2


def test_no_payload_is_built_unless_a_driver_sends(conf, monkeypatch):
    built = []

    class Payload(payloads.InstanceActionPayload):
        def __init__(self, *args, **kwargs):
            built.append(args)
            super().__init__(*args, **kwargs)
    monkeypatch.setattr(payloads, 'InstanceActionPayload', Payload)
    for drivers, fmt in (([], 'versioned'), (['noop'], 'both'),
                         (['messaging'], 'unversioned')):
        conf.set_override('driver', drivers,
                          group='oslo_messaging_notifications')
        conf.set_override('notification_format', fmt,
                          group='notifications')
        assert not base.enabled()
        with notify.action(_ctx(), _instance(), 'h1', 'power_off'):
            pass
    assert built == []
    conf.set_override('driver', ['log'], group='oslo_messaging_notifications')
    conf.set_override('notification_format', 'both', group='notifications')
    assert base.enabled()
    with notify.action(_ctx(), _instance(), 'h1', 'power_off'):
        pass
    assert len(built) == 2   # start and end


def test_notification_url_prefers_the_cell_of_the_context(conf):
    conf.set_override('transport_url', 'inproc://')
    cell = rpc.get_transport('inproc:///cell1')
    ctx = _ctx()
    ctx.mq_connection = cell
    try:
        assert rpc.notification_url(ctx) == 'inproc:///cell1'
        assert rpc.notification_url(_ctx()) == 'inproc://'
        conf.set_override('transport_url', 'inproc:///notify',
                          group='oslo_messaging_notifications')
        assert rpc.notification_url(ctx) == 'inproc:///notify'
    finally:
        rpc.cleanup()
    assert CONF.notifications.versioned_notifications_topics == [
        'versioned_notifications']
