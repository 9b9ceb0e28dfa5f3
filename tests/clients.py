"""The unmodified OpenStack clients, configured as README.rst says."""
import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from nova_lite import utils

BINDIR = os.path.dirname(sys.executable)


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def start_all_in_one(state_dir, port, log, *args):
    """A nova-lite-all-in-one process (one cell, one compute unless args
    say otherwise), its output in the open file log."""
    return subprocess.Popen(
        [os.path.join(BINDIR, 'nova-lite-all-in-one'), '--state-dir',
         state_dir, '--port', str(port), '--cells', '1',
         '--computes-per-cell', '1'] + list(args),
        stdout=log, stderr=subprocess.STDOUT,
        env=dict(os.environ, PYTHONWARNINGS='ignore'))


@contextlib.contextmanager
def all_in_one(state_dir, *args):
    """A running all-in-one on a free port (start_all_in_one's defaults;
    its output in state_dir/all-in-one.log): yields (endpoint, process);
    terminated on exit."""
    port = free_port()
    with open(os.path.join(state_dir, 'all-in-one.log'), 'w') as log:
        proc = start_all_in_one(state_dir, port, log, *args)
        try:
            wait_until_up(proc, 'http://127.0.0.1:%d/' % port)
            yield 'http://127.0.0.1:%d' % port, proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def wait_until_up(proc, url, timeout=90):
    """Wait until url answers 200; fail if proc exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError('all-in-one exited with %s' % proc.returncode)
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        time.sleep(0.2)
    raise AssertionError('all-in-one did not answer %s in %ss'
                         % (url, timeout))


def openstack_env(endpoint):
    """The environment README.rst gives (and the all-in-one prints) for
    `openstack` against endpoint (http://host:port), without any OS_*
    the caller's shell had."""
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    env.update(utils.noauth_client_environment(endpoint))
    env['PYTHONWARNINGS'] = 'ignore'
    return env


def openstack(env, *args, check=True):
    """CompletedProcess of `openstack args`; asserts success if check."""
    result = subprocess.run([os.path.join(BINDIR, 'openstack')] + list(args),
                            env=env, capture_output=True, text=True,
                            timeout=120)
    if check:
        assert result.returncode == 0, (args, result.stdout,
                                        result.stderr[-3000:])
    return result


def openstack_json(env, *args):
    return json.loads(openstack(env, *(args + ('-f', 'json'))).stdout)


@contextlib.contextmanager
def cloud_with_flavor(state_dir, flavor_id, ram, disk, *args):
    """An all-in-one in state_dir (args: its options) with one flavor
    made by `openstack flavor create`; yields (endpoint, env)."""
    with all_in_one(state_dir, *args) as (endpoint, _proc):
        env = openstack_env(endpoint)
        openstack(env, 'flavor', 'create', '--ram', str(ram), '--disk',
                  str(disk), '--vcpus', '1', '--id', flavor_id, flavor_id)
        yield endpoint, env


def sdk_admin(endpoint, compute_api_version, image_path='/v2.1'):
    """An openstacksdk connection as the admin of an all-in-one, the
    compute API pinned to compute_api_version."""
    import openstack
    return openstack.connection.Connection(
        auth_type='admin_token',
        auth={'token': 'admin:admin', 'endpoint': endpoint + '/v2.1'},
        compute_endpoint_override=endpoint + '/v2.1',
        image_endpoint_override=endpoint + image_path,
        compute_api_version=compute_api_version)
