"""nova_lite.network.api on the local-services database (SQLite): request
validation, allocation of fixed IPv4 addresses, idempotent allocation and
deallocation, and the shared 'private' network every plane ships."""
import uuid as uuid_lib

import eventlet
import pytest

from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite.network import api as network_api
from nova_lite.network import model

PRIVATE = network_api.DEFAULT_NETWORK['id']


def new_uuid():
    return str(uuid_lib.uuid4())


@pytest.fixture
def api():
    return network_api.API()


def addresses_of(info):
    return [ip for _label, _mac, ip, _v, _t in model.fixed_ips(info)]


def test_default_network_is_shared_private_10_0_0_0_24(api, user):
    nets = api.get_networks(user)
    assert [(n['name'], n['shared'], n['subnets'][0]['cidr'],
             n['subnets'][0]['gateway_ip']) for n in nets] == [
        ('private', True, '10.0.0.0/24', '10.0.0.1')]


def test_ensure_default_network_twice_keeps_one(api, admin):
    api.ensure_default_network(admin)
    api.ensure_default_network(admin)
    assert len(api.get_networks(admin)) == 1


def test_auto_allocates_lowest_free_address_on_shared_network(api, user):
    first, second = new_uuid(), new_uuid()
    info = api.allocate_for_instance(user, first, 'p1', 'auto', 'host1')
    assert addresses_of(info) == ['10.0.0.2']
    vif = info[0]
    assert vif['network']['label'] == 'private'
    assert vif['network']['id'] == PRIVATE
    assert vif['address'].startswith('fa:16:3e:')
    subnet = vif['network']['subnets'][0]
    assert subnet['cidr'] == '10.0.0.0/24'
    assert subnet['gateway']['address'] == '10.0.0.1'
    assert subnet['ips'][0] == {'address': '10.0.0.2', 'type': 'fixed',
                                'version': 4, 'floating_ips': []}
    info2 = api.allocate_for_instance(user, second, 'p1', 'auto', 'host1')
    assert addresses_of(info2) == ['10.0.0.3']
    # A freed address is the next one handed out.
    api.deallocate_for_instance(user, first)
    third = api.allocate_for_instance(user, new_uuid(), 'p1', 'auto', 'h')
    assert addresses_of(third) == ['10.0.0.2']


def test_none_allocates_nothing(api, user):
    assert api.validate_networks(user, 'none') == []
    assert api.allocate_for_instance(user, new_uuid(), 'p1', 'none',
                                     'h') == []


def test_allocate_twice_returns_the_same_ports(api, user):
    inst = new_uuid()
    info = api.allocate_for_instance(user, inst, 'p1', 'auto', 'host1')
    again = api.allocate_for_instance(user, inst, 'p1', 'auto', 'host1')
    assert again == info
    assert api.get_instance_nw_info(user, inst) == info
    assert len(api.get_ports(user, device_id=inst)) == 1


def test_deallocate_deletes_ports_and_is_idempotent(api, user):
    inst = new_uuid()
    api.allocate_for_instance(user, inst, 'p1', 'auto', 'host1')
    api.deallocate_for_instance(user, inst)
    api.deallocate_for_instance(user, inst)
    assert api.get_ports(user, device_id=inst) == []
    assert api.get_instance_nw_info(user, inst) == []


def test_project_network_wins_over_shared_for_auto(api, admin, user):
    own = api.create_network(admin, 'p1-net', '192.168.5.0/24',
                             project_id='p1')
    info = api.allocate_for_instance(user, new_uuid(), 'p1', 'auto', 'h')
    assert info[0]['network']['id'] == own['id']
    assert addresses_of(info) == ['192.168.5.2']
    assert info[0]['network']['subnets'][0]['gateway']['address'] == \
        '192.168.5.1'


def test_auto_with_two_project_networks_is_ambiguous(api, admin, user):
    api.create_network(admin, 'a', '192.168.5.0/24', project_id='p1')
    api.create_network(admin, 'b', '192.168.6.0/24', project_id='p1')
    with pytest.raises(exception.NetworkAmbiguous) as err:
        api.validate_networks(user, 'auto')
    assert err.value.code == 409


def test_auto_without_any_network_cannot_allocate(api, admin, cells_env):
    from nova_lite.db.local_services import api as ls_db
    with ls_db.get_engine().begin() as conn:
        conn.exec_driver_sql('DELETE FROM subnets')
        conn.exec_driver_sql('DELETE FROM networks')
    user = nova_context.RequestContext(user_id='u', project_id='p9')
    with pytest.raises(exception.UnableToAutoAllocateNetwork) as err:
        api.validate_networks(user, 'auto')
    assert err.value.code == 400
    # A request that names no network gets none.
    assert api.validate_networks(user, None) == []


def test_requested_network_and_fixed_ip(api, user):
    inst = new_uuid()
    requested = [{'uuid': PRIVATE, 'fixed_ip': '10.0.0.50'},
                 {'uuid': PRIVATE}]
    assert api.validate_networks(user, requested) == [
        {'network_id': PRIVATE, 'port_id': None, 'fixed_ip': '10.0.0.50'},
        {'network_id': PRIVATE, 'port_id': None, 'fixed_ip': None}]
    info = api.allocate_for_instance(user, inst, 'p1', requested, 'h')
    assert addresses_of(info) == ['10.0.0.50', '10.0.0.2']
    with pytest.raises(exception.FixedIpAlreadyInUse) as err:
        api.validate_networks(user, [{'uuid': PRIVATE,
                                      'fixed_ip': '10.0.0.50'}])
    assert err.value.code == 400
    assert inst in str(err.value)


@pytest.mark.parametrize('address', ['10.0.1.5', '10.0.0.1', '10.0.0.255',
                                     'not-an-ip'])
def test_fixed_ip_outside_subnet_or_gateway_is_invalid(api, user, address):
    with pytest.raises(exception.FixedIpInvalid):
        api.validate_networks(user, [{'uuid': PRIVATE,
                                      'fixed_ip': address}])


def test_unknown_or_foreign_network_is_not_found_400(api, admin, user):
    foreign = api.create_network(admin, 'p2-net', '192.168.7.0/24',
                                 project_id='p2')
    for net_id in (new_uuid(), foreign['id']):
        with pytest.raises(exception.NetworkNotFound) as err:
            api.validate_networks(user, [{'uuid': net_id}])
        assert err.value.code == 400
    # An admin may use any network.
    assert api.validate_networks(admin, [{'uuid': foreign['id']}])


def test_user_port_is_bound_then_unbound_not_deleted(api, user):
    port = api.create_port(user, PRIVATE)
    assert port['device_id'] == '' and port['status'] == 'DOWN'
    inst = new_uuid()
    info = api.allocate_for_instance(user, inst, 'p1',
                                     [{'port': port['id']}], 'host1')
    assert info[0]['id'] == port['id']
    assert info[0]['preserve_on_delete'] is True
    bound = api.get_ports(user, port_ids=[port['id']])[0]
    assert (bound['device_id'], bound['binding:host_id'],
            bound['status']) == (inst, 'host1', 'ACTIVE')
    with pytest.raises(exception.PortInUse) as err:
        api.validate_networks(user, [{'port': port['id']}])
    assert err.value.code == 409
    api.deallocate_for_instance(user, inst)
    freed = api.get_ports(user, port_ids=[port['id']])[0]
    assert (freed['device_id'], freed['status']) == ('', 'DOWN')


def test_unknown_or_foreign_port_is_not_found(api, user):
    other = nova_context.RequestContext(user_id='u2', project_id='p2')
    port = api.create_port(other, PRIVATE)
    for port_id in (new_uuid(), port['id']):
        with pytest.raises(exception.PortNotFound) as err:
            api.validate_networks(user, [{'port': port_id}])
        assert err.value.code == 400


def test_failed_request_allocates_nothing(api, user):
    inst = new_uuid()
    with pytest.raises(exception.NetworkNotFound):
        api.allocate_for_instance(user, inst, 'p1',
                                  [{'uuid': PRIVATE}, {'uuid': new_uuid()}],
                                  'h')
    assert api.get_ports(user, device_id=inst) == []


def test_exhausted_subnet_raises_no_more_fixed_ips(api, admin, user):
    net = api.create_network(admin, 'tiny', '192.168.9.0/30',
                             project_id='p1')
    api.allocate_for_instance(user, new_uuid(), 'p1', [{'uuid': net['id']}],
                              'h')
    with pytest.raises(exception.NoMoreFixedIps):
        api.allocate_for_instance(user, new_uuid(), 'p1',
                                  [{'uuid': net['id']}], 'h')


def test_concurrent_allocations_get_distinct_addresses(api, user):
    instances = [new_uuid() for _ in range(30)]
    pool = eventlet.GreenPool(10)
    infos = list(pool.imap(
        lambda inst: api.allocate_for_instance(user, inst, 'p1', 'auto',
                                               'h'), instances))
    got = [addresses_of(info)[0] for info in infos]
    assert len(set(got)) == 30
    assert sorted(got, key=lambda a: int(a.rsplit('.', 1)[1])) == [
        '10.0.0.%d' % i for i in range(2, 32)]


def test_addresses_render_like_the_compute_api(api, user):
    info = api.allocate_for_instance(user, new_uuid(), 'p1', 'auto', 'h')
    mac = info[0]['address']
    assert model.addresses(info) == {'private': [{
        'addr': '10.0.0.2', 'version': 4, 'OS-EXT-IPS:type': 'fixed',
        'OS-EXT-IPS-MAC:mac_addr': mac}]}
    assert model.addresses(info, extended=False) == {
        'private': [{'addr': '10.0.0.2', 'version': 4}]}
