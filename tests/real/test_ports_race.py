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
