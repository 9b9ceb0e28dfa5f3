"""Two scheduler processes racing for one server group on a real
deployment (tests/real/conftest.py shared_deployment: MariaDB, RabbitMQ,
2 cells x 2 computes, every service its own process): a second
nova-lite-scheduler serves the same topic, boots of one anti-affinity
group are sent at once, and whatever the two schedulers decide, no two
members end ACTIVE on one host (the computes' late check reschedules
the loser). The second scheduler is stopped again afterwards."""
import concurrent.futures

import pytest

from tests.functional.conftest import wait_for
from tests.real.test_deployment import api

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
SECOND = 'scheduler-2'


@pytest.fixture(scope='module')
def deployment(shared_deployment):
    dep = shared_deployment
    dep.commands[SECOND] = dep.commands['scheduler']
    dep.respawn(SECOND)
    try:
        yield dep
    finally:
        dep.terminate(SECOND)
        del dep.procs[SECOND]
        del dep.commands[SECOND]
        dep.save()


def _settled(dep, uuid):
    def done():
        status, body = api(dep, 'GET', '/servers/%s' % uuid)
        server = body['server']
        return server if (server['status'] in ('ACTIVE', 'ERROR') and
                          server['OS-EXT-STS:task_state'] is None) else None
    return wait_for(done, timeout=120, message='%s settled' % uuid)


def test_two_schedulers_never_break_anti_affinity(deployment):
    dep = deployment
    api(dep, 'POST', '/flavors', {'flavor': {
        'name': 'sg.tiny', 'id': 'sg.tiny', 'ram': 64, 'vcpus': 1,
        'disk': 0}})
    status, body = api(dep, 'POST', '/os-server-groups', {'server_group': {
        'name': 'race', 'policy': 'anti-affinity'}}, version='2.64')
    assert status == 200, body
    group = body['server_group']['id']

    def boot(i):
        return api(dep, 'POST', '/servers', {
            'server': {'name': 'race%d' % i, 'flavorRef': 'sg.tiny',
                       'imageRef': IMAGE, 'networks': 'none'},
            'os:scheduler_hints': {'group': group}}, version='2.37')

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        sent = list(pool.map(boot, range(8)))
    assert all(status == 202 for status, _ in sent), sent
    servers = [_settled(dep, body['server']['id']) for _, body in sent]
    active = [s['OS-EXT-SRV-ATTR:host'] for s in servers
              if s['status'] == 'ACTIVE']
    assert active and len(active) == len(set(active)) <= 4, active
    for server in servers:
        api(dep, 'DELETE', '/servers/%s' % server['id'])
    for server in servers:
        wait_for(lambda: api(dep, 'GET', '/servers/%s' % server['id'])[0]
                 == 404, timeout=120, message='deleted')
    assert api(dep, 'DELETE', '/os-server-groups/%s' % group)[0] == 204
    api(dep, 'DELETE', '/flavors/sg.tiny')
