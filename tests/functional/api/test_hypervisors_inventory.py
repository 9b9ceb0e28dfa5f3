"""os-hypervisors shows capacity and usage from inventories and allocations,
identical before and after a node's migration to them."""
import pytest
import webtest

from nova_lite.api import app as api_app
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite.objects import service_version
from nova_lite.placement import allocations
from nova_lite import policy
from tests.conftest import set_override
from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import SeededCells
from tests.functional.db import inventory_helpers as h

VERSIONS = ('2.1', '2.28', '2.53')


@pytest.fixture
def legacy_seeded(cells_env):
    """The usual seeded two-cell API, its nodes written while an old
    (service version 2) conductor is recorded: on their columns only.

    seeded: legacy rows for the online migration; today's services
    never write them."""
    CONF([], project='nova_lite', default_config_files=[])
    set_override('auth_strategy', 'noauth2', group='api')
    set_override('cell_timeout', 5)
    policy.reset()
    with nova_context.target_cell(cells_env.ctxt,
                                  cells_env.cells['cell2']) as c2:
        old = h.record_service(c2, 'old-conductor', 'nova-conductor',
                               2)
    seeded = SeededCells(cells_env)
    yield seeded, old, webtest.TestApp(api_app.load_app())
    policy.reset()


def _views(app, seeded):
    bodies = {}
    for v in VERSIONS:
        bodies[('detail', v)] = app.get('/v2.1/os-hypervisors/detail',
                                        headers=headers(v)).json
        for host, node in sorted(seeded.nodes.items()):
            hid = node.uuid if v >= '2.53' else node.id
            if v < '2.53' and host.startswith('c2'):
                continue   # integer ids repeat across cells
            bodies[(host, v)] = app.get('/v2.1/os-hypervisors/%s' % hid,
                                        headers=headers(v)).json
    bodies['statistics'] = app.get('/v2.1/os-hypervisors/statistics',
                                   headers=headers('2.1')).json
    return bodies


def test_detail_and_show_are_identical_before_and_after_migration(
        legacy_seeded, cells_env):
    seeded, old, app = legacy_seeded
    assert h.api_counts()['resource_providers'] == 0
    before = _views(app, seeded)
    hyp = before[('detail', '2.1')]['hypervisors'][0]
    assert (hyp['vcpus'], hyp['vcpus_used'], hyp['memory_mb_used'],
            hyp['free_disk_gb']) == (8, 1, 512, 90)
    # The old conductor upgrades (SIGHUP): the next reads migrate.
    with nova_context.target_cell(cells_env.ctxt,
                                  cells_env.cells['cell2']) as c2:
        old._context = c2
        old.version = service_version.SERVICE_VERSION
        old.save()
    service_version.reset_min_version_cache()
    after = _views(app, seeded)
    assert h.api_counts()['resource_providers'] == 5
    assert after == before
    # And now it is the inventories and allocations that speak.
    node = seeded.nodes['c1-host2']
    allocations.claim(cells_env.ctxt, 'some-instance',
                      {node.uuid: {'VCPU': 2, 'MEMORY_MB': 1024}})
    hyp = app.get('/v2.1/os-hypervisors/%s' % node.uuid,
                  headers=headers('2.53')).json['hypervisor']
    assert (hyp['vcpus_used'], hyp['memory_mb_used'], hyp['free_ram_mb'])\
        == (1 + 2, 512 + 1024, 16384 - 512 - 1024)
    with nova_context.target_cell(cells_env.ctxt,
                                  cells_env.cells['cell1']) as c1:
        assert h.columns(c1, node.id)['vcpus_used'] == 1
    stats = app.get('/v2.1/os-hypervisors/statistics',
                    headers=headers('2.1')).json['hypervisor_statistics']
    assert stats['vcpus_used'] == before['statistics'][
        'hypervisor_statistics']['vcpus_used'] + 2


def test_detail_of_many_nodes_is_a_few_queries_per_cell(legacy_seeded,
                                                        cells_env):
    from nova_lite.db.api import api as api_db
    from nova_lite.db.main import api as main_db
    seeded, old, app = legacy_seeded
    with nova_context.target_cell(cells_env.ctxt,
                                  cells_env.cells['cell1']) as c1:
        h.add_legacy_nodes(c1, 60, start=1000, service_id=seeded.compute(
            'c1-host1').id)
        cell1_engines = main_db.get_engines(c1)
    with nova_context.target_cell(cells_env.ctxt,
                                  cells_env.cells['cell2']) as c2:
        old._context = c2
        old.destroy()
    service_version.reset_min_version_cache()
    app.get('/v2.1/os-hypervisors/detail', headers=headers('2.53'))
    counter = h.StatementCounter(api=api_db.get_engines(),
                                 cell1=cell1_engines)
    with counter.counting():
        body = app.get('/v2.1/os-hypervisors/detail',
                       headers=headers('2.53')).json
    assert len(body['hypervisors']) == 65
    # Cell mappings + one inventory read per cell; nodes + services.
    assert counter.counts['api'] <= 3, counter.statements['api']
    assert counter.counts['cell1'] == 2, counter.statements['cell1']
