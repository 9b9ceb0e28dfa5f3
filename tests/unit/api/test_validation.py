import pytest

from nova_lite.api.openstack.compute.schemas import hypervisors
from nova_lite.api.openstack.compute.schemas import services
from nova_lite.api.openstack import validation
from nova_lite import exception


def _message(schema, instance, what='body'):
    with pytest.raises(exception.ValidationError) as info:
        validation.validate(schema, instance, what)
    assert info.value.code == 400
    return info.value.format_message()


def test_valid_update_bodies_pass():
    for body in ({'status': 'enabled'}, {'forced_down': 'true'},
                 {'status': 'disabled', 'disabled_reason': 'x',
                  'forced_down': False}):
        validation.validate(services.service_update_v253, body)


def test_message_names_the_field():
    assert 'status' in _message(services.service_update_v253,
                                {'status': 'sleeping'})
    assert 'forced_down' in _message(services.service_update_v253,
                                     {'forced_down': 'maybe'})
    assert 'bogus' in _message(services.service_update_v253, {'bogus': 1})
    assert 'binary' in _message(services.service_update, {'host': 'h'})
    assert 'disabled_reason' in _message(
        services.service_update_v253, {'disabled_reason': 'x' * 300})


def test_body_must_be_an_object():
    _message(services.service_update_v253, ['status'])
    _message(services.service_update_v253, 'enabled')


def test_query_messages_name_the_parameter():
    msg = _message(hypervisors.index_query_v253, {'limit': ['abc']}, 'query')
    assert 'limit' in msg and 'query' in msg
    assert 'limit' in _message(hypervisors.index_query_v253,
                               {'limit': ['1', '2']}, 'query')
    validation.validate(hypervisors.index_query_v253,
                        {'limit': ['3'], 'marker': ['x']}, 'query')
    validation.validate(hypervisors.index_query_v233,
                        {'limit': ['3'], 'anything': ['x']}, 'query')


def test_boolean_strings_and_last_value():
    assert validation.to_bool('True') is True
    assert validation.to_bool('off') is False
    assert validation.last({'host': ['a', 'b']}, 'host') == 'b'
    assert validation.last({}, 'host', 'dflt') == 'dflt'


def test_migrate_before_256_takes_any_value_as_nova_does():
    from nova_lite.api.openstack.compute.schemas import server_resize
    for value in (None, {}, {'host': 'h'}, 1):
        validation.validate(server_resize.migrate, {'migrate': value})
    assert 'hots' in _message(server_resize.migrate_v256,
                              {'migrate': {'hots': 'h'}})
    assert 'x' in _message(server_resize.migrate, {'migrate': None, 'x': 1})
