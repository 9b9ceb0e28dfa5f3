"""os-availability-zone through the REST API: the zones of the services of
both cells (computes in default_availability_zone, the rest in
internal_service_availability_zone), detail for administrators, disabled
services, a cell that does not answer."""
from tests.conftest import set_override
from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import MEMBER

URL = '/v2.1/os-availability-zone'


def test_list_shows_the_compute_zone_only(app, seeded):
    for v in ('2.1', '2.88'):
        body = app.get(URL, headers=headers(v, MEMBER)).json
        assert body == {'availabilityZoneInfo': [
            {'zoneName': 'nova', 'zoneState': {'available': True},
             'hosts': None}]}


def test_detail_lists_hosts_and_services_of_both_cells(app, seeded):
    zones = app.get(URL + '/detail', headers=ADMIN).json[
        'availabilityZoneInfo']
    assert [(z['zoneName'], z['zoneState']) for z in zones] == [
        ('internal', {'available': True}), ('nova', {'available': True})]
    internal, nova = zones
    assert set(nova['hosts']) == {'c1-host1', 'c1-host2', 'c1-host3',
                                  'c2-host1', 'c2-host2'}
    compute = nova['hosts']['c2-host1']['nova-compute']
    assert compute['available'] is True and compute['active'] is True
    assert compute['updated_at'].count(':') == 2
    # The API service is left out, as Nova leaves it.
    assert internal['hosts'] == {
        'ctl1': {'nova-conductor': internal['hosts']['ctl1'][
                     'nova-conductor'],
                 'nova-scheduler': internal['hosts']['ctl1'][
                     'nova-scheduler']},
        'ctl2': {'nova-conductor': internal['hosts']['ctl2'][
                     'nova-conductor']}}


def test_detail_is_for_administrators(app, seeded):
    error = app.get(URL + '/detail', headers=MEMBER, status=403).json
    assert error['forbidden']['code'] == 403


def test_configured_zone_names(app, seeded):
    set_override('default_availability_zone', 'az-1')
    set_override('internal_service_availability_zone', 'control')
    assert [z['zoneName'] for z in app.get(URL, headers=MEMBER).json[
        'availabilityZoneInfo']] == ['az-1']
    assert [z['zoneName'] for z in app.get(URL + '/detail', headers=ADMIN)
            .json['availabilityZoneInfo']] == ['az-1', 'control']


def test_a_zone_whose_services_are_all_disabled_is_not_available(app,
                                                                 seeded):
    for host in ('c1-host1', 'c1-host2', 'c1-host3', 'c2-host1',
                 'c2-host2'):
        app.put_json('/v2.1/os-services/disable',
                     {'host': host, 'binary': 'nova-compute'},
                     headers=ADMIN)
    assert app.get(URL, headers=MEMBER).json == {'availabilityZoneInfo': [
        {'zoneName': 'nova', 'zoneState': {'available': False},
         'hosts': None}]}
    detail = app.get(URL + '/detail', headers=ADMIN).json[
        'availabilityZoneInfo']
    assert detail[-1] == {'zoneName': 'nova',
                          'zoneState': {'available': False}, 'hosts': None}
    # One enabled compute makes the zone available, with that host only.
    app.put_json('/v2.1/os-services/enable',
                 {'host': 'c2-host2', 'binary': 'nova-compute'},
                 headers=ADMIN)
    detail = app.get(URL + '/detail', headers=ADMIN).json[
        'availabilityZoneInfo']
    assert detail[-1]['zoneState'] == {'available': True}
    assert list(detail[-1]['hosts']) == ['c2-host2']


def test_a_cell_that_does_not_answer_is_left_out(app, seeded):
    seeded.break_cell('cell2')
    detail = app.get(URL + '/detail', headers=ADMIN).json[
        'availabilityZoneInfo']
    nova = [z for z in detail if z['zoneName'] == 'nova'][0]
    assert set(nova['hosts']) == {'c1-host1', 'c1-host2', 'c1-host3'}


def test_other_methods_and_paths(app, seeded):
    app.post_json(URL, {}, headers=ADMIN, status=405)
    app.get(URL + '/nope', headers=ADMIN, status=404)
    app.get(URL + '/detail/more', headers=ADMIN, status=404)
