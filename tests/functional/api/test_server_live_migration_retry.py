"""A live migration with no host named retries on other hosts when its
destination fails the pre-checks (one cell of three computes): the
fake driver's check_can_live_migrate_destination fails on the host the
scheduler prefers, the server lands on the third; with [DEFAULT]
migrate_max_retries 0 it does not retry (MaxRetriesExceeded); with
every other host failing it ends in NoValidHost. Either failure leaves
the server ACTIVE on its source with its claims and bindings as
before, the migration in error, no other host holding anything.
"""
import pytest

from tests.conftest import set_override
from tests.functional.api.resize_helpers import action
from tests.functional.api.resize_helpers import client_of
from tests.functional.api.resize_helpers import guests
from tests.functional.api.resize_helpers import held
from tests.functional.api.resize_helpers import migration_of
from tests.functional.api.resize_helpers import wait_migration
from tests.functional.api.resize_helpers import wait_status
from tests.functional.api.test_server_live_migration import _bindings
from tests.functional.api.test_server_live_migration import _events
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional import conftest as fconftest

SMALL = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}
HOST = 'OS-EXT-SRV-ATTR:host'
SOURCE, FIRST, SECOND = ('cell1-compute1', 'cell1-compute2',
                         'cell1-compute3')
CHECK = 'check_can_live_migrate_destination'


@pytest.fixture(scope='module')
def plane(tmp_path_factory):
    p = fconftest.start_plane(tmp_path_factory.mktemp('lmretry') / 'state',
                              cells=1, computes_per_cell=3)
    yield p
    fconftest.stop_plane(p)


@pytest.fixture(scope='module')
def api(plane):
    return client_of(plane)


def _boot_on(api, name, host, flavor='small'):
    """A server with a port on host (2.74's requested host)."""
    response = api('POST', '/servers', _server(
        name, flavorRef=flavor, networks='auto', host=host),
        version='2.74', token=ADMIN)
    assert response.status_code == 202, response.text
    uuid = response.json()['server']['id']
    assert wait_status(api, uuid, 'ACTIVE')[HOST] == host
    return uuid


@pytest.fixture(scope='module')
def filler(api):
    """A bigger server on SECOND: the scheduler (spreading) prefers
    FIRST for a server of SOURCE."""
    return _boot_on(api, 'filler', SECOND, flavor='medium')


def _live(api, uuid):
    response = action(api, uuid, {'os-migrateLive': {
        'host': None, 'block_migration': 'auto'}}, version='2.34',
        token=ADMIN)
    assert response.status_code == 202, response.text


def _failed_checks(api, uuid):
    """The hosts whose destination pre-check failed."""
    return [e['host'] for e in _events(api, uuid)
            if e['event'] == 'compute_' + CHECK and e['result'] == 'Error']


def _stayed(api, plane, uuid, migration_status='error'):
    """The server ACTIVE on SOURCE as before the live migration."""
    assert wait_migration(uuid, migration_status)
    server = wait_status(api, uuid, 'ACTIVE')
    assert server[HOST] == SOURCE
    assert held(uuid) == {SOURCE: SMALL}
    assert held(migration_of(uuid)['uuid']) == {}
    assert _bindings(uuid) == [(SOURCE, 'ACTIVE')]
    assert guests(plane, SOURCE) == [uuid]
    assert guests(plane, FIRST) == []
    return server


def test_failed_pre_check_retries_on_the_next_host(api, plane, filler):
    uuid = _boot_on(api, 'retried', SOURCE)
    set_override('fail_methods', ['%s@%s' % (CHECK, FIRST)],
                 group='fake_driver')
    _live(api, uuid)
    assert wait_migration(uuid, 'completed')
    server = wait_status(api, uuid, 'ACTIVE')
    assert server[HOST] == SECOND
    assert _failed_checks(api, uuid) == [FIRST]
    migration = migration_of(uuid)
    assert (migration['source_compute'], migration['dest_compute']) == (
        SOURCE, SECOND)
    # Nothing left on the host that failed, the source freed.
    assert held(uuid) == {SECOND: SMALL}
    assert held(migration['uuid']) == {}
    assert _bindings(uuid) == [(SECOND, 'ACTIVE')]
    assert guests(plane, FIRST) == []
    assert sorted(guests(plane, SECOND)) == sorted([uuid, filler])
    assert api('DELETE', '/servers/%s' % uuid,
               token=ADMIN).status_code == 204


def test_no_retry_with_migrate_max_retries_0(api, plane, filler):
    uuid = _boot_on(api, 'no-retry', SOURCE)
    set_override('migrate_max_retries', 0)
    set_override('fail_methods', ['%s@%s' % (CHECK, FIRST)],
                 group='fake_driver')
    _live(api, uuid)
    _stayed(api, plane, uuid)
    assert _failed_checks(api, uuid) == [FIRST]
    events = _events(api, uuid)
    conductor = [e for e in events
                 if e['event'] == 'conductor_live_migrate_instance']
    assert conductor and conductor[0]['result'] == 'Error', events
    assert list(held(filler)) == [SECOND]
    assert api('DELETE', '/servers/%s' % uuid,
               token=ADMIN).status_code == 204


@pytest.mark.parametrize('retries', [-1, 1])
def test_every_host_failing_ends_in_no_valid_host(api, plane, filler,
                                                  retries):
    uuid = _boot_on(api, 'all-fail%d' % retries, SOURCE)
    set_override('migrate_max_retries', retries)
    set_override('fail_methods', [CHECK], group='fake_driver')
    _live(api, uuid)
    _stayed(api, plane, uuid)
    # Both other hosts were tried.
    assert sorted(_failed_checks(api, uuid)) == [FIRST, SECOND]
    assert list(held(filler)) == [SECOND]
    # Usable afterwards: with the pre-checks passing it moves.
    set_override('fail_methods', [], group='fake_driver')
    _live(api, uuid)
    assert wait_migration(uuid, 'completed')
    server = wait_status(api, uuid, 'ACTIVE')
    assert server[HOST] == FIRST
    assert held(uuid) == {FIRST: SMALL}
    assert api('DELETE', '/servers/%s' % uuid,
               token=ADMIN).status_code == 204
