"""Request bodies and query strings Nova 34 accepts (or refuses) at the
same microversion, validated with our own schemas: what
tools/schema_parity.py found different, kept fixed."""
import pytest

from nova_lite.api.openstack.compute.schemas import flavors
from nova_lite.api.openstack.compute.schemas import hypervisors
from nova_lite.api.openstack.compute.schemas import images
from nova_lite.api.openstack.compute.schemas import server_actions
from nova_lite.api.openstack.compute.schemas import server_images
from nova_lite.api.openstack.compute.schemas import server_resize
from nova_lite.api.openstack.compute.schemas import servers
from nova_lite.api.openstack.compute.schemas import services
from nova_lite.api.openstack.compute.schemas import volume_attachments
from nova_lite.api.openstack import validation
from nova_lite import exception

UUID = '6f1c3f9e-8b0a-4a5e-9a3e-2d4c5b6a7f80'


def _accepted(schema, instance, what='body'):
    validation.validate(schema, instance, what)


def _refused(schema, instance, what='body'):
    with pytest.raises(exception.ValidationError):
        validation.validate(schema, instance, what)


def _server(**fields):
    return {'server': dict({'name': 'vm', 'flavorRef': '1',
                            'imageRef': UUID, 'networks': 'none'},
                           **fields)}


def _flavor(**fields):
    return {'flavor': dict({'name': 'f', 'ram': 512, 'vcpus': 1,
                            'disk': 0}, **fields)}


# --- what Nova accepts and we used to refuse -------------------------------

@pytest.mark.parametrize('value', [None, {}, [], '', 1, {'a': 1}])
def test_argument_free_actions_take_any_value(value):
    for schema, name in ((server_actions.stop, 'os-stop'),
                         (server_actions.start, 'os-start'),
                         (server_actions.pause, 'pause'),
                         (server_resize.confirm_resize, 'confirmResize'),
                         (server_actions.lock, 'lock')):
        _accepted(schema, {name: value})


@pytest.mark.parametrize('user_data', [
    'aGVsbG8=\n',               # base64.encodebytes ends with a newline
    'aGVs\nbG8=',               # and breaks lines every 76 characters
    ' ',                        # nothing but skipped characters
])
def test_user_data_base64_with_line_breaks(user_data):
    _accepted(servers.create_v274, _server(user_data=user_data))
    _accepted(server_images.rebuild_v263,
              {'rebuild': {'imageRef': UUID, 'user_data': user_data}})


def test_uuid_forms_nova_takes():
    for value in (UUID.replace('-', ''), '{%s}' % UUID, UUID.upper(),
                  'urn:uuid:%s' % UUID):
        _accepted(servers.create_v274,
                  _server(networks=[{'port': value}]))
        _accepted(server_images.rebuild_v263,
                  {'rebuild': {'imageRef': value}})
        _accepted(volume_attachments.create_v279,
                  {'volumeAttachment': {'volumeId': value}})


def test_names_ending_with_one_line_feed():
    # Nova's name pattern ends with '$', which matches before a final
    # line feed.
    _accepted(servers.create_v274, _server(name='vm\n'))
    _accepted(servers.update_v219, {'server': {'description': '\n'}})
    _accepted(flavors.create_v255, _flavor(name='f\n', description='d\n'))


def test_rebuild_key_name_is_any_string_or_null():
    for key_name in (' key', 'key ', 'ünï', None):
        _accepted(server_images.rebuild_v254,
                  {'rebuild': {'imageRef': UUID, 'key_name': key_name}})


def test_service_host_and_binary():
    for host in ('-host', '.host', 'host_1'):
        _accepted(services.service_update,
                  {'host': host, 'binary': 'nova-compute'})
    _accepted(services.service_update,
              {'host': 'h', 'binary': 'nova compute'})
    _accepted(services.service_force_down,
              {'host': 'h', 'binary': 'nova-compute', 'forced_down': True,
               'disabled_reason': 'maintenance'})


def test_server_host_names_of_2_74():
    _accepted(servers.create_v274, _server(host='-h',
                                           hypervisor_hostname='.h'))


def test_locked_filter_reads_like_strutils():
    for value in ('t', 'Y', 'TrUe', ' no ', '0'):
        _accepted(servers.index_query_v275, {'locked': [value]}, 'query')


def test_underscore_parameters_pass_the_schema_from_2_75():
    _accepted(servers.index_query_v275, {'_internal': ['1']}, 'query')


def test_empty_image_ref_boots_from_volume():
    _accepted(servers.create_v274, _server(imageRef=''))


# --- what Nova refuses and we used to accept --------------------------------

@pytest.mark.parametrize('field,value', [
    ('ram', '0'), ('vcpus', '0'), ('disk', '-1'),
    ('ram', '2147483648'), ('swap', 2147483648),
    ('OS-FLV-EXT-DATA:ephemeral', '2147483648'),
])
def test_flavor_numbers_are_bounded_as_strings_too(field, value):
    _refused(flavors.create, _flavor(**{field: value}))


def test_server_counts_and_volume_sizes_are_bounded_as_strings_too():
    _refused(servers.create_v274, _server(min_count='0'))
    _refused(servers.create_v274, _server(block_device_mapping_v2=[
        {'source_type': 'volume', 'uuid': UUID, 'boot_index': 0,
         'destination_type': 'volume', 'volume_size': '2147483648'}]))
    _refused(servers.create_v274, _server(block_device_mapping_v2=[
        {'source_type': 'volume', 'uuid': UUID, 'boot_index': 0,
         'destination_type': 'volume', 'volume_size': None}]))


def test_server_description_is_255_characters():
    _accepted(servers.update_v219, {'server': {'description': 'd' * 255}})
    _refused(servers.update_v219, {'server': {'description': 'd' * 256}})
    _refused(servers.create_v274, _server(description='d' * 256))
    _refused(server_images.rebuild_v263,
             {'rebuild': {'imageRef': UUID, 'description': 'd' * 256}})
    # A flavor's description stays long.
    _accepted(flavors.update_v255, {'flavor': {'description': 'd' * 256}})


def test_characters_beyond_the_bmp_in_names():
    _refused(servers.create_v274, _server(name='smile \U0001F600'))


def test_update_access_ips_are_strings():
    _refused(servers.update_v219, {'server': {'accessIPv4': None}})
    _refused(servers.update_v219, {'server': {'accessIPv6': None}})


def test_image_ref_is_a_uuid_or_empty():
    for image_ref in (' ', 'x', 'http://glance/images/%s' % UUID):
        _refused(servers.create_v274, _server(imageRef=image_ref))


def test_scheduler_hints_known_keys_are_typed():
    for hints in ({'group': 'not-a-uuid'}, {'same_host': [1]},
                  {'cidr': '24'}, {'build_near_host_ip': 'x'}):
        _refused(servers.create_v274,
                 dict(_server(), **{'os:scheduler_hints': hints}))
    _accepted(servers.create_v274, dict(_server(), **{
        'os:scheduler_hints': {'group': UUID, 'same_host': [UUID],
                               'cidr': '/24', 'anything': 'else'}}))


def test_block_device_names_have_no_blanks():
    for name in ('', 'vd a'):
        _refused(servers.create_v274, _server(block_device_mapping_v2=[
            {'source_type': 'image', 'uuid': UUID, 'boot_index': 0,
             'destination_type': 'local', 'device_name': name}]))


def test_network_uuid_from_2_37():
    _refused(servers.create_v237, _server(networks=[{'uuid': 'x'}]))


def test_service_host_characters():
    _refused(services.service_update,
             {'host': 'a:b', 'binary': 'nova-compute'})
    _refused(hypervisors.index_query_v253,
             {'hypervisor_hostname_pattern': ['host 1']}, 'query')


def test_flavor_sort_dir_is_lower_case():
    _refused(flavors.index_query, {'sort_dir': ['ASC']}, 'query')
    _accepted(flavors.index_query, {'sort_dir': ['asc']}, 'query')


def test_image_paging_is_positive():
    for name in ('limit', 'page_size', 'offset'):
        _refused(images.index_query, {name: ['0']}, 'query')
        _accepted(images.index_query, {name: ['1']}, 'query')


def test_server_list_from_2_75_refuses_undeclared_filters_and_keys():
    for name in ('vm_mode', 'os_type', 'memory_mb', 'id'):
        _refused(servers.index_query_v275, {name: ['x']}, 'query')
        # Ignored, as before.
        _accepted(servers.index_query_v273, {name: ['x']}, 'query')
    _refused(servers.index_query_v275, {'sort_key': ['vm_mode']}, 'query')
    _accepted(servers.index_query_v275, {'sort_key': ['locked']}, 'query')


def test_server_list_pattern_filters_must_be_expressions():
    for value in ('', '['):
        _refused(servers.index_query_v275, {'name': [value]}, 'query')
    _accepted(servers.index_query_v275, {'name': ['^vm-.*']}, 'query')


@pytest.mark.parametrize('schema, networks, net_tag, bdm_tag', [
    (servers.create_v232, False, True, True),
    (servers.create_v233, False, True, False),
    (servers.create_v237, True, False, False),
    (servers.create_v242, True, True, True),
    (servers.create_v274, True, True, True),
], ids=['2.32', '2.33', '2.37', '2.42', '2.74'])
def test_device_tags_follow_novas_bands(schema, networks, net_tag, bdm_tag):
    """2.32: network and block device tags; 2.33-2.36: network tags only;
    2.37-2.41: neither; 2.42: both again (as Nova)."""
    bdm = {'source_type': 'image', 'destination_type': 'local',
           'uuid': UUID, 'boot_index': 0, 'tag': 't'}
    tagged_net = _server(networks=[{'uuid': UUID, 'tag': 't'}])
    tagged_bdm = _server(block_device_mapping_v2=[bdm])
    if not networks:     # before 2.37 there is no 'none'
        del tagged_bdm['server']['networks']
    (_accepted if net_tag else _refused)(schema, tagged_net)
    (_accepted if bdm_tag else _refused)(schema, tagged_bdm)


def test_service_actions_take_forced_down_from_211():
    """As Nova (one schema for every PUT /os-services/{action} then):
    forced_down is accepted, and ignored, by enable and disable."""
    body = {'host': 'h', 'binary': 'nova-compute', 'forced_down': True}
    _refused(services.service_update, body)
    _accepted(services.service_update_v211, body)
    _refused(services.service_update_v211, dict(body, forced_down='maybe'))
