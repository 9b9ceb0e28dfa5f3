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
    # The shared 'private' and the external 'public' (the floating IP
    # pool, which only administrators see as a network).
    nets = api.get_networks(admin)
    assert [(n['name'], n['shared'], n['external']) for n in nets] == [
        ('private', True, False), ('public', False, True)]
    assert api.get_floating_ip_pools(admin) == [
        {'id': network_api.PUBLIC_NETWORK_ID, 'name': 'public'}]


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


# --- port bindings (binding-extended) ---------------------------------------

class _GenericBindings(network_api.NetworkAPI):
    """The port-level methods of API under NetworkAPI's own
    instance-level forms (what a Neutron client would inherit)."""

    def __init__(self):
        self._api = network_api.API()

    def __getattr__(self, name):
        return getattr(self._api, name)

    def get_ports(self, *args, **kwargs):
        return self._api.get_ports(*args, **kwargs)

    def get_bindings(self, *args):
        return self._api.get_bindings(*args)

    def create_binding(self, *args, **kwargs):
        return self._api.create_binding(*args, **kwargs)

    def activate_binding(self, *args):
        return self._api.activate_binding(*args)

    def delete_binding(self, *args):
        return self._api.delete_binding(*args)


def _hosts(api, context, port_id):
    return sorted((b['host'], b['status'])
                  for b in api.get_bindings(context, port_id))


def test_a_booted_port_has_one_active_binding(api, user):
    inst = new_uuid()
    info = api.allocate_for_instance(user, inst, 'p1', 'auto', 'host1')
    port_id = info[0]['id']
    [binding] = api.get_bindings(user, port_id)
    assert binding == {'host': 'host1', 'status': 'ACTIVE',
                       'vif_type': 'bridge', 'vnic_type': 'normal',
                       'profile': {}, 'vif_details': {'bridge_name':
                                                      'br-int'}}
    api.deallocate_for_instance(user, inst)
    with pytest.raises(exception.PortNotFound):
        api.get_bindings(user, port_id)


def test_binding_lifecycle_like_neutron(api, user):
    inst = new_uuid()
    port_id = api.allocate_for_instance(user, inst, 'p1', 'auto',
                                        'src')[0]['id']
    made = api.create_binding(user, port_id, 'dst',
                              profile={'migrating_to': 'dst'})
    assert (made['host'], made['status'], made['profile']) == (
        'dst', 'INACTIVE', {'migrating_to': 'dst'})
    assert _hosts(api, user, port_id) == [('dst', 'INACTIVE'),
                                          ('src', 'ACTIVE')]
    # The port shows the ACTIVE binding's host.
    port = api.get_ports(user, port_ids=[port_id])[0]
    assert port['binding:host_id'] == 'src'
    with pytest.raises(exception.PortBindingAlreadyExists) as err:
        api.create_binding(user, port_id, 'dst')
    assert err.value.code == 409
    active = api.activate_binding(user, port_id, 'dst')
    assert (active['host'], active['status']) == ('dst', 'ACTIVE')
    assert _hosts(api, user, port_id) == [('dst', 'ACTIVE'),
                                          ('src', 'INACTIVE')]
    assert api.get_ports(user, port_ids=[port_id])[0][
        'binding:host_id'] == 'dst'
    with pytest.raises(exception.PortBindingAlreadyActive) as err:
        api.activate_binding(user, port_id, 'dst')
    assert err.value.code == 409
    api.delete_binding(user, port_id, 'src')
    assert _hosts(api, user, port_id) == [('dst', 'ACTIVE')]
    with pytest.raises(exception.PortBindingNotFound) as err:
        api.delete_binding(user, port_id, 'src')
    assert err.value.code == 404
    with pytest.raises(exception.PortBindingNotFound):
        api.activate_binding(user, port_id, 'src')
    # Deleting the ACTIVE binding leaves the port unbound.
    api.delete_binding(user, port_id, 'dst')
    assert api.get_bindings(user, port_id) == []
    assert api.get_ports(user, port_ids=[port_id])[0][
        'binding:host_id'] == ''
    # An unbound port's first binding is its ACTIVE one.
    assert api.create_binding(user, port_id, 'h3')['status'] == 'ACTIVE'
    assert api.get_ports(user, port_ids=[port_id])[0][
        'binding:host_id'] == 'h3'
    api.deallocate_for_instance(user, inst)
    with pytest.raises(exception.PortNotFound):
        api.create_binding(user, port_id, 'h4')


@pytest.mark.parametrize('impl', ['local', 'generic'])
def test_instance_bindings_of_a_move_are_idempotent(api, user, impl):
    api_ = api if impl == 'local' else _GenericBindings()
    inst = new_uuid()
    ports = [vif['id'] for vif in api.allocate_for_instance(
        user, inst, 'p1', [{'uuid': PRIVATE}, {'uuid': PRIVATE}], 'src')]

    def state():
        return {p: [(b['host'], b['status']) for b in bindings]
                for p, bindings in api_.get_instance_bindings(
                    user, inst).items()}

    src_only = {p: [('src', 'ACTIVE')] for p in ports}
    assert state() == src_only
    # Prep at the destination, twice (a rerun).
    for _ in range(2):
        made = api_.create_instance_bindings(user, inst, 'dst')
        assert sorted(made) == sorted(ports)
        assert {b['status'] for b in made.values()} == {'INACTIVE'}
        assert state() == {p: [('dst', 'INACTIVE'), ('src', 'ACTIVE')]
                           for p in ports}
    # Finish at the destination, twice.
    assert api_.activate_instance_bindings(user, inst, 'dst') == 2
    assert api_.activate_instance_bindings(user, inst, 'dst') == 0
    assert state() == {p: [('dst', 'ACTIVE'), ('src', 'INACTIVE')]
                       for p in ports}
    # A revert: the source ACTIVE again, the destination's gone.
    api_.activate_instance_bindings(user, inst, 'src')
    assert api_.delete_instance_bindings(user, inst, 'dst') == 2
    assert api_.delete_instance_bindings(user, inst, 'dst') == 0
    assert state() == src_only
    assert {p['binding:host_id'] for p in api.get_ports(
        user, device_id=inst)} == {'src'}
    # A confirm: the source's go, the destination's stays ACTIVE.
    api_.create_instance_bindings(user, inst, 'dst')
    api_.activate_instance_bindings(user, inst, 'dst')
    assert api_.delete_instance_bindings(user, inst, 'src') == 2
    assert api_.delete_instance_bindings(user, inst, 'src') == 0
    assert state() == {p: [('dst', 'ACTIVE')] for p in ports}
    # Activating where no binding was prepared makes one.
    api_.activate_instance_bindings(user, inst, 'third')
    assert state() == {p: [('dst', 'INACTIVE'), ('third', 'ACTIVE')]
                       for p in ports}
    api.deallocate_for_instance(user, inst)
    assert api_.get_instance_bindings(user, inst) == {}
    assert api_.create_instance_bindings(user, inst, 'dst') == {}
    assert api_.delete_instance_bindings(user, inst, 'dst') == 0


def test_a_port_bound_before_port_bindings_gets_its_active_row(
        api, user, admin):
    """A port with binding_host and no binding row (bound before the
    0003 migration) shows and moves as if its ACTIVE row were there."""
    import sqlalchemy as sa

    from nova_lite.db.local_services import api as ls_db
    from nova_lite.network import bindings

    inst = new_uuid()
    port_id = api.allocate_for_instance(user, inst, 'p1', 'auto',
                                        'old')[0]['id']

    @ls_db.writer
    def forget_rows(context):
        context.session.execute(bindings.BINDINGS.delete().where(
            bindings.BINDINGS.c.port_id == port_id))

    @ls_db.reader
    def rows(context):
        return sorted((r.host, r.status) for r in context.session.execute(
            sa.select(bindings.BINDINGS).where(
                bindings.BINDINGS.c.port_id == port_id)))

    forget_rows(admin)
    assert rows(admin) == []
    assert _hosts(api, user, port_id) == [('old', 'ACTIVE')]
    with pytest.raises(exception.PortBindingAlreadyActive):
        api.activate_binding(user, port_id, 'old')
    api.create_instance_bindings(user, inst, 'new')
    assert rows(admin) == [('new', 'INACTIVE'), ('old', 'ACTIVE')]
    api.deallocate_for_instance(user, inst)
    assert rows(admin) == []


def test_bind_ports_to_host_leaves_one_binding(api, user):
    inst = new_uuid()
    port_id = api.allocate_for_instance(user, inst, 'p1', 'auto',
                                        'h1')[0]['id']
    api.create_binding(user, port_id, 'h2')
    api.bind_ports_to_host(user, inst, 'h3')
    assert _hosts(api, user, port_id) == [('h3', 'ACTIVE')]
    api.deallocate_for_instance(user, inst)


def test_user_port_bindings_go_with_its_instance(api, user):
    port = api.create_port(user, PRIVATE)
    assert api.get_bindings(user, port['id']) == []
    inst = new_uuid()
    api.allocate_for_instance(user, inst, 'p1', [{'port': port['id']}],
                              'h1')
    api.create_instance_bindings(user, inst, 'h2')
    api.deallocate_for_instance(user, inst)
    assert api.get_bindings(user, port['id']) == []
    assert api.get_ports(user, port_ids=[port['id']])[0][
        'binding:host_id'] == ''
    # Booted again elsewhere: one ACTIVE binding there.
    inst2 = new_uuid()
    api.allocate_for_instance(user, inst2, 'p1', [{'port': port['id']}],
                              'h5')
    assert _hosts(api, user, port['id']) == [('h5', 'ACTIVE')]
    api.deallocate_for_instance(user, inst2)
