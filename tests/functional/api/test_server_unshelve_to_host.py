"""2.91 through the REST API on a running plane: unshelve of an
offloaded server to a host its project's administrators name, and
``availability_zone: null`` unpinning it, with Nova's rules: neither
for a SHELVED server (409) nor below 2.91 (400); an unknown host 400;
a host outside the zone the server is pinned to, or asks for, 409;
members may not name a host (403)."""
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import MEMBER

V = '2.91'
# An administrator of the server's project (unshelve_to_host is any
# administrator's, as Nova 34's rule:context_is_admin).
PROJECT_ADMIN = 'admin:project-a'


def _act(running, uuid, body, token=PROJECT_ADMIN, version=V):
    return running.api('POST', '/servers/%s/action' % uuid, body,
                       version=version, token=token)


def _unshelve(running, uuid, token=PROJECT_ADMIN, version=V, **request):
    return _act(running, uuid, {'unshelve': request}, token=token,
                version=version)


def _zone_of(running, name, host):
    """An aggregate making zone name of host."""
    created = running.api('POST', '/os-aggregates', {'aggregate': {
        'name': name, 'availability_zone': name}}, token=ADMIN)
    assert created.status_code == 200, created.text
    aggregate = created.json()['aggregate']['id']
    added = running.api('POST', '/os-aggregates/%s/action' % aggregate,
                        {'add_host': {'host': host}}, token=ADMIN)
    assert added.status_code == 200, added.text


def _offloaded(running, cell, **extra):
    uuid = running.boot(cell, **extra)
    assert _act(running, uuid, {'shelve': None}, token=MEMBER,
                version='2.1').status_code == 202
    running.settle(uuid, 'shelved_offloaded')
    return uuid


def test_unshelve_to_a_host_and_unpin(running):
    hosts = sorted(running._computes())
    cell1 = [h for h in hosts if h.startswith('cell1-')]
    pinned_host, other_host = cell1[0], cell1[-1]
    assert pinned_host != other_host, hosts
    _zone_of(running, 'zone-b', other_host)
    # Pinned to the default zone at boot: never on other_host.
    uuid = _offloaded(running, 'cell1', availability_zone='nova')

    # Not below 2.91; a member may not name a host; an unknown host.
    assert _unshelve(running, uuid, version='2.90',
                     host=other_host).status_code == 400
    assert _unshelve(running, uuid, version='2.90',
                     availability_zone=None).status_code == 400
    assert _unshelve(running, uuid, token=MEMBER,
                     host=other_host).status_code == 403
    response = _unshelve(running, uuid, host='no-such-host')
    assert response.status_code == 400, response.text
    # An administrator of another project passes the policy too (Nova;
    # Tempest's UnshelveToHostMultiNodesTest).
    response = _unshelve(running, uuid, token=ADMIN, host='no-such-host')
    assert response.status_code == 400, response.text
    # Outside the zone the server is pinned to, or the zone it asks for.
    response = _unshelve(running, uuid, host=other_host)
    assert response.status_code == 409, response.text
    assert 'not in the availability zone' in response.text
    response = _unshelve(running, uuid, host=pinned_host,
                         availability_zone='zone-b')
    assert response.status_code == 409, response.text

    # Unpinned (null), to the other zone's host.
    response = _unshelve(running, uuid, host=other_host,
                         availability_zone=None)
    assert response.status_code == 202, response.text
    running.settle(uuid, 'active')
    assert running.host(uuid) == other_host
    server = running.api('GET', '/servers/%s' % uuid,
                         token=ADMIN).json()['server']
    assert server['OS-EXT-AZ:availability_zone'] == 'zone-b'
    assert 'unshelve' in [a['action'] for a in running.api(
        'GET', '/servers/%s/os-instance-actions' % uuid,
        token=ADMIN).json()['instanceActions']]

    # Unpinned, it now goes back to a host of the default zone.
    assert _act(running, uuid, {'shelve': None}, token=MEMBER,
                version='2.1').status_code == 202
    running.settle(uuid, 'shelved_offloaded')
    response = _unshelve(running, uuid, host=pinned_host)
    assert response.status_code == 202, response.text
    running.settle(uuid, 'active')
    assert running.host(uuid) == pinned_host


def test_host_or_zone_only_for_an_offloaded_server(running, override):
    override('shelved_offload_time', -1)
    uuid = running.boot('cell2')
    assert _act(running, uuid, {'shelve': None}, token=MEMBER,
                version='2.1').status_code == 202
    running.settle(uuid, 'shelved')
    host = running.host(uuid)
    for request in ({'host': host}, {'availability_zone': None}):
        response = _unshelve(running, uuid, **request)
        assert response.status_code == 409, (request, response.text)
        assert 'SHELVED_OFFLOADED' in response.text
    # An empty request (or null) unshelves it where it is.
    response = _unshelve(running, uuid, token=MEMBER)
    assert response.status_code == 202, response.text
    running.settle(uuid, 'active')
    assert running.host(uuid) == host


def test_a_host_waits_for_super_conductors_serving_rpc_1_5(running,
                                                           override):
    """compute_task capped at 1.4 (a super conductor not upgraded yet):
    a host is refused (409) before anything changes; an unshelve without
    one still goes."""
    uuid = _offloaded(running, 'cell1')
    host = sorted(h for h in running._computes() if h.startswith('cell1-'))[0]
    override('compute_task', '1.4', group='upgrade_levels')
    response = _unshelve(running, uuid, host=host)
    assert response.status_code == 409, response.text
    assert 'super conductor' in response.text
    server = running.api('GET', '/servers/%s' % uuid,
                         token=ADMIN).json()['server']
    assert (server['OS-EXT-STS:vm_state'],
            server['OS-EXT-STS:task_state']) == ('shelved_offloaded', None)
    response = _unshelve(running, uuid)
    assert response.status_code == 202, response.text
    running.settle(uuid, 'active')
