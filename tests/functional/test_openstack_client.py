"""The real `openstack` CLI (python-openstackclient) against a real
nova-lite-all-in-one process, with the settings README.rst gives.

One all-in-one for the whole module: starting it and each CLI call take
seconds.
"""
import os
import sqlite3

import pytest

from tests import clients


class Cloud(object):
    def __init__(self, state_dir, port):
        self.state_dir = state_dir
        self.endpoint = 'http://127.0.0.1:%d' % port
        self.env = clients.openstack_env(self.endpoint)

    def run(self, *args, check=True):
        return clients.openstack(self.env, *args, check=check)

    def json(self, *args):
        return clients.openstack_json(self.env, *args)

    def db(self, name):
        return sqlite3.connect(os.path.join(self.state_dir,
                                            '%s.sqlite' % name))


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    state_dir = str(tmp_path_factory.mktemp('aio-state'))
    # Without the m1.* flavors a new all-in-one makes: the flavor tests
    # below list exactly what they made.
    with clients.all_in_one(state_dir, '--no-default-flavors') as (
            endpoint, _proc):
        yield Cloud(state_dir, int(endpoint.rsplit(':', 1)[1]))


def test_private_flavor_lifecycle(cloud):
    flavor = cloud.json('flavor', 'create', '--ram', '2048', '--disk', '20',
                        '--vcpus', '2', '--property', 'hw:cpu_policy=shared',
                        '--property', 'quota:cpu_shares=1024', '--private',
                        '--project', 'proj-a', 'cli-private')
    assert len(flavor['id']) == 36
    assert (flavor['ram'], flavor['disk'], flavor['vcpus']) == (2048, 20, 2)
    assert flavor['os-flavor-access:is_public'] is False
    assert flavor['properties'] == {'hw:cpu_policy': 'shared',
                                    'quota:cpu_shares': '1024'}
    cloud.run('flavor', 'set', '--property', 'hw:numa_nodes=1',
              '--project', 'proj-b', 'cli-private')
    cloud.run('flavor', 'unset', '--property', 'quota:cpu_shares',
              flavor['id'])
    shown = cloud.json('flavor', 'show', 'cli-private')
    assert shown['id'] == flavor['id']
    assert shown['properties'] == {'hw:cpu_policy': 'shared',
                                   'hw:numa_nodes': '1'}
    assert sorted(shown['access_project_ids']) == ['proj-a', 'proj-b']
    listed = cloud.json('flavor', 'list', '--all')
    assert [(f['ID'], f['Name'], f['Is Public']) for f in listed] == [
        (flavor['id'], 'cli-private', False)]
    cloud.run('flavor', 'delete', 'cli-private')
    assert cloud.json('flavor', 'list', '--all') == []


def test_a_legacy_flavor_is_listed_and_moves_when_written(cloud):
    # An upgraded deployment: a flavor still in the legacy tables of the
    # top-level cell database.
    with cloud.db('cell1') as conn:
        conn.execute(
            "INSERT INTO instance_types (name, flavorid, memory_mb, vcpus, "
            "swap, root_gb, ephemeral_gb, rxtx_factor, disabled, is_public, "
            "deleted) VALUES ('m1.legacy', 'legacy-1', 1024, 1, 0, 10, 0, "
            "1.0, 0, 1, 0)")
    listed = cloud.json('flavor', 'list')
    assert [(f['ID'], f['Name'], f['RAM']) for f in listed] == [
        ('legacy-1', 'm1.legacy', 1024)]
    cloud.run('flavor', 'set', '--property', 'hw:mem_page_size=large',
              'm1.legacy')
    shown = cloud.json('flavor', 'show', 'legacy-1')
    assert shown['properties'] == {'hw:mem_page_size': 'large'}
    assert shown['name'] == 'm1.legacy' and shown['disk'] == 10
    with cloud.db('cell1') as conn:
        assert conn.execute(
            "SELECT deleted FROM instance_types WHERE flavorid = 'legacy-1'"
        ).fetchone()[0] != 0
    with cloud.db('api') as conn:
        assert conn.execute(
            "SELECT name FROM flavors WHERE flavorid = 'legacy-1'"
        ).fetchall() == [('m1.legacy',)]


def test_compute_services_are_found_by_nova_binary_names(cloud):
    services = cloud.json('compute', 'service', 'list')
    assert sorted((s['Binary'], s['Host']) for s in services) == [
        ('nova-compute', 'cell1-compute1'),
        ('nova-conductor', 'aio'), ('nova-conductor', 'cell1-conductor'),
        ('nova-scheduler', 'aio')]
    computes = cloud.json('compute', 'service', 'list', '--service',
                          'nova-compute')
    assert [(s['Host'], s['Status']) for s in computes] == [
        ('cell1-compute1', 'enabled')]
    cloud.run('compute', 'service', 'set', '--disable', '--disable-reason',
              'maintenance', 'cell1-compute1', 'nova-compute')
    computes = cloud.json('compute', 'service', 'list', '--service',
                          'nova-compute', '--long')
    assert [(s['Status'], s['Disabled Reason']) for s in computes] == [
        ('disabled', 'maintenance')]
    cloud.run('compute', 'service', 'set', '--enable', 'cell1-compute1',
              'nova-compute')
    assert cloud.json('compute', 'service', 'list', '--host',
                      'cell1-compute1')[0]['Status'] == 'enabled'


def test_the_fork_server_answers_as_the_openstack_executable(cloud):
    # tests/clients.py runs `openstack` commands in children of a fork
    # server that imported the client once: the installed executable
    # itself answers the same.
    args = ('compute', 'service', 'list', '-c', 'Binary', '-c', 'Host',
            '-c', 'Status', '-f', 'json')
    forked = clients.openstack(cloud.env, *args)
    executed = clients.openstack(cloud.env, *args, fork=False)
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        executed.returncode, executed.stdout, executed.stderr)
    wrong = ('server', 'show', 'no-such-server')
    forked = clients.openstack(cloud.env, *wrong, check=False)
    executed = clients.openstack(cloud.env, *wrong, check=False, fork=False)
    assert forked.returncode == executed.returncode == 1
    assert forked.stderr == executed.stderr
