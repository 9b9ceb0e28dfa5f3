"""nova-lite-all-in-one as a newcomer meets it: one plane per state
directory and per port, a quiet start that prints what to export, the
m1.* flavors on a new plane, cross-cell resize in one flag, the noVNC
console proxy its console URLs name, and Ctrl-C
stops it in order with status 0."""
import json
import os
import signal
import subprocess
from urllib import parse
import urllib.request

import pytest

from nova_lite import utils
from tests import clients
from tests.functional.conftest import wait_for
from tests.functional.websocket_client import WebSocket

CIRROS = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
BANNER = 'nova_lite all-in-one is up'
M1_FLAVORS = [('1', 'm1.tiny', 512, 1, 1), ('2', 'm1.small', 2048, 20, 1),
              ('3', 'm1.medium', 4096, 40, 2), ('4', 'm1.large', 8192, 80, 4),
              ('5', 'm1.xlarge', 16384, 160, 8)]


def _api(endpoint, method, path, body=None, version='2.74'):
    req = urllib.request.Request(
        endpoint + '/v2.1' + path, method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={'X-Auth-Token': 'admin:admin',
                 'Content-Type': 'application/json',
                 'OpenStack-API-Version': 'compute %s' % version})
    with urllib.request.urlopen(req, timeout=30) as resp:
        raw = resp.read()
        return json.loads(raw) if raw else None


def _flavors(endpoint):
    return [(f['id'], f['name'], f['ram'], f['disk'], f['vcpus'])
            for f in _api(endpoint, 'GET', '/flavors/detail')['flavors']]


def _server(endpoint, server_id):
    return _api(endpoint, 'GET', '/servers/%s' % server_id)['server']


def _wait_status(endpoint, server_id, status):
    return wait_for(
        lambda: _server(endpoint, server_id)['status'] == status and
        _server(endpoint, server_id), timeout=60, interval=0.2,
        message='server %s %s' % (server_id, status))


@pytest.fixture(scope='module')
def running(tmp_path_factory):
    """One all-in-one for the module: (process, state dir, port, log)."""
    state_dir = str(tmp_path_factory.mktemp('aio-state'))
    port = clients.free_port()
    log_path = os.path.join(state_dir, 'all-in-one.log')
    log = open(log_path, 'w')
    proc = clients.start_all_in_one(state_dir, port, log)
    try:
        clients.wait_until_up(proc, 'http://127.0.0.1:%d/' % port)
        yield proc, state_dir, port, log_path
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()


def _second(tmp_path, state_dir, port):
    """Start another all-in-one; it must refuse at once."""
    with open(str(tmp_path / 'second.log'), 'w') as log:
        proc = clients.start_all_in_one(state_dir, port, log)
        code = proc.wait(timeout=60)
    return code, (tmp_path / 'second.log').read_text()


def test_a_second_plane_on_the_same_state_directory_is_refused(running,
                                                               tmp_path):
    proc, state_dir, _port, _log = running
    code, out = _second(tmp_path, state_dir, clients.free_port())
    assert code == 2, out
    assert 'in use by another nova-lite-all-in-one' in out
    assert proc.poll() is None


def test_a_second_plane_on_a_busy_port_is_refused(running, tmp_path):
    proc, _state_dir, port, _log = running
    code, out = _second(tmp_path, str(tmp_path / 'other-state'), port)
    assert code == 2, out
    assert 'cannot listen on 127.0.0.1:%d' % port in out
    assert not (tmp_path / 'other-state' / 'api.sqlite').exists()
    assert proc.poll() is None


def test_ctrl_c_stops_every_service_in_order_and_exits_0(running, tmp_path):
    proc, state_dir, port, log_path = running
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 0
    log = open(log_path).read()
    assert 'instantaneous exiting' not in log
    stopping = [line for line in log.splitlines() if 'Stopping' in line]
    assert any('cell1-compute1' in line for line in stopping), log[-3000:]
    # The state directory is free again.
    again = subprocess.run(
        ['flock', '--nonblock', os.path.join(state_dir, '.lock'), 'true'])
    assert again.returncode == 0


def test_first_start_is_quiet_and_prints_every_client_export(running):
    _proc, state_dir, port, log_path = running
    log = wait_for(lambda: BANNER in open(log_path).read() and
                   open(log_path).read(), timeout=30, message='banner')
    before_banner = log[:log.index(BANNER)]
    # Alembic's schema steps went to the log at DEBUG (not shown).
    assert 'alembic' not in before_banner and \
        'Running upgrade' not in before_banner, before_banner[:3000]
    exports = [line.strip() for line in log.splitlines()
               if line.strip().startswith('export ')]
    assert exports == [utils.export_line(utils.noauth_client_environment(
        'http://127.0.0.1:%d' % port))]
    for name in ('OS_IMAGE_ENDPOINT_OVERRIDE', 'OS_NETWORK_ENDPOINT_OVERRIDE',
                 'OS_BLOCK_STORAGE_ENDPOINT_OVERRIDE'):
        assert name + '=' in exports[0]


def test_a_new_plane_has_the_m1_flavors_on_its_first_start_only(tmp_path):
    state_dir = str(tmp_path)
    with clients.all_in_one(state_dir) as (endpoint, _proc):
        assert _flavors(endpoint) == M1_FLAVORS
        _api(endpoint, 'DELETE', '/flavors/1')
    with clients.all_in_one(state_dir) as (endpoint, _proc):
        assert _flavors(endpoint) == M1_FLAVORS[1:]


def test_no_default_flavors_starts_without_any(tmp_path):
    with clients.all_in_one(str(tmp_path), '--no-default-flavors') as (
            endpoint, _proc):
        assert _flavors(endpoint) == []


def _check_console(endpoint, server_id):
    """The all-in-one runs the noVNC proxy its console URLs name: the
    page, and the guest's RFB server behind the WebSocket."""
    url = _api(endpoint, 'POST', '/servers/%s/remote-consoles' % server_id,
               {'remote_console': {'protocol': 'vnc', 'type': 'novnc'}},
               version='2.6')['remote_console']['url']
    with urllib.request.urlopen(url, timeout=30) as resp:
        assert 'noVNC' in resp.read().decode()
    parts = parse.urlsplit(url)
    ws = WebSocket(parts.hostname, parts.port,
                   '/' + parse.parse_qs(parts.query)['path'][0])
    try:
        assert ws.receive_data() == b'RFB 003.008\n'
    finally:
        ws.close()


def test_allow_cross_cell_resize_moves_a_resized_server_to_another_cell(
        tmp_path):
    with clients.all_in_one(str(tmp_path), '--cells', '2',
                            '--allow-cross-cell-resize') as (endpoint, _p):
        server_id = _api(endpoint, 'POST', '/servers', {'server': {
            'name': 'mover', 'imageRef': CIRROS, 'flavorRef': '1',
            'networks': 'none'}})['server']['id']
        source = _wait_status(endpoint, server_id, 'ACTIVE')[
            'OS-EXT-SRV-ATTR:host']
        _check_console(endpoint, server_id)
        _api(endpoint, 'POST', '/servers/%s/action' % server_id,
             {'resize': {'flavorRef': '2'}})
        moved = _wait_status(endpoint, server_id, 'VERIFY_RESIZE')
        target = moved['OS-EXT-SRV-ATTR:host']
        assert source.split('-')[0] != target.split('-')[0], (source, target)
        assert moved['flavor']['original_name'] == 'm1.small'
        _api(endpoint, 'POST', '/servers/%s/action' % server_id,
             {'confirmResize': None})
        assert _wait_status(endpoint, server_id, 'ACTIVE')[
            'OS-EXT-SRV-ATTR:host'] == target
