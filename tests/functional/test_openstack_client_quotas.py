"""Quotas and limits with the real `openstack` client and openstacksdk
against a real nova-lite-all-in-one process: `limits show --absolute`,
`quota set --class`, and the sdk's update_quota_set (then an over-quota
boot is Nova's 403), get_quota_set, revert_quota_set and get_limits."""
import json
import urllib.error
import urllib.request

import pytest

from tests import clients

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
PROJECT = 'admin'


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    state_dir = str(tmp_path_factory.mktemp('aio-quotas'))
    with clients.cloud_with_flavor(state_dir, 'q.small', 256, 1) as (
            endpoint, env):
        yield endpoint, env


def _boot(endpoint):
    req = urllib.request.Request(
        endpoint + '/v2.1/servers', method='POST',
        headers={'X-Auth-Token': 'admin:admin',
                 'OpenStack-API-Version': 'compute 2.37',
                 'Content-Type': 'application/json'},
        data=json.dumps({'server': {
            'name': 'q', 'flavorRef': 'q.small', 'imageRef': IMAGE,
            'networks': 'none'}}).encode())
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_openstack_limits_and_quota_commands(cloud):
    endpoint, env = cloud
    limits = {row['Name']: row['Value'] for row in clients.openstack_json(
        env, 'limits', 'show', '--absolute')}
    # (The client shows openstacksdk's names for the API's keys.)
    assert limits.get('instances') == 10, limits
    assert limits['total_cores'] == 20
    assert limits['total_ram'] == 51200
    assert limits['server_meta'] == 128
    assert limits['keypairs'] == 100
    assert limits['instances_used'] == 0

    sdk = clients.sdk_admin(endpoint, '2.79')
    sdk.compute.update_quota_set(PROJECT, instances=1, cores=7)
    quota_set = sdk.compute.get_quota_set(PROJECT)
    assert quota_set.instances == 1 and quota_set.cores == 7

    assert _boot(cloud[0])[0] == 202
    status, body = _boot(cloud[0])
    assert status == 403
    assert body['forbidden']['message'] == (
        'Quota exceeded for instances: Requested 1, but already used 1 of '
        '1 instances')

    clients.openstack(env, 'quota', 'set', '--class', '--key-pairs', '99',
                      'default')
    sdk.compute.revert_quota_set(PROJECT)
    quota_set = sdk.compute.get_quota_set(PROJECT)
    assert quota_set.instances == 10 and quota_set.key_pairs == 99
    sdk.compute.update_quota_set(PROJECT, instances=12)
    assert sdk.compute.get_quota_set(PROJECT).instances == 12
    absolute = sdk.compute.get_limits().absolute
    assert absolute.instances == 12 and absolute.instances_used == 1


def test_openstack_quota_show_set_list_delete_under_noauth2(cloud):
    """`openstack quota show|set|list|delete` look the project up in
    identity: under noauth2 the all-in-one's /identity answers that a
    project is its id."""
    _endpoint, env = cloud
    clients.openstack(env, 'quota', 'set', '--instances', '7', '--cores',
                      '9', 'qproj')
    shown = {row['Resource']: row['Limit'] for row in clients.openstack_json(
        env, 'quota', 'show', '--compute', 'qproj')}
    assert shown['instances'] == 7 and shown['cores'] == 9, shown
    listed = clients.openstack_json(env, 'quota', 'list', '--compute')
    assert {row['Project ID']: row['Instances'] for row in listed}.get(
        'qproj') == 7, listed
    clients.openstack(env, 'quota', 'delete', '--compute', 'qproj')
    shown = {row['Resource']: row['Limit'] for row in clients.openstack_json(
        env, 'quota', 'show', '--compute', 'qproj')}
    assert shown['instances'] != 7
