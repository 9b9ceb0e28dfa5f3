"""The unmodified OpenStack clients, configured as README.rst says."""
import atexit
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
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


# CPU seconds the fork server's commands used (tests/cpu_table.py adds
# them to the running test's file: they are not this process's children).
CLI_CPU = [0.0]
_zygote = {}


def _cli_server():
    """The running tests/cli_zygote.py (started on first use, ended
    with this process): (socket path, process)."""
    proc = _zygote.get('proc')
    if proc is not None and proc.poll() is None:
        return _zygote['path'], proc
    workdir = tempfile.mkdtemp(prefix='nl-cli-')
    path = os.path.join(workdir, 'cli.sock')
    proc = subprocess.Popen(
        [sys.executable, os.path.join(os.path.dirname(__file__),
                                      'cli_zygote.py'), path],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        env=dict(os.environ, PYTHONWARNINGS='ignore'))
    line = proc.stdout.readline()
    assert line == b'ready\n', ('openstack fork server did not start',
                                 line)
    _zygote.update(path=path, proc=proc, workdir=workdir)
    if not _zygote.get('atexit'):
        atexit.register(_stop_cli_server)
        _zygote['atexit'] = True
    return path, proc


def _stop_cli_server():
    proc = _zygote.pop('proc', None)
    if proc is None:
        return
    proc.stdin.close()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    shutil.rmtree(_zygote.pop('workdir'), ignore_errors=True)


def _forked_openstack(env, args, timeout):
    path, _proc = _cli_server()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    pid = None
    try:
        sock.connect(path)
        sock.sendall(json.dumps({'argv': list(args),
                                 'env': dict(env)}).encode() + b'\n')
        reader = sock.makefile('rb')
        pid = int(reader.readline())
        reply = json.loads(reader.readline())
    except (socket.timeout, OSError, ValueError):
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        raise
    finally:
        sock.close()
    CLI_CPU[0] += reply['cpu']
    return subprocess.CompletedProcess(['openstack'] + list(args),
                                       reply['rc'], reply['stdout'],
                                       reply['stderr'])


def openstack(env, *args, check=True, fork=True):
    """CompletedProcess of `openstack args`; asserts success if check.

    The command runs python-openstackclient's console-script entry point
    with these arguments and environment, in a child forked from a
    process that has imported it already (tests/cli_zygote.py: a new
    `openstack` process spends 1-2 s of CPU on imports alone); fork=False
    (or NOVA_LITE_TEST_CLI_EXEC=1 for every call) runs the installed
    `openstack` executable itself.
    """
    if fork and os.environ.get('NOVA_LITE_TEST_CLI_EXEC') != '1':
        result = _forked_openstack(env, args, timeout=120)
    else:
        result = subprocess.run(
            [os.path.join(BINDIR, 'openstack')] + list(args), env=env,
            capture_output=True, text=True, timeout=120)
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
