"""``nova-lite-manage placement set_traits``: an operator puts traits on
a compute node's resource provider; a flavor (or image) requiring a
trait (``trait:CUSTOM_X=required``) then boots there through the REST
API, and nowhere once the trait is gone; bad names and unknown nodes
give the command's exit codes."""
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from tests.functional.api.test_servers_boot import IMAGE
from tests.functional.conftest import start_plane
from tests.functional.conftest import stop_plane

ADMIN = {'X-Auth-Token': 'admin:admin', 'Content-Type': 'application/json',
         'OpenStack-API-Version': 'compute 2.47'}
GPU_HOST = 'cell2-compute2'
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def call(plane, method, path, body=None):
    req = urllib.request.Request(
        plane.endpoint + '/v2.1' + path, method=method, headers=ADMIN,
        data=None if body is None else json.dumps(body).encode())
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            raw = resp.read()
            return resp.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b'null')


@pytest.fixture
def plane(tmp_path, conf):
    p = start_plane(tmp_path / 'state')
    yield p
    stop_plane(p)


def _set_traits(plane, capsys, *args):
    """The command in a process of its own (run in this one it would
    leave this process's configuration unusable for the plane)."""
    done = subprocess.run(
        [sys.executable, '-m', 'nova_lite.cmd.manage', '--config-file',
         plane.state_dir + '/nova_lite.conf', 'placement', 'set_traits']
        + list(args), capture_output=True, text=True, timeout=120,
        env=dict(os.environ, PYTHONPATH=ROOT))
    return done.returncode, done.stdout, done.stderr


def _boot(plane, flavor):
    status, body = call(plane, 'POST', '/servers', {'server': {
        'name': 'gpu', 'flavorRef': flavor, 'imageRef': IMAGE,
        'networks': 'none'}})
    assert status == 202, body
    uuid = body['server']['id']
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        server = call(plane, 'GET', '/servers/%s' % uuid)[1]['server']
        if server['status'] in ('ACTIVE', 'ERROR'):
            return server
        time.sleep(0.05)
    raise AssertionError('%s did not settle' % uuid)


def test_set_traits_places_flavors_that_require_them(plane, capsys):
    status, _ = call(plane, 'POST', '/flavors', {'flavor': {
        'name': 'gpu', 'id': 'gpu', 'ram': 512, 'vcpus': 1, 'disk': 1}})
    assert status == 200
    status, _ = call(plane, 'POST', '/flavors/gpu/os-extra_specs', {
        'extra_specs': {'trait:CUSTOM_GPU': 'required'}})
    assert status == 200
    # No provider has the trait yet: no valid host.
    server = _boot(plane, 'gpu')
    assert server['status'] == 'ERROR', server
    assert 'No valid host' in server['fault']['message']

    code, out, _ = _set_traits(plane, capsys, GPU_HOST, '--trait',
                               'CUSTOM_GPU', '--trait', 'HW_CPU_X86_AVX2')
    assert code == 0
    assert 'CUSTOM_GPU, HW_CPU_X86_AVX2' in out
    placed = [_boot(plane, 'gpu') for _ in range(3)]
    assert [(s['status'], s['OS-EXT-SRV-ATTR:host']) for s in placed] == [
        ('ACTIVE', GPU_HOST)] * 3
    # Another flavor still lands anywhere it fits (the trait is not
    # forbidden to others).
    status, _ = call(plane, 'POST', '/flavors/gpu/os-extra_specs', {
        'extra_specs': {'trait:CUSTOM_GPU': 'forbidden'}})
    assert status == 200
    server = _boot(plane, 'gpu')
    assert server['status'] == 'ACTIVE'
    assert server['OS-EXT-SRV-ATTR:host'] != GPU_HOST

    # No --trait: every trait removed; required again: no valid host.
    code, out, _ = _set_traits(plane, capsys, GPU_HOST)
    assert code == 0 and out.strip().endswith(': -')
    status, _ = call(plane, 'POST', '/flavors/gpu/os-extra_specs', {
        'extra_specs': {'trait:CUSTOM_GPU': 'required'}})
    server = _boot(plane, 'gpu')
    assert server['status'] == 'ERROR'


def test_set_traits_refuses_bad_names_and_unknown_nodes(plane, capsys):
    code, _, err = _set_traits(plane, capsys, GPU_HOST, '--trait',
                               'custom_gpu')
    assert code == 3 and 'custom_gpu' in err
    code, _, err = _set_traits(plane, capsys, 'no-such-node', '--trait',
                               'CUSTOM_GPU')
    assert code == 2 and 'no-such-node' in err
