"""Port allocations racing on MariaDB and PostgreSQL: green threads with
their own connections allocate fixed IPs on one /24 at once. The unique
(network_id, fixed_ip) constraint lets only one of two racers keep an
address; the loser retries with the next free one. No address is handed
out twice and no allocation is lost."""
import uuid as uuid_lib

import eventlet
import pytest

from nova_lite import context as nova_context
from nova_lite.db.local_services import api as ls_db
from nova_lite.db import migration
from nova_lite import exception
from nova_lite.network import api as network_api
from nova_lite.network import model
from tests.conftest import set_override


@pytest.fixture(params=['mysql_url', 'postgresql_url'])
def local_services_url(request, conf):
    url = request.getfixturevalue(request.param)
    migration.db_sync('local_services', url)
    set_override('connection', url, group='local_services')
    ls_db.reset()
    yield url
    ls_db.reset()


def test_concurrent_allocations_never_share_an_address(local_services_url):
    api = network_api.API()
    api.ensure_default_network(nova_context.get_admin_context())
    instances = [str(uuid_lib.uuid4()) for _ in range(60)]

    def allocate(instance):
        ctxt = nova_context.RequestContext(user_id='u', project_id='p')
        return api.allocate_for_instance(ctxt, instance, 'p', 'auto', 'h')

    pool = eventlet.GreenPool(20)
    infos = list(pool.imap(allocate, instances))
    got = [ip for info in infos
           for _label, _mac, ip, _v, _t in model.fixed_ips(info)]
    assert len(got) == len(instances)
    assert sorted(got, key=lambda a: int(a.rsplit('.', 1)[1])) == [
        '10.0.0.%d' % i for i in range(2, 2 + len(instances))]
    ports = api.get_ports(nova_context.get_admin_context())
    assert sorted(p['device_id'] for p in ports) == sorted(instances)


def test_concurrent_floating_ip_allocations_never_share_one(
        local_services_url):
    """Floating IPs from the external network, allocated at once by
    several projects: each address once, none lost; the ones associated
    at once with one fixed IP: one wins, the others are refused."""
    api = network_api.API()
    admin = nova_context.get_admin_context()
    api.ensure_default_network(admin)

    def allocate(n):
        ctxt = nova_context.RequestContext(user_id='u',
                                           project_id='p%d' % (n % 3))
        return api.allocate_floating_ip(ctxt, 'public')

    fips = list(eventlet.GreenPool(20).imap(allocate, range(40)))
    addresses = [f['floating_ip_address'] for f in fips]
    assert sorted(addresses, key=lambda a: int(a.rsplit('.', 1)[1])) == [
        '172.24.4.%d' % i for i in range(2, 42)]

    instance = str(uuid_lib.uuid4())
    ctxt = nova_context.RequestContext(user_id='u', project_id='p0')
    info = api.allocate_for_instance(ctxt, instance, 'p0', 'auto', 'h')
    fixed = model.fixed_ips(info)[0][2]
    own = [f['floating_ip_address'] for f in fips
           if f['project_id'] == 'p0'][:5]

    def associate(address):
        try:
            api.associate_floating_ip(ctxt, address, instance, fixed)
            return address
        except exception.FloatingIpAssociateFailed:
            return None

    won = [a for a in eventlet.GreenPool(5).imap(associate, own) if a]
    assert len(won) == 1
    vif = api.get_instance_nw_info(ctxt, instance)[0]
    assert vif['network']['subnets'][0]['ips'][0]['floating_ips'] == [
        {'address': won[0], 'type': 'floating', 'version': 4}]
