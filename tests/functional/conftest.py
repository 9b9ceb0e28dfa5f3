"""The whole control plane in-process: API over real HTTP, conductors,
scheduler and simulated computes in two cells plus cell0 on SQLite, with
in-process inproc:// transports."""
import os
import time

import pytest

from nova_lite import allinone
from nova_lite.conf import CONF
from nova_lite import rpc
from tests.conftest import synced_sqlite


def wait_for(predicate, timeout=10.0, interval=0.05, message='condition'):
    """Poll predicate until it returns a truthy value; fail on timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError('timed out waiting for %s' % message)
        time.sleep(interval)


# Tests not about quotas boot more servers in one project than Nova's
# default quotas allow: their planes have no instances, cores or ram
# limits (the quota check still runs); quotas=True keeps the defaults.
UNLIMITED_QUOTAS = ('instances', 'cores', 'ram')


def _seed_schemas(state_dir, cells, with_api_db):
    """A new state directory starts with databases copied from schema
    templates (tests.conftest.synced_sqlite: migrated once a process):
    the plane's own db_sync then finds them at head, which costs a
    fraction of replaying every migration in five databases."""
    if os.path.exists(state_dir):
        return
    os.makedirs(state_dir)
    names = [('local_services', allinone.LOCAL_SERVICES)] + [
        ('main', name) for name in ['cell0'] + allinone.cell_names(cells)]
    if with_api_db:
        names.append(('api', 'api'))
    for kind, name in names:
        synced_sqlite(kind, os.path.join(state_dir, '%s.sqlite' % name))


def start_plane(state_dir, with_api=True, quotas=False, **kwargs):
    if not quotas:
        for name in UNLIMITED_QUOTAS:
            CONF.set_override(name, -1, group='quota')
    # With default_flavors, a plane makes its flavors when it finds no
    # API database: let it make that one itself.
    _seed_schemas(str(state_dir), kwargs.get('cells', 2),
                  not kwargs.get('default_flavors'))
    plane = allinone.Plane(str(state_dir), port=0, with_api=with_api,
                           **kwargs).build()
    plane.start()
    return plane


def stop_plane(plane):
    plane.stop()
    for name in UNLIMITED_QUOTAS:
        CONF.clear_override(name, group='quota')
    rpc.cleanup()
    allinone.unconfigure()


@pytest.fixture
def plane(tmp_path, conf):
    p = start_plane(tmp_path / 'state')
    yield p
    stop_plane(p)


@pytest.fixture
def plane_no_api(tmp_path, conf):
    p = start_plane(tmp_path / 'state', with_api=False)
    yield p
    stop_plane(p)
