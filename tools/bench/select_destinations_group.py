#!/usr/bin/env python3
"""select_destinations for a member of an anti-affinity server group of
100 members, with N compute nodes in 2 cells: does the group keep the
scheduling cost independent of the cloud's size?

    python tools/bench/select_destinations_group.py [--nodes 500 5000]
        [--runs 100] [--members 100]

The cloud is select_destinations.py's (same populate). The group's 100
other members sit on the first 100 hosts the candidate query returns
(the worst case: the first batches of candidates all fail the
anti-affinity filter, so the scheduler reads on). Each call places one
instance with the request spec as the super conductor hands it over
(instance_group with its members' hosts: no query of the filters' own)
and the availability zone named; its claim is removed again so that
every call sees the same cloud. Prints p50/p95 per size, the
1-instance no-group p50 beside it, and the ratio of the largest size's
p50 to the smallest's (issue 34's target: <= 2).
"""
import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid as uuid_lib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import select_destinations as base  # noqa: E402

from nova_lite import allinone  # noqa: E402
from nova_lite.conf import CONF  # noqa: E402
from nova_lite import config  # noqa: E402
from nova_lite import context as nova_context  # noqa: E402
from nova_lite import objects  # noqa: E402
from nova_lite.placement import allocations  # noqa: E402
from nova_lite.scheduler import manager  # noqa: E402


def _spec(flavor, member_hosts):
    group = None
    if member_hosts is not None:
        group = objects.InstanceGroup(
            uuid=str(uuid_lib.uuid4()), name='bench', user_id='u',
            project_id='p', policy='anti-affinity', rules={},
            members=[str(uuid_lib.uuid4()) for _ in member_hosts],
            hosts=list(member_hosts))
    return objects.RequestSpec(
        instance_uuid=str(uuid_lib.uuid4()), project_id='p', user_id='u',
        flavor=flavor, image=None, num_instances=1,
        availability_zone=CONF.default_availability_zone, ignore_hosts=[],
        requested_destination=None, scheduler_hints=None,
        instance_group=group)


def _time(sched, ctxt, flavor, member_hosts, runs):
    times, answer = [], None
    for i in range(runs + 5):
        spec = _spec(flavor, member_hosts)
        consumer = str(uuid_lib.uuid4())
        start = time.perf_counter()
        answer = sched.select_destinations(ctxt, spec_obj=spec,
                                           instance_uuids=[consumer],
                                           return_alternates=True)
        elapsed = time.perf_counter() - start
        assert answer and answer[0], 'no host selected'
        if member_hosts is not None:
            assert answer[0][0]['host'] not in member_hosts
        allocations.remove_allocations(ctxt, consumer)
        if i >= 5:
            times.append(elapsed)
    times.sort()
    return (1000 * statistics.median(times),
            1000 * times[int(0.95 * (len(times) - 1))])


def run_size(n_nodes, runs, members):
    state = tempfile.mkdtemp(prefix='nl-bench-group-')
    allinone.configure(state)
    cells_by_name = allinone.prepare_databases(state, 2)
    ctxt = nova_context.get_admin_context()
    cells = [c for name, c in sorted(cells_by_name.items())
             if name != 'cell0']
    t0 = time.perf_counter()
    base._populate(ctxt, cells, n_nodes)
    setup = time.perf_counter() - t0
    # The hosts the candidate query returns first (creation order).
    member_hosts = ['c1-host%05d' % i for i in range(members)]
    sched = manager.SchedulerManager()
    flavor = objects.EmbeddedFlavor(id=1, flavorid='1', name='small',
                                    memory_mb=512, vcpus=1, root_gb=1,
                                    ephemeral_gb=0, swap=0, extra_specs={})
    plain = _time(sched, ctxt, flavor, None, runs)
    group = _time(sched, ctxt, flavor, member_hosts, runs)
    allinone.unconfigure()
    return {'nodes': n_nodes, 'setup_s': setup, 'plain_p50_ms': plain[0],
            'p50_ms': group[0], 'p95_ms': group[1]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--nodes', type=int, nargs='+', default=[500, 5000])
    parser.add_argument('--runs', type=int, default=100)
    parser.add_argument('--members', type=int, default=100)
    args = parser.parse_args()
    config.parse_args(['bench'], default_config_files=[],
                      configure_logging=False)
    # The services' heartbeats are written once, at set-up: keep them up
    # however long the runs take.
    CONF.set_override('service_down_time', 24 * 3600)
    print('select_destinations, 1 instance of an anti-affinity group of '
          '%d members (on the first %d candidates), zone %s, 2 cells, '
          'SQLite, max_candidates=%d, %d runs per size'
          % (args.members, args.members, CONF.default_availability_zone,
             CONF.scheduler.max_candidates, args.runs))
    results = [run_size(n, args.runs, args.members) for n in args.nodes]
    for r in results:
        print('%6d nodes: group p50 %.2f ms  p95 %.2f ms  (no group p50 '
              '%.2f ms; set-up %.1f s)' % (
                  r['nodes'], r['p50_ms'], r['p95_ms'], r['plain_p50_ms'],
                  r['setup_s']))
    if len(results) > 1:
        print('group p50 ratio %d/%d nodes: %.2f (target <= 2)' % (
            results[-1]['nodes'], results[0]['nodes'],
            results[-1]['p50_ms'] / results[0]['p50_ms']))


if __name__ == '__main__':
    main()
