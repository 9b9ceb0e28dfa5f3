"""Listing servers booted through the API of a running plane: the ip
and column filters, the 2.47 flavor copy after its flavor changes or
goes, deleted servers. Each test lists as a member of its own project.
(Order, paging, markers and down cells, on rows with chosen times:
test_servers_list.py.)"""
import json
import os

import pytest
import webtest

from nova_lite.api import app as api_app
from nova_lite import policy
from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers


def member(project):
    return {'X-Auth-Token': 'bob:%s' % project}


@pytest.fixture
def app(running):
    """The API app on the running plane's databases and transports."""
    return webtest.TestApp(api_app.load_app())


def ids(response):
    return [s['id'] for s in response.json['servers']]


def boot(running, cell, project, **extra):
    return running.boot(cell, token=member(project)['X-Auth-Token'],
                        **extra)


def flavor(app, flavorid, **extra_specs):
    """A flavor 'm1.<flavorid>' (512 MB, 1 vCPU, 1 GB) with extra_specs,
    created through the API."""
    app.post_json('/v2.1/flavors', {'flavor': {
        'name': 'm1.' + flavorid, 'id': flavorid, 'ram': 512, 'vcpus': 1,
        'disk': 1}}, headers=ADMIN)
    app.post_json('/v2.1/flavors/%s/os-extra_specs' % flavorid,
                  {'extra_specs': extra_specs}, headers=ADMIN)


def test_ip_filter(app, running):
    mine = member('project-ip')
    first = boot(running, 'cell1', 'project-ip', networks='auto')
    second = boot(running, 'cell2', 'project-ip', networks='auto')

    def addr(uuid):
        [[port]] = app.get('/v2.1/servers/%s' % uuid, headers=mine).json[
            'server']['addresses'].values()
        return port['addr']
    one, other = addr(first), addr(second)
    last, other_last = one.rsplit('.', 1)[1], other.rsplit('.', 1)[1]
    assert one.startswith('10.0.0.') and other.startswith('10.0.0.')
    assert one != other
    assert ids(app.get('/v2.1/servers?ip=%s$' % one, headers=mine)) == [
        first]
    # Regular expressions beyond plain addresses match too.
    assert ids(app.get('/v2.1/servers?ip=10\\.0\\.0\\.%s[%s]$'
                       % (last[:-1], last[-1]), headers=mine)) == [first]
    assert len(ids(app.get('/v2.1/servers?ip=^10\\.0\\.0\\.(%s|%s)$'
                           % (last, other_last), headers=mine))) == 2


@pytest.mark.parametrize('token, sees_specs', [(ADMIN, True),
                                                (None, True)])
def test_embedded_flavor_survives_flavor_changes(app, running, token,
                                                 sees_specs):
    project = 'project-emb-%s' % ('admin' if token else 'member')
    token = token or member(project)
    flavorid = 'emb-' + project[-5:]
    flavor(app, flavorid, **{'hw:cpu_policy': 'shared'})
    uuid = boot(running, 'cell1', project, flavorRef=flavorid)
    app.post_json('/v2.1/flavors/%s/os-extra_specs' % flavorid,
                  {'extra_specs': {'hw:cpu_policy': 'dedicated'}},
                  headers=ADMIN)
    app.delete('/v2.1/flavors/%s' % flavorid, headers=ADMIN, status=202)
    below = app.get('/v2.1/servers/%s' % uuid,
                    headers=headers('2.46', token)).json['server']
    assert below['flavor']['id'] == flavorid
    assert set(below['flavor']) == {'id', 'links'}
    for path in ('/v2.1/servers/%s' % uuid,
                 '/v2.1/servers/detail?all_tenants=%d' % (token is ADMIN)):
        body = app.get(path, headers=headers('2.47', token)).json
        [server] = ([body['server']] if 'server' in body else
                    [s for s in body['servers'] if s['id'] == uuid])
        expected = {'vcpus': 1, 'ram': 512, 'disk': 1, 'ephemeral': 0,
                    'swap': 0, 'original_name': 'm1.' + flavorid}
        if sees_specs:
            expected['extra_specs'] = {'hw:cpu_policy': 'shared'}
        assert server['flavor'] == expected


@pytest.fixture
def policy_file(running, override):
    """Write a policy file for the running plane; forgotten afterwards."""
    path = os.path.join(running.plane.state_dir, 'policy.json')

    def write(rules):
        with open(path, 'w') as f:
            json.dump(rules, f)
        override('policy_file', path, group='oslo_policy')
        policy.reset()
    yield write
    os.remove(path)
    policy.reset()


def test_extra_specs_hidden_when_policy_forbids(app, running, policy_file):
    flavor(app, 'hidden', **{'hw:cpu_policy': 'shared'})
    uuid = boot(running, 'cell1', 'project-a', flavorRef='hidden')
    policy_file({'os_compute_api:servers:show:flavor-extra-specs':
                 'rule:context_is_admin'})
    mine = member('project-a')
    shown = app.get('/v2.1/servers/%s' % uuid,
                    headers=headers('2.47', mine)).json['server']
    assert 'extra_specs' not in shown['flavor']
    admin = app.get('/v2.1/servers/%s' % uuid,
                    headers=headers('2.47', ADMIN)).json['server']
    assert admin['flavor']['extra_specs'] == {'hw:cpu_policy': 'shared'}


def test_column_filters_for_admins_and_from_283_for_everyone(app, running):
    project = 'project-columns'
    mine = member(project)
    shut = boot(running, 'cell1', project, name='db-1', config_drive=True)
    running.reach(shut, 'stopped')
    up = boot(running, 'cell2', project, name='web-1')
    # Administrators filter on any column (a regular expression).
    assert ids(app.get('/v2.1/servers?all_tenants=1&power_state=4',
                       headers=ADMIN)) == [shut]
    assert ids(app.get('/v2.1/servers?all_tenants=1&hostname=^web',
                       headers=ADMIN)) == [up]
    # Members only from 2.83 (ignored before) and not by hostname.
    assert sorted(ids(app.get('/v2.1/servers?power_state=4',
                              headers=headers('2.82', mine)))) == sorted(
        [shut, up])
    assert ids(app.get('/v2.1/servers?power_state=4&config_drive=True',
                       headers=headers('2.83', mine))) == [shut]
    assert len(ids(app.get('/v2.1/servers?hostname=^web',
                           headers=headers('2.74', mine)))) == 2
    app.get('/v2.1/servers?power_state=(', headers=ADMIN, status=400)


def test_deleted_servers_keep_their_flavor_copy(app, running):
    project = 'project-deleted'
    mine = member(project)
    uuid = boot(running, 'cell1', project)
    app.delete('/v2.1/servers/%s' % uuid, headers=mine, status=204)
    running.gone(uuid)
    listed = app.get('/v2.1/servers/detail?all_tenants=1&deleted=true',
                     headers=headers('2.47', ADMIN)).json['servers']
    assert [(s['id'], s['status']) for s in listed] == [(uuid, 'DELETED')]
    assert listed[0]['flavor']['original_name'] == 'small'
    # Members see recently deleted servers with changes-since.
    since = app.get('/v2.1/servers/detail?changes-since=2026-01-01T00:00Z',
                    headers=headers('2.46', mine)).json['servers']
    assert since[0]['status'] == 'DELETED'
    assert since[0]['flavor']['id'] == 'small'
