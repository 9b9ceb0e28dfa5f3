"""os-hosts below 2.43, as Nova 34 answers it (administrators only)."""
import pytest

from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import MEMBER

V = '2.42'
COMPUTE = 'nova-compute'


@pytest.fixture
def api(running):
    return running.api


def _computes(api):
    services = api('GET', '/os-services?binary=%s' % COMPUTE,
                   token=ADMIN).json()['services']
    return {s['host']: s for s in services}


def test_list_every_service_host_with_its_zone(api):
    hosts = api('GET', '/os-hosts', token=ADMIN, version=V).json()['hosts']
    computes = _computes(api)
    listed = {(h['host_name'], h['service']): h['zone'] for h in hosts}
    for host in computes:
        assert listed[(host, 'compute')] == 'nova'
    assert {s for (_h, s) in listed} >= {'compute', 'conductor',
                                         'scheduler'}
    assert all(zone == 'internal' for (h, s), zone in listed.items()
               if s != 'compute')
    only = api('GET', '/os-hosts?zone=nova', token=ADMIN,
               version=V).json()['hosts']
    assert {h['host_name'] for h in only} == set(computes)
    assert api('GET', '/os-hosts?zone=nowhere', token=ADMIN,
               version=V).json() == {'hosts': []}
    # A blank zone filters nothing (Nova; Tempest's
    # test_list_hosts_with_a_blank_zone).
    blank = api('GET', '/os-hosts?zone=', token=ADMIN,
                version=V).json()['hosts']
    assert len(blank) == len(hosts)


def test_show_resources_by_project(running, api):
    uuid = running.boot()
    host = running.host(uuid)
    shown = api('GET', '/os-hosts/%s' % host, token=ADMIN,
                version=V).json()['host']
    rows = [r['resource'] for r in shown]
    assert [r['project'] for r in rows[:3]] == [
        '(total)', '(used_now)', '(used_max)']
    assert all(r['host'] == host and set(r) == {
        'host', 'project', 'cpu', 'memory_mb', 'disk_gb'} for r in rows)
    projects = {r['project']: r for r in rows[3:]}
    assert 'project-a' in projects
    flavor = running.flavor()
    assert rows[2]['cpu'] >= flavor.vcpus
    assert rows[2]['memory_mb'] == sum(r['memory_mb'] for r in rows[3:])
    assert rows[0]['cpu'] > 0 and rows[0]['memory_mb'] > 0


def test_unknown_host_is_a_404(api):
    for method, path, body in (
            ('GET', '/os-hosts/nohost', None),
            ('PUT', '/os-hosts/nohost', {'status': 'enable'}),
            ('GET', '/os-hosts/nohost/reboot', None)):
        resp = api(method, path, body, token=ADMIN, version=V)
        assert resp.status_code == 404, resp.text
        assert resp.json()['itemNotFound']['message'] == (
            "Host 'nohost' is not mapped to any cell")


def test_update_status_disables_and_enables_the_compute(api):
    host = sorted(_computes(api))[0]
    try:
        resp = api('PUT', '/os-hosts/%s' % host, {'status': 'Disable'},
                   token=ADMIN, version=V)
        assert resp.json() == {'host': host, 'status': 'disabled'}
        assert _computes(api)[host]['status'] == 'disabled'
    finally:
        resp = api('PUT', '/os-hosts/%s' % host, {'status': 'enable'},
                   token=ADMIN, version=V)
    assert resp.json() == {'host': host, 'status': 'enabled'}
    assert _computes(api)[host]['status'] == 'enabled'


@pytest.mark.parametrize('body', [{}, {'status': 'bogus'}, {'x': 1},
                                  {'status': 'enable', 'x': 1},
                                  {'maintenance_mode': 5}])
def test_bad_update_is_a_400(api, body):
    host = sorted(_computes(api))[0]
    resp = api('PUT', '/os-hosts/%s' % host, body, token=ADMIN, version=V)
    assert resp.status_code == 400, resp.text


def test_maintenance_mode_and_power_actions_are_not_implemented(api):
    host = sorted(_computes(api))[0]
    resp = api('PUT', '/os-hosts/%s' % host, {'maintenance_mode': 'enable'},
               token=ADMIN, version=V)
    assert resp.status_code == 501, resp.text
    for action in ('reboot', 'shutdown', 'startup'):
        resp = api('GET', '/os-hosts/%s/%s' % (host, action), token=ADMIN,
                   version=V)
        assert resp.status_code == 501, resp.text
    assert _computes(api)[host]['status'] == 'enabled'


def test_members_are_refused_and_2_43_removed_it(api):
    host = sorted(_computes(api))[0]
    for path in ('/os-hosts', '/os-hosts/%s' % host,
                 '/os-hosts/%s/reboot' % host):
        assert api('GET', path, token=MEMBER,
                   version=V).status_code == 403
        for version in ('2.43', 'latest'):
            assert api('GET', path, token=ADMIN,
                       version=version).status_code == 404
