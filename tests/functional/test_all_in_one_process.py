"""nova-lite-all-in-one as a newcomer meets it: one plane per state
directory and per port, and Ctrl-C stops it in order with status 0."""
import os
import signal
import subprocess

import pytest

from tests import clients


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
