"""Quota enforcement on server groups (server_groups on create,
server_group_members on a boot into a group), on restore of a
soft-deleted server (instances, cores and ram again, counting from the
cells) and on unshelve of an offloaded server (cores and ram again,
counting from placement), with Nova's 403 messages, through the REST
API on a running plane with quotas enforced."""
from nova_lite.conf import CONF
from tests.functional.api.test_quotas import active
from tests.functional.api.test_quotas import boot
from tests.functional.api.test_quotas import forbidden
from tests.functional.api.test_quotas import project
from tests.functional.api.test_quotas import running  # noqa: F401
from tests.functional.api.test_quotas import set_quota
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.conftest import wait_for


def _group(api, token, name, status=200):
    resp = api('POST', '/os-server-groups', {'server_group': {
        'name': name, 'policies': ['anti-affinity']}}, token=token)
    assert resp.status_code == status, resp.text
    return resp


def _boot_in(api, token, group_id, status=202):
    body = _server()
    body['os:scheduler_hints'] = {'group': group_id}
    resp = api('POST', '/servers', body, token=token, version='2.37')
    assert resp.status_code == status, resp.text
    return resp


def _absolute(api, token):
    return api('GET', '/limits', token=token).json()['limits']['absolute']


def test_server_groups_quota_on_create(running):  # noqa: F811
    api = running.api
    project_id, token = project()
    set_quota(api, project_id, server_groups=1)
    _group(api, token, 'one')
    assert forbidden(_group(api, token, 'two', status=403)) == (
        'Quota exceeded, too many server groups.')
    absolute = _absolute(api, token)
    assert (absolute['totalServerGroupsUsed'],
            absolute['maxServerGroups']) == (1, 1)
    groups = api('GET', '/os-server-groups', token=token).json()[
        'server_groups']
    assert [g['name'] for g in groups] == ['one']


def test_server_group_members_quota_on_boot(running):  # noqa: F811
    api = running.api
    project_id, token = project()
    set_quota(api, project_id, server_group_members=1)
    group_id = _group(api, token, 'g').json()['server_group']['id']
    active(api, token, _boot_in(api, token, group_id).json()['server']['id'])
    assert forbidden(_boot_in(api, token, group_id, status=403)) == (
        'Quota exceeded, too many servers in group')
    members = api('GET', '/os-server-groups/%s' % group_id,
                  token=token).json()['server_group']['members']
    assert len(members) == 1
    # Nothing was left behind by the refused boot.
    servers = api('GET', '/servers', token=token).json()['servers']
    assert len(servers) == 1


def test_restore_needs_room_again(running, override):  # noqa: F811
    override('reclaim_instance_interval', 3600)
    api = running.api
    project_id, token = project()
    set_quota(api, project_id, instances=1)
    first = boot(api, token).json()['server']['id']
    active(api, token, first)
    assert api('DELETE', '/servers/%s' % first,
               token=token).status_code == 204
    _wait_status(api, first, 'SOFT_DELETED', token=token)
    # A soft-deleted server does not count: another fits.
    second = boot(api, token).json()['server']['id']
    active(api, token, second)
    resp = api('POST', '/servers/%s/action' % first, {'restore': None},
               token=token)
    assert forbidden(resp) == ('Quota exceeded for instances: Requested 1, '
                               'but already used 1 of 1 instances')
    assert api('DELETE', '/servers/%s' % second,
               token=token).status_code == 204
    wait_for(lambda: api('GET', '/servers/%s' % second,
                         token=token).status_code in (404, 200) and
             _absolute(api, token)['totalInstancesUsed'] == 0,
             timeout=30, message='second server gone')
    assert api('POST', '/servers/%s/action' % first, {'restore': None},
               token=token).status_code == 202
    _wait_status(api, first, 'ACTIVE', token=token)


def test_unshelve_of_an_offloaded_server_needs_room_again(
        running, override):  # noqa: F811
    override('shelved_offload_time', 0)
    CONF.set_override('count_usage_from_placement', True, group='quota')
    try:
        api = running.api
        project_id, token = project()
        set_quota(api, project_id, cores=1)
        first = boot(api, token).json()['server']['id']
        active(api, token, first)
        assert api('POST', '/servers/%s/action' % first, {'shelve': None},
                   token=token).status_code == 202
        _wait_status(api, first, 'SHELVED_OFFLOADED', token=token)
        # Offloaded: its core is free (it holds no allocation).
        second = boot(api, token).json()['server']['id']
        active(api, token, second)
        resp = api('POST', '/servers/%s/action' % first,
                   {'unshelve': None}, token=token)
        assert forbidden(resp) == ('Quota exceeded for cores: Requested 1, '
                                   'but already used 1 of 1 cores')
        assert api('GET', '/servers/%s' % first, token=token).json()[
            'server']['status'] == 'SHELVED_OFFLOADED'
    finally:
        CONF.clear_override('count_usage_from_placement', group='quota')
