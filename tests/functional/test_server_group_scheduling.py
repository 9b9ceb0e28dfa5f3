"""Server groups through the real scheduler: select_destinations over
RPC in a running two-cell plane (two computes per cell) for request
specs carrying an anti-affinity group whose other members' hosts the
super conductor would have read. The filters read nothing of their
own: one candidate query whatever the group, and the members of one
request spread over distinct hosts (each placed member counts for the
next)."""
from oslo_utils import uuidutils
import pytest

from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import embedded_flavor
from nova_lite.placement import allocations
from nova_lite.scheduler import rpcapi as scheduler_rpcapi
from tests.functional.conftest import start_plane
from tests.functional.conftest import stop_plane
from tests.functional.db import inventory_helpers as h


@pytest.fixture(scope='module')
def plane(tmp_path_factory):
    p = start_plane(tmp_path_factory.mktemp('plane') / 'state',
                    with_api=False)
    try:
        ctxt = nova_context.get_admin_context()
        hosts = []
        for cell in p.cells.values():
            with nova_context.target_cell(ctxt, cell) as cctxt:
                hosts += [n.host for n in
                          objects.ComputeNodeList.get_all(cctxt)]
        p.hosts = sorted(hosts)
        yield p
    finally:
        stop_plane(p)


def _spec(group):
    flavor = embedded_flavor.EmbeddedFlavor(
        id=1, flavorid='tiny', name='tiny', memory_mb=64, vcpus=1,
        root_gb=0, ephemeral_gb=0, swap=0, extra_specs={})
    return objects.RequestSpec(
        instance_uuid=uuidutils.generate_uuid(), project_id='p',
        user_id='u', flavor=flavor, image=None, num_instances=1,
        availability_zone=None, ignore_hosts=[], requested_destination=None,
        scheduler_hints=None, is_bfv=False, instance_group=group)


def _group(ctxt, policy, hosts, **rules):
    group = objects.InstanceGroup(
        ctxt, uuid=uuidutils.generate_uuid(), name='g', user_id='u',
        project_id='p', policy=policy, rules=rules, members=[])
    group.create()
    group.hosts = list(hosts)
    return group


def _select(ctxt, spec, count):
    consumers = [uuidutils.generate_uuid() for _ in range(count)]
    try:
        answer = scheduler_rpcapi.SchedulerAPI().select_destinations(
            ctxt, spec, consumers, return_alternates=True)
    finally:
        for consumer in consumers:
            allocations.remove_allocations(ctxt, consumer)
    return answer


def _candidate_queries(statements):
    return [s for s in statements if 'free_MEMORY_MB' in s
            and 'allocations' in s]


def test_anti_affinity_members_spread_with_one_candidate_query(plane):
    ctxt = nova_context.get_admin_context()
    taken = plane.hosts[:2]
    group = _group(ctxt, 'anti-affinity', taken)
    counter = h.StatementCounter(api=api_db.get_engines())
    with counter.counting():
        answer = _select(ctxt, _spec(group), 2)
    chosen = [selections[0]['host'] for selections in answer]
    assert sorted(chosen) == plane.hosts[2:]
    for selections in answer:
        assert not {s['host'] for s in selections} & set(taken)
    assert len(_candidate_queries(counter.statements['api'])) == 1
    # A third member has no host left.
    with pytest.raises(exception.NoValidHost):
        _select(ctxt, _spec(_group(ctxt, 'anti-affinity', plane.hosts)), 1)


def test_max_server_per_host_and_affinity(plane):
    ctxt = nova_context.get_admin_context()
    group = _group(ctxt, 'anti-affinity', plane.hosts,
                   max_server_per_host=2)
    answer = _select(ctxt, _spec(group), 4)
    assert sorted(s[0]['host'] for s in answer) == plane.hosts
    group = _group(ctxt, 'affinity', [plane.hosts[3]])
    answer = _select(ctxt, _spec(group), 2)
    assert [s[0]['host'] for s in answer] == [plane.hosts[3]] * 2
    # An affinity group placed in one request: all on the first's host.
    answer = _select(ctxt, _spec(_group(ctxt, 'affinity', [])), 3)
    assert len({s[0]['host'] for s in answer}) == 1
