"""os-hypervisors through the WSGI app, across two cells."""
import pytest

from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import MEMBER

ALL_HOSTS = ['c1-host1', 'c1-host2', 'c1-host3', 'c2-host1', 'c2-host2']
CAPACITY = ('vcpus', 'memory_mb', 'local_gb', 'vcpus_used', 'cpu_info',
            'memory_mb_used', 'local_gb_used', 'free_ram_mb', 'free_disk_gb',
            'current_workload', 'running_vms', 'disk_available_least')


def _list(app, v=None, query='', detail=False):
    path = '/v2.1/os-hypervisors' + ('/detail' if detail else '') + query
    return app.get(path, headers=headers(v)).json


def _names(body):
    return [h['hypervisor_hostname'].split('.')[0]
            for h in body['hypervisors']]


@pytest.mark.parametrize('v', ['2.1', '2.53', '2.88'])
def test_list_reads_every_cell(app, v):
    body = _list(app, v)
    assert _names(body) == ALL_HOSTS
    for hyp in body['hypervisors']:
        assert set(hyp) == {'id', 'hypervisor_hostname', 'state', 'status'}
        assert hyp['state'] == 'up' and hyp['status'] == 'enabled'


def test_ids_are_integers_before_2_53_and_uuids_from_it(app, seeded):
    assert _list(app, '2.1')['hypervisors'][0]['id'] == \
        seeded.nodes['c1-host1'].id
    assert _list(app, '2.53')['hypervisors'][0]['id'] == \
        seeded.nodes['c1-host1'].uuid


def test_detail_at_2_1_has_capacity_and_string_cpu_info(app, seeded):
    hyp = _list(app, '2.1', detail=True)['hypervisors'][3]
    assert hyp['hypervisor_hostname'] == 'c2-host1.example.org'
    assert hyp['vcpus'] == 8 and hyp['memory_mb'] == 16384
    assert hyp['cpu_info'] == '{"arch": "x86_64"}'
    assert hyp['service'] == {'host': 'c2-host1',
                              'id': seeded.compute('c2-host1').id,
                              'disabled_reason': None}
    assert 'uptime' not in hyp


def test_detail_at_2_53_has_uuid_service_and_cpu_info_object(app, seeded):
    hyp = _list(app, '2.53', detail=True)['hypervisors'][0]
    assert hyp['cpu_info'] == {'arch': 'x86_64'}
    assert hyp['service']['id'] == seeded.compute('c1-host1').uuid


def test_detail_at_2_88_drops_capacity_and_adds_uptime(app):
    hyp = _list(app, '2.88', detail=True)['hypervisors'][0]
    assert not set(CAPACITY) & set(hyp)
    assert 'uptime' in hyp and hyp['hypervisor_type'] == 'fake'


def test_show_per_microversion(app, seeded):
    node = seeded.nodes['c2-host2']
    hyp = app.get('/v2.1/os-hypervisors/%s' % node.uuid,
                  headers=headers('2.53')).json['hypervisor']
    assert hyp['hypervisor_hostname'] == 'c2-host2.example.org'
    assert hyp['vcpus'] == 8
    hyp = app.get('/v2.1/os-hypervisors/%s' % node.uuid,
                  headers=headers('2.88')).json['hypervisor']
    assert 'vcpus' not in hyp and 'uptime' in hyp
    # Integer ids repeat across cells; before 2.53 the first cell wins.
    hyp = app.get('/v2.1/os-hypervisors/%d' % seeded.nodes['c1-host3'].id,
                  headers=headers('2.1')).json['hypervisor']
    assert hyp['hypervisor_hostname'] == 'c1-host3.example.org'


def test_show_unknown_is_404_and_bad_uuid_is_400(app):
    resp = app.get('/v2.1/os-hypervisors/00000000-0000-0000-0000-000000000009',
                   headers=headers('2.53'), status=404)
    assert resp.json['itemNotFound']['code'] == 404
    app.get('/v2.1/os-hypervisors/42', headers=headers('2.53'), status=400)
    app.get('/v2.1/os-hypervisors/42', headers=headers('2.1'), status=404)
    app.get('/v2.1/os-hypervisors/abc', headers=headers('2.1'), status=404)


def test_with_servers_and_pattern_from_2_53(app):
    body = _list(app, '2.53', '?hypervisor_hostname_pattern=c2-')
    assert _names(body) == ['c2-host1', 'c2-host2']
    body = _list(app, '2.53', '?with_servers=true')
    assert 'servers' not in body['hypervisors'][0]
    body = _list(app, '2.75', '?with_servers=true')
    assert body['hypervisors'][0]['servers'] == []
    app.get('/v2.1/os-hypervisors?hypervisor_hostname_pattern=zzz',
            headers=headers('2.53'), status=404)
    app.get('/v2.1/os-hypervisors?hypervisor_hostname_pattern=c&limit=1',
            headers=headers('2.53'), status=400)
    app.get('/v2.1/os-hypervisors?with_servers=perhaps',
            headers=headers('2.53'), status=400)
    app.get('/v2.1/os-hypervisors?bogus=1', headers=headers('2.53'),
            status=400)
    # Before 2.53 unknown parameters are ignored.
    assert len(_list(app, '2.52', '?bogus=1')['hypervisors']) == 5


def test_paging_from_2_33_across_cells(app):
    first = _list(app, '2.53', '?limit=2')
    assert _names(first) == ALL_HOSTS[:2]
    assert first['hypervisors_links'][0]['rel'] == 'next'
    marker = first['hypervisors'][-1]['id']
    second = _list(app, '2.53', '?limit=2&marker=%s' % marker)
    assert _names(second) == ALL_HOSTS[2:4]
    third = _list(app, '2.53', '?limit=2&marker=%s'
                  % second['hypervisors'][-1]['id'])
    assert _names(third) == ALL_HOSTS[4:]
    assert 'hypervisors_links' not in third
    app.get('/v2.1/os-hypervisors?marker=nope', headers=headers('2.53'),
            status=400)
    app.get('/v2.1/os-hypervisors?limit=-1', headers=headers('2.53'),
            status=400)
    # Before 2.33 limit is not a parameter.
    assert len(_list(app, '2.32', '?limit=1')['hypervisors']) == 5


def test_disabled_and_forced_down_service_shows_in_hypervisor(app, seeded):
    uuid = seeded.compute('c2-host1').uuid
    app.put_json('/v2.1/os-services/%s' % uuid,
                 {'status': 'disabled', 'forced_down': True},
                 headers=headers('2.53'))
    hyp = _list(app, '2.53', detail=True)['hypervisors'][3]
    assert (hyp['status'], hyp['state']) == ('disabled', 'down')


def test_failed_cell_is_left_out(app, seeded):
    seeded.break_cell('cell2')
    assert _names(_list(app, '2.88', detail=True)) == ALL_HOSTS[:3]
    app.get('/v2.1/os-hypervisors/%s' % seeded.nodes['c2-host1'].uuid,
            headers=headers('2.53'), status=404)


def test_statistics_until_2_87(app):
    stats = app.get('/v2.1/os-hypervisors/statistics',
                    headers=headers('2.87')).json['hypervisor_statistics']
    assert stats['count'] == 5 and stats['vcpus'] == 40
    app.get('/v2.1/os-hypervisors/statistics', headers=headers('2.88'),
            status=404)


def test_search_and_servers_until_2_52(app):
    body = app.get('/v2.1/os-hypervisors/c1-host/search',
                   headers=headers('2.52')).json
    assert _names(body) == ALL_HOSTS[:3]
    body = app.get('/v2.1/os-hypervisors/c2-host1/servers',
                   headers=headers('2.1')).json
    assert _names(body) == ['c2-host1']
    app.get('/v2.1/os-hypervisors/c1-host/search', headers=headers('2.53'),
            status=404)


@pytest.mark.parametrize('path', ['/v2.1/os-hypervisors',
                                  '/v2.1/os-hypervisors/detail',
                                  '/v2.1/os-hypervisors/1',
                                  '/v2.1/os-hypervisors/statistics'])
def test_non_admin_is_forbidden(app, path):
    resp = app.get(path, headers=MEMBER, status=403)
    assert resp.json['forbidden']['code'] == 403


def test_one_query_per_cell_and_kind(app, seeded, monkeypatch):
    from nova_lite import objects
    calls = []
    real_nodes = objects.ComputeNodeList.get_all
    real_services = objects.ServiceList.get_by_binary

    def nodes(ctxt):
        calls.append('nodes')
        return real_nodes(ctxt)

    def services(ctxt, binary):
        calls.append('services')
        return real_services(ctxt, binary)

    monkeypatch.setattr(objects.ComputeNodeList, 'get_all', nodes)
    monkeypatch.setattr(objects.ServiceList, 'get_by_binary', services)
    _list(app, '2.88', detail=True)
    assert sorted(calls) == ['nodes', 'nodes', 'services', 'services']
