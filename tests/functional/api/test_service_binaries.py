"""Service rows under the Compute API's binary names: rows an older
release wrote as nova-lite-* are read under either name, reported with
Nova's names, and renamed online once no old API, conductor or scheduler
runs (migrate_service_binaries)."""
import sqlalchemy as sa

from nova_lite import context as nova_context
from nova_lite.db.main import api as main_db
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import service_version
from nova_lite.online_migrations import registry
from nova_lite.online_migrations import runner
from tests.functional.api.fixtures import COMPUTE
from tests.functional.api.fixtures import headers

LEGACY = {'nova-osapi_compute': 'nova-lite-api',
          'nova-conductor': 'nova-lite-conductor',
          'nova-scheduler': 'nova-lite-scheduler',
          'nova-compute': 'nova-lite-compute'}
MIGRATION = 'migrate_service_binaries'


@main_db.writer
def _sql(context, statement, **params):
    result = context.session.execute(sa.text(statement), params)
    return result.all() if result.returns_rows else result.rowcount


def _in_cell(env, name, statement, **params):
    with nova_context.target_cell(env.ctxt, env.cells[name]) as cctxt:
        return _sql(cctxt, statement, **params)


def _make_legacy(env, cell_name, version=None):
    """Rewrite a cell's service rows as an older release recorded them:
    nova-lite-* binaries (and, optionally, that release's version)."""
    for new, old in LEGACY.items():
        _in_cell(env, cell_name,
                 'UPDATE services SET "binary" = :old WHERE "binary" = :new',
                 old=old, new=new)
    if version is not None:
        _in_cell(env, cell_name, 'UPDATE services SET version = :v', v=version)


def _binaries(env, cell_name):
    """{(host, binary, deleted?)} as stored in the cell database."""
    rows = _in_cell(env, cell_name,
                    'SELECT host, "binary", deleted FROM services')
    return {(h, b, bool(d)) for h, b, d in rows}


def _listing(app, v='2.11', query=''):
    return sorted((s['host'], s['binary'], s['status'])
                  for s in app.get('/v2.1/os-services' + query,
                                   headers=headers(v)).json['services'])


def _pending(env):
    migration = next(m for m in registry.migrations()
                     if m.name == MIGRATION)
    return migration.pending(env.ctxt)


def _run(env, **kwargs):
    return runner.run_migrations(env.ctxt, names=[MIGRATION], **kwargs)


def test_rows_of_an_older_release_are_reported_with_nova_names(app, seeded):
    before = _listing(app)
    _make_legacy(seeded.env, 'cell1')
    assert ('c1-host1', 'nova-lite-compute', False) in \
        _binaries(seeded.env, 'cell1')
    # Same listing: Nova's names, the API's own record still hidden.
    assert _listing(app) == before
    assert not any(b.startswith('nova-lite') or b == 'nova-osapi_compute'
                   for _, b, _ in before)
    computes = _listing(app, query='?binary=nova-compute')
    assert [h for h, _, _ in computes] == [
        'c1-host1', 'c1-host2', 'c1-host3', 'c2-host1', 'c2-host2']
    assert _listing(app, query='?binary=nova-scheduler') == [
        ('ctl1', 'nova-scheduler', 'enabled')]
    # The legacy names are not Compute API names.
    assert _listing(app, query='?binary=nova-lite-compute') == []
    # Tooling written for the Compute API updates them by Nova's name.
    app.put_json('/v2.1/os-services/disable',
                 {'host': 'c1-host2', 'binary': COMPUTE},
                 headers=headers('2.1'))
    assert ('c1-host2', COMPUTE, 'disabled') in _listing(app)
    uuid = next(s['id'] for s in app.get(
        '/v2.1/os-services?host=c1-host3',
        headers=headers('2.53')).json['services'])
    body = app.put_json('/v2.1/os-services/%s' % uuid,
                        {'status': 'disabled'},
                        headers=headers('2.53')).json['service']
    assert (body['binary'], body['status']) == (COMPUTE, 'disabled')
    # Updating a non-compute still says which binary can be updated.
    uuid = next(s['id'] for s in app.get(
        '/v2.1/os-services?binary=nova-scheduler',
        headers=headers('2.53')).json['services'])
    resp = app.put_json('/v2.1/os-services/%s' % uuid,
                        {'status': 'disabled'},
                        headers=headers('2.53'), status=400)
    assert 'nova-compute' in resp.json['badRequest']['message']


def test_either_name_finds_an_unrenamed_row_and_no_duplicate_is_made(
        seeded):
    env = seeded.env
    _make_legacy(env, 'cell2', version=3)
    with nova_context.target_cell(env.ctxt, env.cells['cell2']) as cctxt:
        # An old compute asks its (new) conductor by the old name; new
        # code asks by the new one: the same row.
        old = objects.Service.get_by_host_and_binary(
            cctxt, 'c2-host1', 'nova-lite-compute')
        new = objects.Service.get_by_host_and_binary(
            cctxt, 'c2-host1', COMPUTE)
        assert old.id == new.id and new.binary == COMPUTE
        assert {s.host for s in objects.ServiceList.get_by_binary(
            cctxt, COMPUTE)} == {'c2-host1', 'c2-host2'}
        assert service_version.get_minimum_version(
            cctxt, 'nova-conductor') == 3
        # A service registering under the new name finds the old row.
        try:
            objects.Service(cctxt, host='c2-host1', binary=COMPUTE,
                            topic='compute').create()
            raise AssertionError('a duplicate service row was created')
        except exception.ServiceExists:
            pass
    assert sorted(b for h, b, _ in _binaries(env, 'cell2')
                  if h == 'c2-host1') == ['nova-lite-compute']


def test_rename_waits_for_old_services_then_renames_every_row_once(seeded):
    env = seeded.env
    _make_legacy(env, 'cell1')
    _make_legacy(env, 'cell2')
    # A deleted row of the old release is renamed too.
    _in_cell(env, 'cell2', 'UPDATE services SET deleted = id, '
             'deleted_at = CURRENT_TIMESTAMP WHERE host = :h', h='c2-host2')
    # An old conductor (service version 3) still runs in cell2: it looks
    # its own row up as nova-lite-conductor, so nothing may be renamed.
    _in_cell(env, 'cell2', 'UPDATE services SET version = 3 '
             'WHERE host = :h', h='ctl2')
    legacy_rows = _binaries(env, 'cell1') | _binaries(env, 'cell2')
    assert _pending(env) == 9
    rows, code = _run(env)
    assert code == 1
    assert rows[0]['done'] == 0
    assert 'nova-conductor >= 4 (oldest is 3)' in rows[0]['blocked']
    assert _binaries(env, 'cell1') | _binaries(env, 'cell2') == legacy_rows

    # The conductor restarts on the new code: it records version 4 on its
    # (still legacy-named) row; SIGHUP makes the runner read it again.
    with nova_context.target_cell(env.ctxt, env.cells['cell2']) as cctxt:
        conductor = objects.Service.get_by_host_and_binary(
            cctxt, 'ctl2', 'nova-conductor')
        conductor.version = 4
        conductor.save()
    service_version.reset_min_version_cache()
    assert ('ctl2', 'nova-lite-conductor', False) in _binaries(env, 'cell2')

    # A run cut short (max_count) leaves a consistent state; the next
    # run finishes, and a rerun has nothing to do.
    rows, code = _run(env, max_count=4)
    assert (code, rows[0]['done']) == (1, 4)
    renamed = {b for _, b, _ in _binaries(env, 'cell1') |
               _binaries(env, 'cell2')}
    assert renamed & set(LEGACY.values()) and renamed & set(LEGACY)
    rows, code = _run(env)
    assert (code, rows[0]['done'], rows[0]['found']) == (0, 5, 5)
    expected = {(h, next(n for n, o in LEGACY.items() if o == b), d)
                for h, b, d in legacy_rows}
    assert _binaries(env, 'cell1') | _binaries(env, 'cell2') == expected
    assert ('c2-host2', COMPUTE, True) in expected
    assert _pending(env) == 0
    rows, code = _run(env)
    assert (code, rows[0]['found'], rows[0]['done']) == (0, 0, 0)


def test_a_host_recorded_under_both_names_is_found_not_renamed(seeded):
    env = seeded.env
    _in_cell(env, 'cell2', 'INSERT INTO services (uuid, host, "binary", '
             'topic, report_count, disabled, forced_down, deleted, version) '
             "VALUES ('5b0e3e4c-0000-4000-8000-000000000001', 'c2-host1', "
             "'nova-lite-compute', 'old-compute', 0, 0, 0, 0, 3)")
    rows, code = _run(env)
    assert (rows[0]['found'], rows[0]['done']) == (1, 0)
    assert ('c2-host1', 'nova-lite-compute', False) in \
        _binaries(env, 'cell2')
    assert ('c2-host1', COMPUTE, False) in _binaries(env, 'cell2')
