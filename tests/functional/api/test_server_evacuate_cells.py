"""Evacuate stays in the server's cell (two cells of two computes): a
host of another cell is refused as Nova's scheduler refuses it -- the
evacuate answered, then no valid host (and with force, 2.29, no compute
node of that host in the cell): the server stays ACTIVE on its source,
the migration in error, nothing claimed elsewhere."""
import pytest

from tests.functional.api.resize_helpers import client_of
from tests.functional.api.resize_helpers import held
from tests.functional.api.resize_helpers import migration_of
from tests.functional.api.resize_helpers import wait_migration
from tests.functional.api.resize_helpers import wait_status
from tests.functional.api import test_server_evacuate as evac
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional import conftest as fconftest

SOURCE, OTHER_CELL = 'cell1-compute1', 'cell2-compute1'


@pytest.fixture(scope='module')
def plane(tmp_path_factory):
    p = fconftest.start_plane(tmp_path_factory.mktemp('evac2') / 'state')
    yield p
    fconftest.stop_plane(p)


def test_a_host_of_another_cell_is_refused(plane):
    api = client_of(plane)
    uuid = evac._boot_on(api, SOURCE)
    evac._stop(plane, SOURCE)
    evac._forced_down(api, SOURCE, True)
    try:
        for force in (False, True):
            before = migration_of(uuid)
            evac._evacuate(api, uuid, {'evacuate': {
                'host': OTHER_CELL, 'force': force}}, version='2.29')
            found = wait_migration(uuid, 'error')
            assert found['id'] != (before or {}).get('id')
            server = wait_status(api, uuid, 'ACTIVE')
            assert server[evac.HOST] == SOURCE
            assert held(uuid) == {SOURCE: evac.SMALL}
            assert held(found['uuid']) == {}
    finally:
        evac._start(plane, SOURCE)
        evac._forced_down(api, SOURCE, False)
    api('DELETE', '/servers/%s' % uuid, token=ADMIN)
