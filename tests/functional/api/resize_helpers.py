"""Helpers of the resize and cold-migration tests: flavors, a booted
server, waiting for a status, and the allocations of a server and of
its migration (placement holds no REST API here: read through the
scheduler's placement functions, as a consistency checker would)."""
import os

import sqlalchemy as sa

from nova_lite import context as nova_context
from nova_lite.db.main import api as main_db
from nova_lite.db.main import migrations as migrations_db
from nova_lite import objects
from nova_lite.placement import allocations
from nova_lite.placement import db as placement_db
from nova_lite.placement import providers
from nova_lite.virt import fake
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import Client
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional import conftest as fconftest
from tests.functional.conftest import wait_for

MIGRATIONS = migrations_db.MIGRATIONS
FLAVORS = (('small', 512, 1, 1), ('medium', 1024, 2, 2),
           ('large', 2048, 2, 3), ('tiny', 256, 1, 0))


def client_of(plane):
    client = Client(plane.endpoint)
    for name, ram, vcpus, disk in FLAVORS:
        body = {'flavor': {'name': name, 'id': name, 'ram': ram,
                           'vcpus': vcpus, 'disk': disk}}
        assert client('POST', '/flavors', body,
                      token=ADMIN).status_code == 200
    return client


def one_cell_plane(tmp_path):
    """A plane of one cell with two computes (cheaper to start than the
    default two cells: for tests that need no second cell)."""
    plane = fconftest.start_plane(tmp_path / 'state', cells=1,
                                  computes_per_cell=2)
    yield plane
    fconftest.stop_plane(plane)


def boot(api, name='vm', flavor='small', token=MEMBER, **extra):
    response = api('POST', '/servers', _server(name, flavorRef=flavor,
                                               **extra),
                   version='2.37', token=token)
    assert response.status_code == 202, response.text
    uuid = response.json()['server']['id']
    wait_status(api, uuid, 'ACTIVE')
    return uuid


def show(api, uuid, version='2.47'):
    return api('GET', '/servers/%s' % uuid, version=version,
               token=ADMIN).json()['server']


def wait_status(api, uuid, status, timeout=30):
    """The server (as an administrator sees it at 2.47) once its status
    is status with no task."""
    def reached():
        server = show(api, uuid)
        return server if (server['status'] == status and
                          server['OS-EXT-STS:task_state'] is None) else None
    return wait_for(reached, timeout=timeout,
                    message='%s %s' % (uuid, status))


def action(api, uuid, body, version='2.1', token=MEMBER):
    return api('POST', '/servers/%s/action' % uuid, body, version=version,
               token=token)


def held(consumer):
    """{provider name: {class: amount}} of a consumer's allocations
    (a compute node's provider is named after its node)."""
    admin = nova_context.get_admin_context()
    found = allocations.get_allocations(admin, consumer)
    names = _names(admin, list(found))
    return {names[rp]: res for rp, res in found.items()}


def _names(ctxt, uuids):
    with placement_db.reading(ctxt) as session:
        return dict(session.execute(sa.select(
            providers.RP.c.uuid, providers.RP.c.name).where(
                providers.RP.c.uuid.in_(uuids))).all())


def migration_of(uuid):
    """The newest migration record of server uuid in any cell, as a
    dict (None when it has none)."""
    admin = nova_context.get_admin_context()
    for cell in objects.CellMappingList.get_all(admin):
        with nova_context.target_cell(admin, cell) as cctxt:
            engine = main_db.get_engine(cctxt)
            with engine.connect() as conn:
                row = conn.execute(sa.select(MIGRATIONS).where(
                    MIGRATIONS.c.instance_uuid == uuid).order_by(
                        MIGRATIONS.c.id.desc()).limit(1)).first()
            if row is not None:
                return dict(row._mapping)
    return None


def wait_migration(uuid, status, timeout=30):
    return wait_for(lambda: (migration_of(uuid) or {}).get(
        'status') == status and migration_of(uuid), timeout=timeout,
        message='migration of %s %s' % (uuid, status))


def guests(plane, host):
    """The simulated guests on host (uuid, or uuid_resize for a resize's
    set-aside source guest)."""
    return sorted(fake.load_guests(
        os.path.join(plane.state_dir, 'fake-hypervisor'), host))
