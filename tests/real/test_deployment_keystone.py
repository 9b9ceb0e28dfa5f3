"""`tools/deployment.py start --keystone` as an operator runs it: every
service in its own process on MariaDB and RabbitMQ, OpenStack Keystone
beside them, and the openstack client set up with exactly the settings
`start` printed (password auth, endpoints from the catalog)."""
import os
import shlex
import subprocess
import sys

import pytest

from tests import clients
from tests.real import conftest as real
from tests.real import keystone_cloud

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, 'tools', 'deployment.py')
IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
IMAGE_NAME = 'cirros-0.6.2-x86_64-disk'


def _printed_env(stdout):
    """The OS_* variables of the `export` line start printed."""
    for line in stdout.splitlines():
        if line.startswith('export OS_'):
            return dict(item.split('=', 1)
                        for item in shlex.split(line)[1:])
    raise AssertionError('no export line in:\n%s' % stdout)


@pytest.fixture(scope='module')
def deployment(tmp_path_factory):
    real.require_service('MariaDB')
    real.require_service('RabbitMQ')
    keystone_cloud.require_keystone(keystone_cloud.keystone_tool())
    workdir = str(tmp_path_factory.mktemp('deployment-keystone'))
    started = subprocess.run(
        [sys.executable, TOOL, 'start', '--keystone', '--workdir', workdir,
         '--cells', '1', '--computes-per-cell', '1'],
        capture_output=True, text=True, timeout=600)
    try:
        assert started.returncode == 0, started.stderr[-3000:]
        settings = _printed_env(started.stdout)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith('OS_')}
        env.update(settings, PYTHONWARNINGS='ignore')
        yield workdir, env
    finally:
        stopped = subprocess.run([sys.executable, TOOL, 'stop', '--workdir',
                                  workdir], capture_output=True, text=True,
                                 timeout=120)
        assert stopped.returncode == 0, stopped.stderr[-3000:]


def test_start_prints_password_settings_without_endpoint_override(
        deployment):
    _workdir, env = deployment
    assert env['OS_AUTH_TYPE'] == 'password'
    assert env['OS_AUTH_URL'].endswith('/v3')
    assert not [k for k in env if k.endswith('ENDPOINT_OVERRIDE')
                or k == 'OS_ENDPOINT']


def test_openstack_cli_against_the_deployment(deployment):
    workdir, admin = deployment
    services = clients.openstack_json(admin, 'compute', 'service', 'list')
    assert {(s['Binary'], s['State']) for s in services} == {
        ('nova-conductor', 'up'), ('nova-scheduler', 'up'),
        ('nova-compute', 'up')}
    clients.openstack(admin, 'flavor', 'create', '--ram', '256', '--disk',
                      '1', '--vcpus', '1', '--id', 'dep.tiny', 'dep.tiny')
    demo = dict(admin, OS_USERNAME='demo', OS_PROJECT_NAME='demo')
    assert 'dep.tiny' in [f['Name'] for f in clients.openstack_json(
        demo, 'flavor', 'list')]
    # The image by name: the client finds it through the image service
    # in the catalog (nova_lite's /image).
    created = clients.openstack_json(
        demo, 'server', 'create', '--flavor', 'dep.tiny', '--image',
        IMAGE_NAME, '--nic', 'none', '--wait', 'dep-one')
    assert created['status'] == 'ACTIVE'
    assert IMAGE in str(created['image'])
    assert [s['Name'] for s in clients.openstack_json(
        demo, 'server', 'list')] == ['dep-one']
    assert clients.openstack_json(demo, 'server', 'show', created['id'])[
        'name'] == 'dep-one'
    alt = dict(admin, OS_USERNAME='alt', OS_PROJECT_NAME='alt')
    hidden = clients.openstack(alt, 'server', 'show', created['id'],
                               check=False)
    # (The client turns the 404 into "No Server found for ...".)
    assert hidden.returncode != 0
    assert 'No Server found' in hidden.stderr, hidden.stderr
    # A port: the compute's network service sends network-vif-plugged
    # to the API with Keystone credentials ([external_events]), and the
    # build waits for it (a refused event would keep it in BUILD for
    # vif_plugging_timeout, then ERROR).
    networked = clients.openstack_json(
        demo, '--os-compute-api-version', '2.37', 'server', 'create',
        '--flavor', 'dep.tiny', '--image', IMAGE_NAME, '--nic', 'auto',
        '--wait', 'dep-two')
    assert networked['status'] == 'ACTIVE'
    with open(os.path.join(workdir, 'top.conf')) as f:
        assert 'auth_type = password' in f.read().split(
            '[external_events]')[1]
    clients.openstack(demo, 'server', 'delete', '--wait', created['id'])
    clients.openstack(demo, 'server', 'delete', '--wait', networked['id'])
    assert clients.openstack_json(demo, 'server', 'list') == []
    with open(os.path.join(workdir, 'top.conf')) as f:
        assert 'auth_strategy = keystone' in f.read()
