#!/usr/bin/env python3
"""select_destinations with N compute nodes in 2 cells: is scheduling
cost independent of the cloud's size?

    python tools/bench/select_destinations.py [--nodes 500 5000]
        [--runs 200] [--backend sqlite|mysql] [--zone-hosts 100]

For each size: fresh API and cell databases (all-in-one layout), N
compute nodes (half per cell) with their services and resource
providers (16 VCPU, 32 GiB, 1 TiB each, a third of them partly used by
other instances), then `runs` calls of the scheduler's
select_destinations for one instance of a 1 vCPU / 512 MiB / 1 GB
flavor -- candidates query, host states from the cells, filters,
weighers, claim -- each claim removed again so that every call sees the
same cloud. Prints p50/p95 per size and the ratio of the largest size's
p50 to the smallest's. Target (issue 14): 5,000-node p50 <= 2 x the
500-node p50.

--zone-hosts N (N > 0): N of the nodes, spread over both cells, are
also put in an availability zone (a host aggregate mirrored into
placement) and the same runs are made again asking for that zone (the
placement pre-filter and the AvailabilityZoneFilter): the zone's p50 per
size and its ratio are printed as well (issue 34).
"""
import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid as uuid_lib

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, REPO)

import eventlet  # noqa: E402

eventlet.monkey_patch()

from oslo_utils import timeutils  # noqa: E402

from nova_lite import allinone  # noqa: E402
from nova_lite.conf import CONF  # noqa: E402
from nova_lite import config  # noqa: E402
from nova_lite import context as nova_context  # noqa: E402
from nova_lite.db.main import api as main_db  # noqa: E402
from nova_lite.db.main import models  # noqa: E402
from nova_lite import objects  # noqa: E402
from nova_lite.objects import aggregate as aggregate_obj  # noqa: E402
from nova_lite.placement import aggregates as placement_aggs  # noqa: E402
from nova_lite.placement import allocations  # noqa: E402
from nova_lite.placement import hosts  # noqa: E402
from nova_lite.scheduler import manager  # noqa: E402

INVENTORY = {
    'VCPU': {'total': 16, 'reserved': 0, 'min_unit': 1, 'max_unit': 16,
             'step_size': 1, 'allocation_ratio': 16.0},
    'MEMORY_MB': {'total': 32768, 'reserved': 512, 'min_unit': 1,
                  'max_unit': 32768, 'step_size': 1,
                  'allocation_ratio': 1.5},
    'DISK_GB': {'total': 1024, 'reserved': 0, 'min_unit': 1,
                'max_unit': 1024, 'step_size': 1, 'allocation_ratio': 1.0},
}


def _populate(ctxt, cells, n_nodes):
    now = timeutils.utcnow().replace(tzinfo=None)
    per_cell = n_nodes // len(cells)
    providers = []
    for ci, cell in enumerate(cells):
        services, nodes = [], []
        for i in range(per_cell):
            host = 'c%d-host%05d' % (ci + 1, i)
            node_uuid = str(uuid_lib.uuid4())
            services.append({'host': host, 'binary': 'nova-compute',
                             'topic': 'compute', 'report_count': 1,
                             'disabled': False, 'forced_down': False,
                             'last_seen_up': now, 'created_at': now,
                             'updated_at': now, 'deleted': 0,
                             'version': 5, 'uuid': str(uuid_lib.uuid4())})
            nodes.append({'uuid': node_uuid, 'host': host,
                          'hypervisor_hostname': host, 'vcpus': 16,
                          'memory_mb': 32768, 'local_gb': 1024,
                          'vcpus_used': 0, 'memory_mb_used': 512,
                          'local_gb_used': 0, 'hypervisor_type': 'fake',
                          'hypervisor_version': 1000, 'cpu_info': '{}',
                          'created_at': now, 'deleted': 0,
                          'inventory_migrated': True})
            used = {'VCPU': 4, 'MEMORY_MB': 8192, 'DISK_GB': 100} \
                if i % 3 == 0 else {}
            providers.append({'uuid': node_uuid, 'name': host,
                              'inventories': INVENTORY, 'used': used})
        with nova_context.target_cell(ctxt, cell) as cctxt:
            with main_db.get_engine(cctxt).begin() as conn:
                conn.execute(models.Service.__table__.insert(), services)
                conn.execute(models.ComputeNode.__table__.insert(), nodes)
    for start in range(0, len(providers), 500):
        hosts.create_host_providers(ctxt, providers[start:start + 500])
    return providers


ZONE = 'bench-az'


def _zone(ctxt, providers, count):
    """count of the providers' hosts, evenly spread, in ZONE."""
    step = max(len(providers) // count, 1)
    members = providers[::step][:count]
    agg = aggregate_obj.Aggregate.create(ctxt, 'bench-zone',
                                         {aggregate_obj.AZ_KEY: ZONE})
    for provider in members:
        aggregate_obj.Aggregate.add_host(ctxt, agg.id, provider['name'])
    placement_aggs.add_to_aggregate(ctxt, [p['uuid'] for p in members],
                                    agg.uuid)
    return {p['name'] for p in members}


def _time(ctxt, sched, spec, runs, allowed=None):
    times = []
    for i in range(runs + 5):
        consumer = str(uuid_lib.uuid4())
        start = time.perf_counter()
        answer = sched.select_destinations(ctxt, spec_obj=spec,
                                           instance_uuids=[consumer],
                                           return_alternates=True)
        elapsed = time.perf_counter() - start
        assert answer and answer[0], 'no host selected'
        if allowed is not None:
            assert {s['host'] for s in answer[0]} <= allowed
        allocations.remove_allocations(ctxt, consumer)
        if i >= 5:   # warm-up: caches, pools
            times.append(elapsed)
    times.sort()
    return times, answer


def run_size(n_nodes, runs, zone_hosts=0):
    state = tempfile.mkdtemp(prefix='nl-bench-sched-')
    allinone.configure(state)
    cells_by_name = allinone.prepare_databases(state, 2)
    ctxt = nova_context.get_admin_context()
    cells = [c for name, c in sorted(cells_by_name.items())
             if name != 'cell0']
    t0 = time.perf_counter()
    providers = _populate(ctxt, cells, n_nodes)
    setup = time.perf_counter() - t0
    sched = manager.SchedulerManager()
    flavor = objects.EmbeddedFlavor(id=1, flavorid='1', name='small',
                                    memory_mb=512, vcpus=1, root_gb=1,
                                    ephemeral_gb=0, swap=0, extra_specs={})

    def spec(zone=None):
        return objects.RequestSpec(
            instance_uuid=str(uuid_lib.uuid4()), project_id='p',
            user_id='u', flavor=flavor, image=None, num_instances=1,
            availability_zone=zone, ignore_hosts=[],
            requested_destination=None, scheduler_hints=None)
    times, answer = _time(ctxt, sched, spec(), runs)
    result = {'nodes': n_nodes, 'setup_s': setup,
              'p50_ms': 1000 * statistics.median(times),
              'p95_ms': 1000 * times[int(0.95 * (len(times) - 1))],
              'alternates': len(answer[0]) - 1}
    if zone_hosts:
        members = _zone(ctxt, providers, zone_hosts)
        times, answer = _time(ctxt, sched, spec(ZONE), runs, members)
        result.update(zone_p50_ms=1000 * statistics.median(times),
                      zone_p95_ms=1000 * times[int(0.95 * (len(times) - 1))])
    allinone.unconfigure()
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--nodes', type=int, nargs='+', default=[500, 5000])
    parser.add_argument('--runs', type=int, default=200)
    parser.add_argument('--zone-hosts', type=int, default=0)
    args = parser.parse_args()
    config.parse_args(['bench'], default_config_files=[],
                      configure_logging=False)
    print('select_destinations, 1 instance, 2 cells, SQLite, '
          'max_candidates=%d, %d runs per size'
          % (CONF.scheduler.max_candidates, args.runs))
    results = [run_size(n, args.runs, args.zone_hosts) for n in args.nodes]
    for r in results:
        print('%6d nodes: p50 %.2f ms  p95 %.2f ms  (%d alternates; '
              'set-up %.1f s)' % (r['nodes'], r['p50_ms'], r['p95_ms'],
                                  r['alternates'], r['setup_s']))
        if args.zone_hosts:
            print('%6d nodes, zone of %d hosts: p50 %.2f ms  p95 %.2f ms'
                  % (r['nodes'], args.zone_hosts, r['zone_p50_ms'],
                     r['zone_p95_ms']))
    if len(results) > 1:
        print('p50 ratio %d/%d nodes: %.2f (target <= 2)' % (
            results[-1]['nodes'], results[0]['nodes'],
            results[-1]['p50_ms'] / results[0]['p50_ms']))
        if args.zone_hosts:
            print('zone p50 ratio %d/%d nodes: %.2f (target <= 2)' % (
                results[-1]['nodes'], results[0]['nodes'],
                results[-1]['zone_p50_ms'] / results[0]['zone_p50_ms']))


if __name__ == '__main__':
    main()
