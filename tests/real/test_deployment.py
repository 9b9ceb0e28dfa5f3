"""A real deployment: every service in its own process, on MariaDB and
RabbitMQ, built by tools/deployment.py exactly as an operator would
(nova-lite-manage, one config per process, one vhost per cell, cell
conductors without [api_database]).

One deployment (tests/real/conftest.py shared_deployment) serves this
module and test_resize_deployment.py; the tests run in order and leave
it as they found it, except where they say.
"""
import configparser
import json
import os
import subprocess
import sys
from urllib import parse
import urllib.request

import oslo_messaging as messaging
import pytest
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite.db.main import models as main_models
from tests import clients
from tests.functional.conftest import wait_for
from tests.functional.websocket_client import WebSocket

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.dirname(sys.executable)
ADMIN = {'X-Auth-Token': 'admin:admin', 'Content-Type': 'application/json'}


@pytest.fixture(scope='module')
def deployment(shared_deployment):
    """The session's deployment (tests/real/conftest.py), which
    test_resize_deployment.py uses too."""
    yield shared_deployment


def api(dep, method, path, body=None, version=None, prefix='/v2.1'):
    """(status, JSON body) of a request to the deployment's API as
    admin (prefix: /v2.1, or another service's root it serves)."""
    headers = dict(ADMIN)
    if version:
        headers['OpenStack-API-Version'] = 'compute %s' % version
    req = urllib.request.Request(
        dep.endpoint + prefix + path, method=method, headers=headers,
        data=json.dumps(body).encode() if body is not None else None)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            raw = resp.read()
            return resp.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b'null')


def openstack(dep, *args):
    return clients.openstack_json(clients.openstack_env(dep.endpoint), *args)


def manage(dep, *args):
    return subprocess.run(
        [os.path.join(BIN, 'nova-lite-manage'), '--config-file',
         os.path.join(dep.workdir, 'top.conf'), *args],
        capture_output=True, text=True, timeout=120)


def expected_hosts(dep):
    hosts = {('nova-conductor', 'top'), ('nova-scheduler', 'top')}
    for cell in dep.cell_names():
        hosts.add(('nova-conductor', '%s-conductor' % cell))
        for i in range(1, dep.computes_per_cell + 1):
            hosts.add(('nova-compute', '%s-compute%d' % (cell, i)))
    return hosts


def test_cell_conductors_and_computes_have_no_api_database(deployment):
    for cell in deployment.cell_names():
        conductor = configparser.ConfigParser()
        conductor.read(os.path.join(deployment.workdir,
                                    '%s-conductor.conf' % cell))
        assert not conductor.has_section('api_database')
        assert deployment.db(cell) in conductor['database']['connection']
        assert conductor['DEFAULT']['transport_url'].endswith(
            '/' + deployment.vhost(cell))
        compute = configparser.ConfigParser()
        compute.read(os.path.join(deployment.workdir,
                                  '%s-compute1.conf' % cell))
        assert not compute.has_section('api_database')
        assert not compute.has_section('database')
        # The embedded image and network services stand in for Glance and
        # Neutron, which computes reach directly.
        assert deployment.db('local_services') in compute[
            'local_services']['connection']


def test_images_and_keypairs_on_mariadb(deployment):
    """The image proxy reads the local-services database that
    `local_services create_defaults` filled; key pairs live in the API
    database."""
    status, body = api(deployment, 'GET', '/images/detail')
    assert status == 200
    assert '155d900f-4e14-4e4c-a73d-069cbf4541e6' in [
        i['id'] for i in body['images']]
    status, body = api(deployment, 'POST', '/os-keypairs',
                       {'keypair': {'name': 'deploy-key'}}, '2.2')
    assert status == 201 and body['keypair']['private_key']
    status, body = api(deployment, 'GET', '/os-keypairs/deploy-key', None,
                       '2.2')
    assert (status, body['keypair']['type']) == (200, 'ssh')
    assert api(deployment, 'DELETE', '/os-keypairs/deploy-key', None,
               '2.2')[0] == 204


def test_only_the_super_conductor_serves_compute_task(deployment):
    """The top conductor holds [api_database]: it serves compute_task next
    to object indirection; a cell conductor (no API DB) does not."""
    import oslo_messaging as messaging

    from nova_lite.conductor import rpcapi as conductor_rpcapi
    from nova_lite import context as nova_context
    from nova_lite import rpc

    def transport_of(conf_name):
        conf = configparser.ConfigParser()
        conf.read(os.path.join(deployment.workdir, conf_name))
        return rpc.get_transport(conf['DEFAULT']['transport_url'])

    ctxt = nova_context.get_admin_context()
    try:
        top = conductor_rpcapi.ComputeTaskAPI(
            transport=transport_of('top.conf'))
        assert top.ping(ctxt, 'hi') == {'service': 'compute_task',
                                        'arg': 'hi'}
        for cell in deployment.cell_names():
            cell_api = conductor_rpcapi.ComputeTaskAPI(
                transport=transport_of('%s-conductor.conf' % cell))
            # (Over RabbitMQ it comes back as a RemoteError naming it.)
            with pytest.raises((messaging.UnsupportedVersion,
                                messaging.RemoteError)) as exc:
                cell_api.ping(ctxt, 'hi')
            assert getattr(exc.value, 'exc_type',
                           type(exc.value).__name__) == 'UnsupportedVersion'
    finally:
        rpc.cleanup()


def test_every_service_is_up_in_os_services(deployment):
    status, body = api(deployment, 'GET', '/os-services', version='2.53')
    assert status == 200
    seen = {(s['binary'], s['host']) for s in body['services']}
    assert seen == expected_hosts(deployment)
    assert {s['state'] for s in body['services']} == {'up'}
    zones = {s['binary']: s['zone'] for s in body['services']}
    assert zones['nova-compute'] == 'nova'
    assert zones['nova-conductor'] == 'internal'


def test_four_hypervisors_reported_by_their_computes(deployment):
    status, body = api(deployment, 'GET', '/os-hypervisors/detail',
                       version='2.53')
    assert status == 200
    nodes = {h['hypervisor_hostname']: h for h in body['hypervisors']}
    assert sorted(nodes) == ['cell1-compute1', 'cell1-compute2',
                             'cell2-compute1', 'cell2-compute2']
    for node in nodes.values():
        assert node['state'] == 'up' and node['status'] == 'enabled'
        assert node['service']['host'] == node['hypervisor_hostname']


def test_usage_audit_recorded_by_every_compute_process(deployment):
    """Each compute process audits the last period at its first
    periodic run, writing its task log through its cell conductor (RPC
    to another process); the API reports every host done."""
    def audited():
        status, body = api(deployment, 'GET', '/os-instance_usage_audit_log')
        assert status == 200, body
        return body['instance_usage_audit_logs']
    wait_for(lambda: audited()['num_hosts_done'] == 4, timeout=60,
             message='every compute audited')
    log = audited()
    assert log['overall_status'] == 'ALL hosts done. 0 errors.'
    assert sorted(log['log']) == ['cell1-compute1', 'cell1-compute2',
                                  'cell2-compute1', 'cell2-compute2']


def test_disabled_service_is_reported_disabled(deployment):
    status, body = api(deployment, 'GET',
                       '/os-services?binary=nova-compute&'
                       'host=cell2-compute2', version='2.53')
    assert status == 200 and len(body['services']) == 1
    service_id = body['services'][0]['id']
    try:
        status, body = api(deployment, 'PUT', '/os-services/%s' % service_id,
                           {'status': 'disabled',
                            'disabled_reason': 'maintenance'},
                           version='2.53')
        assert status == 200, body
        assert body['service']['status'] == 'disabled'
        # Read back through a fresh request: the cell database kept it.
        status, body = api(deployment, 'GET', '/os-services', version='2.53')
        by_host = {s['host']: s for s in body['services']
                   if s['binary'] == 'nova-compute'}
        assert by_host['cell2-compute2']['status'] == 'disabled'
        assert by_host['cell2-compute2']['disabled_reason'] == 'maintenance'
        assert by_host['cell1-compute1']['status'] == 'enabled'
        # A disabled compute keeps reporting: still up.
        assert by_host['cell2-compute2']['state'] == 'up'
    finally:
        api(deployment, 'PUT', '/os-services/%s' % service_id,
            {'status': 'enabled'}, version='2.53')


def test_openstack_client_lists_services_and_hypervisors(deployment):
    """The README's OS_AUTH_TYPE=admin_token settings work with the
    unmodified openstack CLI."""
    services = openstack(deployment, 'compute', 'service', 'list')
    assert {(s['Binary'], s['Host']) for s in services} == \
        expected_hosts(deployment)
    hypervisors = openstack(deployment, 'hypervisor', 'list')
    assert sorted(h['Hypervisor Hostname'] for h in hypervisors) == [
        'cell1-compute1', 'cell1-compute2', 'cell2-compute1',
        'cell2-compute2']
    assert {h['State'] for h in hypervisors} == {'up'}


def test_upgrade_check_passes_on_a_fresh_deployment(deployment):
    out = subprocess.run(
        [os.path.join(BIN, 'nova-lite-status'), '--config-file',
         os.path.join(deployment.workdir, 'top.conf'), 'upgrade', 'check'],
        capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert 'Cells v2' in out.stdout
    assert 'Service Versions' in out.stdout


def test_sighup_resets_a_running_conductor_and_api(deployment):
    """oslo.service 'mutate' restart: SIGHUP re-reads config and resets
    each service (cached minimum versions forgotten) without stopping it."""
    import signal
    import time
    for name, host in (('cell2-conductor', 'cell2-conductor'),
                       ('api', 'nova-lite-api')):
        os.kill(deployment.procs[name], signal.SIGHUP)
    deadline = time.monotonic() + 30
    wanted = {'cell2-conductor.log': 'nova-conductor on '
                                     'cell2-conductor reset (SIGHUP)',
              'api.log': 'nova-lite-api reset (SIGHUP)'}
    while wanted and time.monotonic() < deadline:
        for out in list(wanted):
            with open(os.path.join(deployment.workdir, out)) as f:
                if wanted[out] in f.read():
                    del wanted[out]
        time.sleep(0.2)
    assert not wanted, 'no reset logged in %s' % wanted
    # Still serving: the API answers and the computes of cell2 keep their
    # heartbeat through the reset conductor.
    status, body = api(deployment, 'GET', '/os-services', version='2.53')
    assert status == 200
    assert {s['state'] for s in body['services']} == {'up'}
    from tests.functional.conftest import wait_for
    before = _report_counts(deployment)
    wait_for(lambda: all(_report_counts(deployment)[h] > before[h]
                         for h in ('cell2-compute1', 'cell2-compute2')),
             timeout=20, message='cell2 computes to heartbeat again')


def _report_counts(dep):
    services = main_models.Service.__table__
    engine = _engine(dep, 'cell2')
    try:
        with engine.connect() as conn:
            return dict(conn.execute(sa.select(
                services.c.host, services.c.report_count)).fetchall())
    finally:
        engine.dispose()


def _engine(dep, name):
    return sa.create_engine(dep.db_url(name), poolclass=sa.pool.NullPool)


def test_online_migration_waits_for_an_old_conductor(deployment):
    """Issue 5's scenario on real processes: conductors are running; an
    older (version 2) conductor peer is recorded in cell2 as that release
    recorded it (nova-lite-conductor), and a compute node row as
    version-2 code wrote it (capacity in its columns, no provider).
    online_data_migrations (its own process) moves the legacy flavors
    (they need version 2) but reports migrate_compute_node_inventories
    and migrate_service_binaries blocked, touching no node and renaming
    no service; once the peer has upgraded, the next run migrates the
    node and renames the peer's row."""
    from nova_lite.objects import service_version
    top = _engine(deployment, 'cell1')   # the top-level [database]
    cell2 = _engine(deployment, 'cell2')
    flavors = main_models.InstanceTypes.__table__
    services = main_models.Service.__table__
    nodes = main_models.ComputeNode.__table__
    node_uuid = '00000000-0000-4000-8000-0000000000aa'
    with top.begin() as conn:
        conn.execute(flavors.insert(), [
            {'name': 'legacy.%d' % i, 'flavorid': 'legacy-%d' % i,
             'memory_mb': 512, 'vcpus': 1, 'swap': 0, 'root_gb': 1,
             'ephemeral_gb': 0, 'disabled': False, 'is_public': True,
             'rxtx_factor': 1.0, 'deleted': 0} for i in range(3)])
    with cell2.begin() as conn:
        conn.execute(services.insert().values(
            host='old-conductor', binary='nova-lite-conductor',
            topic='conductor', report_count=0, disabled=False,
            forced_down=False, deleted=0,
            version=2,
            uuid='00000000-0000-4000-8000-00000000c0d1'))
        conn.execute(nodes.insert().values(
            uuid=node_uuid, host='legacy-host',
            hypervisor_hostname='legacy-node', vcpus=4, memory_mb=2048,
            local_gb=20, vcpus_used=1, memory_mb_used=512, local_gb_used=2,
            hypervisor_type='fake', hypervisor_version=1, cpu_info='{}',
            cpu_allocation_ratio=16.0, ram_allocation_ratio=1.5,
            disk_allocation_ratio=1.0, deleted=0))

    def old_conductor_binary():
        with cell2.connect() as conn:
            return conn.execute(sa.select(services.c.binary).where(
                services.c.host == 'old-conductor')).scalar()

    try:
        out = manage(deployment, 'db', 'online_data_migrations', '--json')
        assert out.returncode == 1, out.stdout + out.stderr
        rows = {r['name']: r for r in json.loads(out.stdout)['migrations']}
        assert rows['migrate_flavors']['done'] == 3
        assert 'nova-conductor >= 3 (oldest is 2)' in \
            rows['migrate_compute_node_inventories']['blocked']
        assert rows['migrate_compute_node_inventories']['done'] == 0
        assert 'legacy-node' not in _inventory_totals(deployment, 'VCPU')
        assert 'nova-conductor >= 4 (oldest is 2)' in \
            rows['migrate_service_binaries']['blocked']
        assert rows['migrate_service_binaries']['done'] == 0
        assert old_conductor_binary() == 'nova-lite-conductor'
        # Reported under Nova's name all the same.
        status, body = api(deployment, 'GET',
                           '/os-services?binary=nova-conductor')
        assert 'old-conductor' in {s['host'] for s in body['services']}

        # nova-lite-status sees the same mixed deployment.
        status = subprocess.run(
            [os.path.join(BIN, 'nova-lite-status'), '--config-file',
             os.path.join(deployment.workdir, 'top.conf'), 'upgrade',
             'check', '--json'], capture_output=True, text=True,
            timeout=120)
        # From service version 4 a version-2 peer is more than one behind:
        # status fails it (2), the other checks still report.
        assert status.returncode == 2, status.stdout
        checks = {c['check']: c for c in json.loads(status.stdout)['checks']}
        assert 'nova-conductor on old-conductor (version 2)' in \
            checks['Service Versions']['details']
        assert checks['Online Data Migrations']['result'] == 1
        assert 'migrate_compute_node_inventories: 1' in \
            checks['Online Data Migrations']['details']
        assert 'migrate_service_binaries: 1' in \
            checks['Online Data Migrations']['details']

        # The peer upgrades (its restart would write its new version).
        with cell2.begin() as conn:
            conn.execute(services.update().where(
                services.c.host == 'old-conductor').values(
                    version=service_version.SERVICE_VERSION))
        out = manage(deployment, 'db', 'online_data_migrations', '--json')
        assert out.returncode == 0, out.stdout + out.stderr
        rows = {r['name']: r for r in json.loads(out.stdout)['migrations']}
        assert rows['migrate_compute_node_inventories']['blocked'] is None
        assert rows['migrate_compute_node_inventories']['done'] == 1
        assert _inventory_totals(deployment, 'VCPU')['legacy-node'] == 4
        assert rows['migrate_service_binaries']['blocked'] is None
        assert rows['migrate_service_binaries']['done'] == 1
        assert old_conductor_binary() == 'nova-conductor'
        with top.connect() as conn:
            assert conn.execute(sa.select(sa.func.count()).where(
                flavors.c.deleted == 0)).scalar() == 0
        status, body = api(deployment, 'GET', '/os-services', version='2.53')
        assert status == 200
    finally:
        with cell2.begin() as conn:
            conn.execute(services.delete().where(
                services.c.host == 'old-conductor'))
            conn.execute(nodes.delete().where(nodes.c.uuid == node_uuid))
        api_engine = _engine(deployment, 'api')
        with api_engine.begin() as conn:
            provider = conn.execute(sa.text(
                'SELECT id FROM resource_providers WHERE uuid = :u'),
                {'u': node_uuid}).scalar()
            if provider is not None:
                for table in ('allocations', 'inventories'):
                    conn.execute(sa.text(
                        'DELETE FROM %s WHERE resource_provider_id = :p'
                        % table), {'p': provider})
                conn.execute(sa.text('DELETE FROM resource_providers '
                                     'WHERE id = :p'), {'p': provider})
        api_engine.dispose()
        top.dispose()
        cell2.dispose()


def _inventory_totals(dep, resource_class):
    """{provider name: total} of one class in the API DB."""
    engine = _engine(dep, 'api')
    try:
        with engine.connect() as conn:
            return dict(conn.execute(sa.text(
                'SELECT rp.name, i.total FROM resource_providers rp '
                'JOIN inventories i ON i.resource_provider_id = rp.id '
                'JOIN resource_classes rc ON rc.id = i.resource_class_id '
                'WHERE rc.name = :rc'), {'rc': resource_class}).all())
    finally:
        engine.dispose()


def _vcpus(dep, node):
    return _inventory_totals(dep, 'VCPU').get(node)


def test_compute_capacity_reaches_inventories_through_placement(deployment):
    """Computes (no database) and cell conductors (no API database) reach
    the inventories only through the scheduler's placement topic on their
    cell's vhost: a compute restarted with more CPUs shows them there and
    in os-hypervisors, while its compute_nodes row keeps the old value."""
    dep = deployment
    nodes = ['cell1-compute1', 'cell1-compute2', 'cell2-compute1',
             'cell2-compute2']
    assert _inventory_totals(dep, 'VCPU') == dict.fromkeys(nodes, 16)
    assert _inventory_totals(dep, 'MEMORY_MB') == dict.fromkeys(nodes,
                                                                32768)
    conf = os.path.join(dep.workdir, 'cell2-compute1.conf')
    with open(conf) as f:
        original = f.read()
    pid = dep.procs['cell2-compute1']
    os.kill(pid, 15)
    wait_for(lambda: os.waitpid(pid, os.WNOHANG)[0] == pid, 30,
             message='cell2-compute1 to stop')
    try:
        with open(conf, 'a') as f:
            f.write('[fake_driver]\nvcpus = 40\n')
        dep._spawn('cell2-compute1', 'nova-lite-compute', conf)
        dep.save()
        wait_for(lambda: _vcpus(dep, 'cell2-compute1') == 40, 90,
                 message='the new capacity in the inventories')
        status, body = api(dep, 'GET', '/os-hypervisors/detail',
                           version='2.28')
        vcpus = {h['hypervisor_hostname']: h['vcpus']
                 for h in body['hypervisors']}
        assert vcpus == dict(dict.fromkeys(nodes, 16), **{
            'cell2-compute1': 40})
        cell2 = _engine(dep, 'cell2')
        try:
            with cell2.connect() as conn:
                assert conn.execute(sa.text(
                    "SELECT vcpus, inventory_migrated FROM compute_nodes "
                    "WHERE host = 'cell2-compute1'")).one() == (16, 1)
        finally:
            cell2.dispose()
    finally:
        pid = dep.procs['cell2-compute1']
        os.kill(pid, 15)
        wait_for(lambda: os.waitpid(pid, os.WNOHANG)[0] == pid, 30,
                 message='cell2-compute1 to stop')
        with open(conf, 'w') as f:
            f.write(original)
        dep._spawn('cell2-compute1', 'nova-lite-compute', conf)
        dep.save()
        wait_for(lambda: _vcpus(dep, 'cell2-compute1') == 16, 90,
                 message='the capacity back to 16')


# --- servers ---------------------------------------------------------------

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'


def _servers(dep):
    status, body = api(dep, 'GET', '/servers/detail', version='2.47')
    assert status == 200, body
    return {s['id']: s for s in body['servers']}


def _boot(dep, name, **extra):
    server = {'name': name, 'flavorRef': 'real.tiny', 'imageRef': IMAGE,
              'networks': 'auto'}
    server.update(extra)
    status, body = api(dep, 'POST', '/servers', {'server': server},
                       version='2.47')
    assert status == 202, body
    return body['server']['id']


def _wait_status(dep, ids, statuses, timeout=60):
    def done():
        servers = _servers(dep)
        return servers if all(servers.get(i, {}).get('status') in statuses
                              for i in ids) else None
    return wait_for(done, timeout, message='%s in %s' % (ids, statuses))


def _allocations(dep, consumers):
    engine = _engine(dep, 'api')
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text(
                'SELECT COUNT(*) FROM allocations WHERE consumer_id IN '
                '(%s)' % ','.join("'%s'" % c for c in consumers))).scalar()
    finally:
        engine.dispose()


def _restart_compute(dep, host, extra_conf=''):
    conf = os.path.join(dep.workdir, '%s.conf' % host)
    with open(conf) as f:
        original = f.read().split('# test:')[0]
    with open(conf, 'w') as f:
        f.write(original + ('# test:\n' + extra_conf if extra_conf else ''))
    dep._spawn(host, 'nova-lite-compute', conf)
    dep.save()


def test_servers_boot_in_both_cells_survive_a_dead_compute_and_go(
        deployment):
    """Servers boot through the super conductor into both cells (cell
    conductors without an API DB), a compute killed mid-boot leaves its
    server in ERROR (never BUILD) with its claim and port freed, and
    deleting every server leaves no allocation behind."""
    dep = deployment
    status, _ = api(dep, 'POST', '/flavors', {'flavor': {
        'name': 'real.tiny', 'id': 'real.tiny', 'ram': 256, 'vcpus': 1,
        'disk': 1}})
    assert status == 200
    # One at a time first: each claim makes its host weigh less, so four
    # servers take the four hosts of both cells; then four at once.
    ids = []
    for i in range(4):
        ids.append(_boot(dep, 'real-%d' % i))
        _wait_status(dep, ids, {'ACTIVE'})
    ids += [_boot(dep, 'real-%d' % i) for i in range(4, 8)]
    servers = _wait_status(dep, ids, {'ACTIVE'})
    hosts = {servers[i]['OS-EXT-SRV-ATTR:host'] for i in ids}
    assert {h.split('-')[0] for h in hosts} == {'cell1', 'cell2'}
    assert all('10.0.0.' in json.dumps(servers[i]['addresses'])
               for i in ids)

    # A compute that dies mid-spawn: its server ends in ERROR.
    victim = 'cell1-compute1'
    pid = dep.procs[victim]
    os.kill(pid, 15)
    wait_for(lambda: os.waitpid(pid, os.WNOHANG)[0] == pid, 30,
             message='%s to stop' % victim)
    _restart_compute(dep, victim, '[fake_driver]\nspawn_delay = 60\n')
    wait_for(lambda: any(s['state'] == 'up' and s['host'] == victim
                         for s in api(dep, 'GET', '/os-services')[1][
                             'services']), 60, message='%s up' % victim)
    doomed = _boot(dep, 'real-doomed',
                   availability_zone='nova:%s' % victim)
    try:
        wait_for(lambda: _servers(dep)[doomed].get('OS-EXT-STS:task_state')
                 == 'spawning', 60, message='spawning on %s' % victim)
    except AssertionError:
        with open(os.path.join(dep.workdir, '%s.log' % victim)) as f:
            log = f.read()[-3000:]
        raise AssertionError('%s\n%s' % (_servers(dep)[doomed], log))
    os.killpg(dep.procs[victim], 9)
    try:
        servers = _wait_status(dep, [doomed], {'ERROR', 'ACTIVE'},
                               timeout=90)
        assert servers[doomed]['status'] == 'ERROR'
        # The fault is written just after the state.
        fault = wait_for(lambda: _servers(dep)[doomed].get('fault'), 10,
                         message='the fault')
        assert 'down' in fault['message']
        wait_for(lambda: _allocations(dep, [doomed]) == 0, 30,
                 message='the dead build freed its claim')
    finally:
        _restart_compute(dep, victim)

    for server_id in ids + [doomed]:
        status, _ = api(dep, 'DELETE', '/servers/%s' % server_id)
        assert status == 204
    wait_for(lambda: not _servers(dep), 60, message='every server gone')
    wait_for(lambda: _allocations(dep, ids + [doomed]) == 0, 30,
             message='every allocation gone')


class _Heard(object):
    """A notification endpoint: every versioned notification received."""

    def __init__(self):
        self.received = []

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        self.received.append((event_type, publisher_id, payload))

    error = info

    def about(self, uuid, event_type):
        return [(publisher, payload) for (kind, publisher, payload)
                in self.received if kind == event_type
                and payload['nova_object.data'].get('uuid') == uuid]


def test_versioned_notifications_reach_a_listener_on_the_cell_vhost(
        deployment):
    """A consumer listening on each cell's vhost (topic
    versioned_notifications) hears a server's instance.create.end,
    instance.power_off.end and instance.delete.end from its compute, with
    Nova's payload shape; the stop's event is recorded finished."""
    dep = deployment
    status, _ = api(dep, 'POST', '/flavors', {'flavor': {
        'name': 'real.notify', 'id': 'real.notify', 'ram': 128, 'vcpus': 1,
        'disk': 1}})
    assert status == 200
    heard = _Heard()
    listeners = []
    for cell in dep.cell_names():
        transport = messaging.get_notification_transport(
            CONF, url=dep.mq_url(cell))
        listener = messaging.get_notification_listener(
            transport, [messaging.Target(topic='versioned_notifications')],
            [heard], executor='threading')
        listener.start()
        listeners.append((listener, transport))
    try:
        server_id = _boot(dep, 'real-notify', flavorRef='real.notify')
        created = wait_for(
            lambda: heard.about(server_id, 'instance.create.end'), 60,
            message='instance.create.end')
        publisher, payload = created[0]
        data = payload['nova_object.data']
        assert payload['nova_object.name'] == 'InstanceCreatePayload'
        assert payload['nova_object.namespace'] == 'nova'
        assert data['state'] == 'active'
        assert publisher == 'nova-compute:%s' % data['host']
        assert data['flavor']['nova_object.data']['flavorid'] == \
            'real.notify'
        # A stop: the compute ends it with one call to its cell conductor
        # over RabbitMQ (the new state and its event's finish together).
        status, _ = api(dep, 'POST', '/servers/%s/action' % server_id,
                        {'os-stop': None})
        assert status == 202
        _wait_status(dep, [server_id], ['SHUTOFF'])
        wait_for(lambda: heard.about(server_id, 'instance.power_off.end'),
                 60, message='instance.power_off.end')
        status, body = api(dep, 'GET', '/servers/%s/os-instance-actions'
                           % server_id)
        [stop] = [a for a in body['instanceActions']
                  if a['action'] == 'stop']
        status, body = api(dep, 'GET', '/servers/%s/os-instance-actions/%s'
                           % (server_id, stop['request_id']))
        [event] = body['instanceAction']['events']
        assert (event['event'], event['result']) == (
            'compute_stop_instance', 'Success')
        assert event['finish_time'] and body['instanceAction']['message'] \
            is None
        status, _ = api(dep, 'DELETE', '/servers/%s' % server_id)
        assert status == 204
        deleted = wait_for(
            lambda: heard.about(server_id, 'instance.delete.end'), 60,
            message='instance.delete.end')
        assert deleted[0][1]['nova_object.data']['state'] == 'deleted'
        assert heard.about(server_id, 'instance.delete.start')
    finally:
        for listener, transport in listeners:
            listener.stop()
            listener.wait()
            transport.cleanup()
        api(dep, 'DELETE', '/flavors/real.notify')


def test_novnc_console_through_the_proxy_process(deployment):
    """nova-lite-novncproxy, a process of its own (API and cell
    databases, no message queue): a server's console URL leads through
    it to its guest's RFB server on the compute process."""
    dep = deployment
    status, body = api(dep, 'POST', '/flavors', {'flavor': {
        'name': 'real.console', 'id': 'real.console', 'ram': 128,
        'vcpus': 1, 'disk': 1}})
    assert status == 200, body
    server_id = _boot(dep, 'real-console', flavorRef='real.console')
    try:
        _wait_status(dep, [server_id], {'ACTIVE'})
        status, body = api(
            dep, 'POST', '/servers/%s/remote-consoles' % server_id,
            {'remote_console': {'protocol': 'vnc', 'type': 'novnc'}},
            version='2.6')
        assert status == 200, body
        url = parse.urlsplit(body['remote_console']['url'])
        assert url.port == dep.novncproxy_port
        with urllib.request.urlopen(url.geturl(), timeout=30) as resp:
            assert 'noVNC' in resp.read().decode()
        ws = WebSocket(url.hostname, url.port,
                       '/' + parse.parse_qs(url.query)['path'][0])
        try:
            assert ws.receive_data() == b'RFB 003.008\n'
            ws.send(b'RFB 003.008\n')
            assert ws.receive_data() == b'\x01\x01'
            ws.send(b'\x01')
            assert ws.receive_data() == b'\0\0\0\0'
            ws.send(b'\x01')
            assert ws.receive_data()[24:] == server_id.encode()
        finally:
            ws.close()
    finally:
        assert api(dep, 'DELETE', '/servers/%s' % server_id)[0] == 204
        wait_for(lambda: server_id not in _servers(dep), 60,
                 message='%s gone' % server_id)
        api(dep, 'DELETE', '/flavors/real.console')
