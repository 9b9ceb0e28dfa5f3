"""GET /os-hypervisors/{id}/uptime (2.1-2.87) and the uptime in show from
2.88, against a running plane: the API asks the hypervisor's compute."""
import re

import pytest
import sqlalchemy as sa
import webtest

from nova_lite.api import app as api_app
from nova_lite import context as nova_context
from nova_lite.db.main import api as main_db
from nova_lite.objects import service_version
from nova_lite import policy
from tests.conftest import set_override

UPTIME = re.compile(r'^ \d\d:\d\d:\d\d up .+,  \d+ users?,  load average: '
                    r'\d+\.\d\d, \d+\.\d\d, \d+\.\d\d$')


@pytest.fixture
def api(plane_no_api):
    set_override('auth_strategy', 'noauth2', group='api')
    policy.reset()
    app = webtest.TestApp(api_app.load_app())

    def call(path, version, status=200, method='GET', body=None):
        return app.request('/v2.1' + path, method=method, status=status,
                           headers={'X-Auth-Token': 'admin:admin',
                                    'OpenStack-API-Version':
                                    'compute ' + version,
                                    'Content-Type': 'application/json'},
                           body=body)
    call.plane = plane_no_api
    yield call
    policy.reset()


def _node(api, version='2.53'):
    return api('/os-hypervisors/detail', version).json['hypervisors'][0]


def test_uptime_comes_from_the_compute(api):
    node = _node(api)
    body = api('/os-hypervisors/%s/uptime' % node['id'], '2.53').json
    hypervisor = body['hypervisor']
    assert sorted(hypervisor) == ['hypervisor_hostname', 'id', 'state',
                                  'status', 'uptime']
    assert (hypervisor['id'], hypervisor['state'], hypervisor['status']) \
        == (node['id'], 'up', 'enabled')
    assert UPTIME.match(hypervisor['uptime']), hypervisor['uptime']


def test_uptime_by_integer_id_before_2_53(api):
    node = _node(api, '2.1')
    hypervisor = api('/os-hypervisors/%d/uptime' % node['id'],
                     '2.1').json['hypervisor']
    assert hypervisor['id'] == node['id']
    assert UPTIME.match(hypervisor['uptime'])


def test_from_2_88_the_route_is_gone_and_show_and_detail_have_it(api):
    nodes = api('/os-hypervisors/detail', '2.88').json['hypervisors']
    assert len(nodes) == 4
    assert all(UPTIME.match(n['uptime']) for n in nodes), nodes
    node = nodes[0]
    resp = api('/os-hypervisors/%s/uptime' % node['id'], '2.88', 404)
    assert resp.json['itemNotFound']['code'] == 404
    shown = api('/os-hypervisors/%s' % node['id'], '2.88').json
    assert UPTIME.match(shown['hypervisor']['uptime'])
    assert api('/os-hypervisors/%s/uptime' % node['id'], '2.87').json


def test_a_forced_down_compute_is_a_400_and_no_uptime_in_show(api):
    node = _node(api, '2.88')
    api('/os-services/%s' % node['service']['id'], '2.53', method='PUT',
        body=b'{"forced_down": true}')
    resp = api('/os-hypervisors/%s/uptime' % node['id'], '2.53', 400)
    assert resp.json['badRequest']['message'] == (
        'Compute service of %s is unavailable at this time.'
        % node['service']['host'])
    shown = api('/os-hypervisors/%s' % node['id'], '2.88').json
    assert shown['hypervisor']['uptime'] is None
    listed = api('/os-hypervisors/detail', '2.88').json['hypervisors']
    assert [n['uptime'] is None for n in listed] == [
        n['id'] == node['id'] for n in listed]


def test_a_compute_too_old_to_tell_is_a_501(api):
    set_override('compute', 'auto', group='upgrade_levels')
    node = _node(api)
    host = node['service']['host']
    cell = next(c for c in api.plane.cells.values()
                if host.startswith(c.name))
    ctxt = nova_context.get_admin_context()
    with nova_context.target_cell(ctxt, cell) as cctxt:
        with main_db.get_engine(cctxt).begin() as conn:
            conn.execute(sa.text('UPDATE services SET version = 4 WHERE '
                                 'host = :host'), {'host': host})
    service_version.reset_min_version_cache()
    resp = api('/os-hypervisors/%s/uptime' % node['id'], '2.53', 501)
    assert resp.json['notImplemented']['message'] == \
        'Virt driver does not implement uptime function.'
