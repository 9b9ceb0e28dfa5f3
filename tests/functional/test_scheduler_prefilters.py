"""Placement pre-filters through the real scheduler on a running
two-cell plane (two computes per cell): availability zones, tenant
isolation, isolated aggregates and required traits restrict the
candidates INSIDE the one candidate query (statements counted), and the
aggregate filters by Nova's names."""
import oslo_messaging as messaging
from oslo_utils import uuidutils
import pytest

from nova_lite.compute.api import aggregates as aggregates_api
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite import objects
from nova_lite.objects import embedded_flavor
from nova_lite.placement import aggregates as placement_aggregates
from nova_lite.placement import allocations
from nova_lite.scheduler import manager as scheduler_manager
from tests.conftest import set_override
from tests.functional.conftest import start_plane
from tests.functional.conftest import stop_plane
from tests.functional.db import inventory_helpers as h

# The candidate query: the free amounts of the providers it finds.
CANDIDATE_QUERY = 'free_MEMORY_MB'


class Cloud(object):
    def __init__(self, plane):
        self.plane = plane
        self.ctxt = nova_context.get_admin_context()
        self.nodes = {}
        for cell in plane.cells.values():
            with nova_context.target_cell(self.ctxt, cell) as cctxt:
                self.nodes.update(
                    (n.host, n.uuid)
                    for n in objects.ComputeNodeList.get_all(cctxt))
        self.scheduler = scheduler_manager.SchedulerManager()


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    plane = start_plane(tmp_path_factory.mktemp('plane') / 'state',
                        with_api=False)
    try:
        yield Cloud(plane)
    finally:
        stop_plane(plane)


@pytest.fixture
def overrides():
    done = []

    def set_to(name, value, group=None):
        set_override(name, value, group=group)
        done.append((name, group))
    yield set_to
    for name, group in done:
        CONF.clear_override(name, group=group)


@pytest.fixture
def aggregates(cloud):
    """Make aggregates through the compute API; all gone afterwards."""
    made = []

    def make(name, hosts, zone=None, metadata=None):
        agg = aggregates_api.create(cloud.ctxt, name, zone)
        for host in hosts:
            aggregates_api.add_host(cloud.ctxt, agg.id, host)
        if metadata:
            aggregates_api.update_metadata(cloud.ctxt, agg.id, metadata)
        made.append(agg.id)
        return agg
    yield make
    for agg_id in made:
        agg = aggregates_api.get(cloud.ctxt, agg_id)
        for host in agg.hosts:
            aggregates_api.remove_host(cloud.ctxt, agg_id, host)
        aggregates_api.delete(cloud.ctxt, agg_id)


def _spec(zone=None, project='p', extra_specs=None, image_props=None):
    flavor = embedded_flavor.EmbeddedFlavor(
        id=1, flavorid='tiny', name='tiny', memory_mb=64, vcpus=1,
        root_gb=0, ephemeral_gb=0, swap=0,
        extra_specs=dict(extra_specs or {}))
    return objects.RequestSpec(
        instance_uuid=uuidutils.generate_uuid(), project_id=project,
        user_id='u', flavor=flavor,
        image={'id': 'i', 'properties': dict(image_props or {})},
        num_instances=1, availability_zone=zone, ignore_hosts=[],
        requested_destination=None, scheduler_hints=None, is_bfv=False)


def _hosts(cloud, spec, tries=4):
    """The hosts the scheduler picks for spec over a few requests
    (nothing stays claimed); NoValidHost gives set()."""
    found = set()
    for _ in range(tries):
        consumer = uuidutils.generate_uuid()
        try:
            [selections] = cloud.scheduler.select_destinations(
                cloud.ctxt, spec_obj=spec, instance_uuids=[consumer],
                return_alternates=True)
        except messaging.ExpectedException:
            return set()
        finally:
            allocations.remove_allocations(cloud.ctxt, consumer)
        found.update(s['host'] for s in selections)
    return found


def test_zone_is_a_member_of_filter_in_the_one_candidate_query(
        cloud, aggregates):
    aggregates('z', ['cell2-compute1'], zone='az-z')
    counter = h.StatementCounter(api=api_db.get_engines())
    with counter.counting():
        assert _hosts(cloud, _spec('az-z'), tries=1) == {'cell2-compute1'}
    candidate = [s for s in counter.statements['api']
                 if CANDIDATE_QUERY in s]
    assert len(candidate) == 1, candidate
    assert 'resource_provider_aggregates' in candidate[0]


def test_zone_filter_alone_when_placement_is_not_asked(cloud, aggregates,
                                                       overrides):
    overrides('query_placement_for_availability_zone', False, 'scheduler')
    aggregates('z2', ['cell1-compute2'], zone='az-2')
    assert _hosts(cloud, _spec('az-2')) == {'cell1-compute2'}
    # The default zone: every host in no zone.
    assert 'cell1-compute2' not in _hosts(cloud, _spec('nova'), tries=6)


def test_tenant_isolation(cloud, aggregates, overrides):
    aggregates('t', ['cell1-compute1'],
               metadata={'filter_tenant_id': 'tenant-a,tenant-x'})
    overrides('limit_tenants_to_placement_aggregate', True, 'scheduler')
    assert _hosts(cloud, _spec(project='tenant-a')) == {'cell1-compute1'}
    assert len(_hosts(cloud, _spec(project='tenant-b'), tries=8)) > 1
    overrides('placement_aggregate_required_for_tenants', True, 'scheduler')
    assert _hosts(cloud, _spec(project='tenant-b')) == set()
    # The filter keeps other projects off the isolated host.
    overrides('placement_aggregate_required_for_tenants', False, 'scheduler')
    overrides('enabled_filters', ['ComputeFilter',
                                  'AggregateMultiTenancyIsolation'],
              'filter_scheduler')
    assert 'cell1-compute1' not in _hosts(cloud, _spec(project='tenant-b'),
                                          tries=8)


def test_required_traits_and_isolated_aggregates(cloud, aggregates,
                                                 overrides):
    node = cloud.nodes['cell2-compute2']
    placement_aggregates.set_traits(cloud.ctxt, node, ['CUSTOM_GPU'])
    try:
        gpu = {'trait:CUSTOM_GPU': 'required'}
        assert _hosts(cloud, _spec(extra_specs=gpu)) == {'cell2-compute2'}
        assert _hosts(cloud, _spec(image_props=gpu)) == {'cell2-compute2'}
        assert _hosts(cloud, _spec(extra_specs={
            'trait:CUSTOM_NONE': 'required'})) == set()
        assert 'cell2-compute2' not in _hosts(cloud, _spec(extra_specs={
            'trait:CUSTOM_GPU': 'forbidden'}), tries=8)
        # Isolated: the host of an aggregate requiring the trait takes
        # only requests that require it.
        aggregates('gpu', ['cell2-compute2'], metadata=gpu)
        overrides('enable_isolated_aggregate_filtering', True, 'scheduler')
        assert 'cell2-compute2' not in _hosts(cloud, _spec(), tries=8)
        counter = h.StatementCounter(api=api_db.get_engines())
        with counter.counting():
            assert _hosts(cloud, _spec(extra_specs=gpu), tries=1) == {
                'cell2-compute2'}
        assert len([s for s in counter.statements['api']
                    if CANDIDATE_QUERY in s]) == 1
    finally:
        placement_aggregates.set_traits(cloud.ctxt, node, [])


def test_aggregate_instance_extra_specs_filter(cloud, aggregates,
                                               overrides):
    aggregates('ssd', ['cell1-compute1'], metadata={'ssd': 'true',
                                                    'cores': '16'})
    overrides('enabled_filters', ['ComputeFilter',
                                  'AggregateInstanceExtraSpecsFilter'],
              'filter_scheduler')
    assert _hosts(cloud, _spec(extra_specs={'ssd': 'true'})) == {
        'cell1-compute1'}
    assert _hosts(cloud, _spec(extra_specs={
        'aggregate_instance_extra_specs:cores': '>= 8'})) == {
        'cell1-compute1'}
    assert _hosts(cloud, _spec(extra_specs={'ssd': 'false'})) == set()
    # Scoped specs of other namespaces are not the filter's business.
    assert len(_hosts(cloud, _spec(extra_specs={
        'hw:cpu_policy': 'shared'}), tries=8)) > 1


def test_image_properties_filter(cloud, overrides):
    overrides('enabled_filters', ['ComputeFilter', 'ImagePropertiesFilter'],
              'filter_scheduler')
    assert _hosts(cloud, _spec(image_props={'hw_architecture': 'x86_64'}))
    assert _hosts(cloud, _spec(image_props={
        'hw_architecture': 's390x'})) == set()
