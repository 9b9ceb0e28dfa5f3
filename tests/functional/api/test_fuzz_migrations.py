"""Hypothesis on GET /os-migrations and /servers/{id}/migrations[/{id}]
(and their force_complete action and DELETE): no query string, path,
body, microversion or credentials make them answer 5xx; every error is
a Compute API fault (test_fuzz.check). Migrations exist in both cells
(a hidden one, an in-progress live migration of a server), so many
requests reach real records and markers."""
import json
from urllib import parse

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from tests.functional.api import migration_fixtures as mf
from tests.functional.api import server_fixtures as sf
from tests.functional.api import test_fuzz as fuzz


@pytest.fixture
def migrations(seeded):
    """(server uuid, [migration uuids], [migration ids])."""
    env = seeded.env
    server = sf.add_server(env, 'cell1', sf.flavor(env.ctxt, 'small'))
    records = [
        mf.add_migration(env, 'cell1', 1, instance_uuid=server,
                         migration_type='live-migration', status='running'),
        mf.add_migration(env, 'cell1', 2, instance_uuid=server),
        mf.add_migration(env, 'cell2', 2, hidden=True),
        mf.add_migration(env, 'cell2', 3, migration_type='evacuation')]
    return (server, [r['uuid'] for r in records],
            [str(r['id']) for r in records])


QUERY_KEYS = st.sampled_from([
    'status', 'host', 'source_compute', 'migration_type', 'instance_uuid',
    'hidden', 'limit', 'marker', 'changes-since', 'changes-before',
    'user_id', 'project_id', 'sort_key', 'foo', ''])
QUERY_VALUES = st.one_of(
    st.text(max_size=12), fuzz.IDS,
    st.sampled_from(['0', '1', '-1', '99999999999999999999', 'finished',
                     'resize', 'live-migration', 'c1-host1', 'project-a',
                     '2026-01-01T00:00:00Z', '2026-01-01T00:02:00',
                     'yesterday', '2026-13-01', 'bob']))
VERSIONS = st.sampled_from(['2.1', '2.22', '2.23', '2.58', '2.59', '2.65',
                            '2.66', '2.79', '2.80', 'latest'])
TOKENS = st.sampled_from(['admin:admin', 'bob:project-a', 'eve:project-b',
                          None])


def _paths(server, ids):
    servers = st.one_of(st.just(server), st.just(server), fuzz.IDS)
    migration_ids = st.one_of(st.sampled_from(ids), fuzz.IDS)
    return st.one_of(
        st.just('/v2.1/os-migrations'), st.just('/v2.1/os-migrations'),
        st.builds('/v2.1/os-migrations/{}'.format, migration_ids),
        st.builds('/v2.1/servers/{}/migrations'.format, servers),
        st.builds('/v2.1/servers/{}/migrations/{}'.format, servers,
                  migration_ids),
        st.builds('/v2.1/servers/{}/migrations/{}/{}'.format, servers,
                  migration_ids, fuzz.IDS))


@settings(fuzz.SETTINGS, max_examples=100)
@given(data=st.data(), method=st.sampled_from(['GET', 'GET', 'GET', 'POST',
                                               'PUT', 'DELETE', 'HEAD']),
       version=VERSIONS, token=TOKENS)
def test_no_migrations_input_gives_a_server_error(app, migrations, data,
                                                  method, version, token):
    server, uuids, ids = migrations
    path = data.draw(_paths(server, ids))
    pairs = data.draw(st.lists(st.tuples(
        QUERY_KEYS, st.one_of(QUERY_VALUES, st.sampled_from(uuids))),
        max_size=4))
    fuzz._request(app, method, path, parse.urlencode(pairs), version, False,
                  token, b'', None, None)


FORCE_COMPLETE_BODIES = st.one_of(
    st.just(b''), st.just(b'{"force_complete": null}'),
    st.builds(lambda name, value: json.dumps({name: value}).encode(),
              st.sampled_from(['force_complete', 'abort', 'foo']),
              st.one_of(st.none(), fuzz.FIELD_VALUES)))


@settings(fuzz.SETTINGS, max_examples=100)
@given(data=st.data(), method=st.sampled_from(['POST', 'DELETE']),
       version=VERSIONS, token=TOKENS, body=FORCE_COMPLETE_BODIES)
def test_no_force_complete_or_abort_gives_a_server_error(
        app, migrations, data, method, version, token, body):
    server, uuids, ids = migrations
    servers = st.one_of(st.just(server), st.just(server), fuzz.IDS)
    migration = data.draw(st.one_of(st.sampled_from(ids), fuzz.IDS))
    path = '/v2.1/servers/%s/migrations/%s' % (data.draw(servers),
                                               migration)
    if method == 'POST':
        path += '/action'
    fuzz._request(app, method, path, '', version, False, token, body,
                  'application/json' if body else None, None)
