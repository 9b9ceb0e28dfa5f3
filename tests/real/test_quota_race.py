"""Concurrent boots of one project on MariaDB and PostgreSQL: each boot's
quota check runs in the API DB transaction that writes its build
requests, under the project's lock row (the cells counted before it),
so 8 boots of a project allowed
3 instances end with exactly 3 written and five refused (403) -- in both
counting modes, with a cell database on the same server."""
import threading
import time

from oslo_utils import uuidutils
import pytest
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.main import api as main_db
from nova_lite.db import migration
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import build_request as br_obj
from nova_lite.objects import embedded_flavor
from nova_lite import quota
from tests.conftest import set_override

PROJECT = 'race-project'


@pytest.fixture(params=['make_mysql_database', 'make_postgresql_database'],
                ids=['mariadb', 'postgresql'])
def databases(request, conf):
    make = request.getfixturevalue(request.param)
    api_url, cell_url = make(), make()
    migration.db_sync('api', api_url)
    migration.db_sync('main', cell_url)
    set_override('connection', api_url, group='api_database')
    set_override('connection', cell_url, group='database')
    api_db.reset()
    main_db.reset()
    nova_context.clear_cell_cache()
    ctxt = nova_context.get_admin_context()
    objects.CellMapping(ctxt, uuid=uuidutils.generate_uuid(), name='cell1',
                        transport_url='none:///',
                        database_connection=cell_url).create()
    yield ctxt
    api_db.reset()
    main_db.reset()
    nova_context.clear_cell_cache()


def _request(ctxt, flavor):
    uuid = uuidutils.generate_uuid()
    inst = objects.Instance(ctxt, uuid=uuid, project_id=PROJECT,
                            user_id='u', vcpus=1, memory_mb=512,
                            display_name='race')
    build_request = objects.BuildRequest(
        ctxt, instance_uuid=uuid, project_id=PROJECT, user_id='u',
        instance=inst, block_device_mappings=[], tags=[])
    spec = objects.RequestSpec(instance_uuid=uuid, project_id=PROJECT,
                               user_id='u', flavor=flavor, num_instances=1)
    return build_request, spec


def _boot(flavor, outcomes, barrier):
    ctxt = nova_context.RequestContext(user_id='u', project_id=PROJECT)

    barrier.wait()
    # As the compute API: the cells counted before the transaction
    # (counting from placement: nothing to count there).
    counted = quota.count_for_boot(ctxt, PROJECT, 'u')

    def check(cctxt):
        allowed = quota.check_boot(cctxt, PROJECT, 'u', 1, 512, 1, 1,
                                   cell_count=counted)
        # Hold the lock a while: without it every boot would pass.
        time.sleep(0.2)
        return allowed

    try:
        br_obj.create_servers(ctxt, [_request(ctxt, flavor)], check)
        outcomes.append('created')
    except exception.TooManyInstances as exc:
        assert exc.code == 403
        outcomes.append('refused')
    except Exception as exc:   # anything else is a failure of the test
        outcomes.append(repr(exc))


@pytest.mark.parametrize('placement', [False, True],
                         ids=['cells', 'placement'])
def test_eight_concurrent_boots_of_a_project_allowed_three(databases,
                                                           placement):
    ctxt = databases
    set_override('count_usage_from_placement', placement, group='quota')
    quota.driver().set_project_limits(ctxt, PROJECT, {'instances': 3})
    flavor = embedded_flavor.EmbeddedFlavor(
        id=1, flavorid='small', name='small', memory_mb=512, vcpus=1,
        root_gb=1, ephemeral_gb=0, swap=0, rxtx_factor=1.0,
        vcpu_weight=0, is_public=True, extra_specs={})
    outcomes, barrier = [], threading.Barrier(8)
    threads = [threading.Thread(target=_boot,
                                args=(flavor, outcomes, barrier))
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ['created'] * 3 + ['refused'] * 5
    with api_db.get_engine().connect() as conn:
        written = conn.execute(sa.text(
            'SELECT COUNT(*) FROM build_requests WHERE project_id = :p'),
            {'p': PROJECT}).scalar()
    assert written == 3
    assert CONF.quota.instances == 10   # the project's own limit held
