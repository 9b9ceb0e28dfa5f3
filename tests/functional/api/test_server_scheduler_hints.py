"""2.100 through the REST API: scheduler_hints (as the request spec
keeps them, each value a list) in show, list detail, update and
rebuild; absent below 2.100; {} for a server booted without hints; a
detail page reads every server's hints in one statement."""
from nova_lite.db.api import api as api_db
from tests.functional.api.test_server_actions import client_with_flavor
from tests.functional.api.test_server_actions import settled
from tests.functional.api.test_servers_boot import IMAGE
from tests.functional.db import inventory_helpers as h

V = '2.100'


def _boot(api, hints=None, name='vm'):
    body = {'server': {'name': name, 'flavorRef': 'small',
                       'imageRef': IMAGE, 'networks': 'none'}}
    if hints is not None:
        body['OS-SCH-HNT:scheduler_hints'] = hints
    created = api('POST', '/servers', body, version='2.37')
    assert created.status_code == 202, created.text
    uuid = created.json()['server']['id']
    settled(api, uuid, 'ACTIVE')
    return uuid


def _show(api, uuid, version=V):
    return api('GET', '/servers/%s' % uuid, version=version).json()['server']


def test_scheduler_hints_from_2_100(plane):
    api = client_with_flavor(plane)
    plain = _boot(api, name='plain')
    hinted = _boot(api, {'different_host': plain, 'custom': 'x'},
                   name='hinted')
    expected = {'different_host': [plain], 'custom': ['x']}
    for version in ('2.1', '2.99'):
        assert 'scheduler_hints' not in _show(api, hinted, version)
    assert _show(api, hinted)['scheduler_hints'] == expected
    assert _show(api, plain)['scheduler_hints'] == {}

    detail = api('GET', '/servers/detail', version=V).json()['servers']
    assert {s['id']: s['scheduler_hints'] for s in detail} == {
        hinted: expected, plain: {}}
    assert all('scheduler_hints' not in s for s in api(
        'GET', '/servers/detail', version='2.99').json()['servers'])
    assert all('scheduler_hints' not in s for s in api(
        'GET', '/servers', version=V).json()['servers'])

    updated = api('PUT', '/servers/%s' % hinted,
                  {'server': {'name': 'renamed'}}, version=V)
    assert updated.json()['server']['scheduler_hints'] == expected
    assert 'scheduler_hints' not in api(
        'PUT', '/servers/%s' % hinted, {'server': {'name': 'renamed'}},
        version='2.99').json()['server']
    rebuilt = api('POST', '/servers/%s/action' % hinted,
                  {'rebuild': {'imageRef': IMAGE}}, version=V)
    assert rebuilt.status_code == 202, rebuilt.text
    assert rebuilt.json()['server']['scheduler_hints'] == expected
    settled(api, hinted, 'ACTIVE')


def test_a_detail_page_reads_the_hints_in_one_statement(plane):
    api = client_with_flavor(plane)
    first = _boot(api, {'custom': 'a'}, name='a')
    counts = []
    for name in ('b', 'c'):
        _boot(api, {'custom': name}, name=name)
        api('GET', '/servers/detail', version=V)      # warm caches
        counter = h.StatementCounter(api=api_db.get_engines())
        with counter.counting():
            servers = api('GET', '/servers/detail',
                          version=V).json()['servers']
        reads = [s for s in counter.statements['api']
                 if 'request_specs' in s]
        counts.append(len(reads))
    assert {s['name']: s['scheduler_hints'] for s in servers} == {
        'a': {'custom': ['a']}, 'b': {'custom': ['b']},
        'c': {'custom': ['c']}}
    assert first in [s['id'] for s in servers]
    # Two servers or three: one read of the request specs.
    assert counts == [1, 1], counts
