"""tools/run-tests with no paths (every layer and the style check at
once), on tiny stand-in layers (RUN_TESTS_IN_PROCESS, RUN_TESTS_REAL,
RUN_TESTS_FLAKE8): flake8 beside the tests still fails the run, the real
layer's lines come as they happen, and SIGTERM stops the run with every
fixture torn down (what it made dropped, what it started stopped)."""
import os
import signal
import subprocess
import sys
import time

from tests.functional.conftest import wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
RUN_TESTS = os.path.join(ROOT, 'tools', 'run-tests')

REAL_LAYER = '''
import os
import subprocess
import time

import pytest

MARK = os.environ['FAKE_MARK']


@pytest.fixture(scope='session')
def backend():
    """Stands in for a database and a service process of the real layer."""
    open(MARK + '.db', 'w').close()
    proc = subprocess.Popen(['sleep', '600'], start_new_session=True)
    with open(MARK + '.pid', 'w') as f:
        f.write(str(proc.pid))
    yield
    proc.terminate()
    proc.wait()
    os.unlink(MARK + '.db')


def test_quick(backend):
    pass


def test_hangs_when_asked(backend):
    if os.environ.get('FAKE_HANG'):
        open(MARK + '.started', 'w').close()
        time.sleep(600)
'''


def _layers(tmp_path):
    in_process = tmp_path / 'in_process'
    real = tmp_path / 'real'
    in_process.mkdir(exist_ok=True)
    real.mkdir(exist_ok=True)
    (in_process / 'test_fast.py').write_text('def test_fast():\n    pass\n')
    (real / 'test_slow_real.py').write_text(REAL_LAYER)
    unstyled = tmp_path / 'unstyled.py'
    unstyled.write_text('import os\n')
    return in_process, real, unstyled


def _run_tests(tmp_path, flake8_target, **env):
    in_process, real, _unstyled = _layers(tmp_path)
    env = dict(os.environ, NOVA_LITE_VENV=sys.prefix,
               RUN_TESTS_IN_PROCESS=str(in_process),
               RUN_TESTS_REAL=str(real),
               RUN_TESTS_FLAKE8=str(flake8_target),
               FAKE_MARK=str(tmp_path / 'mark'), **env)
    return subprocess.Popen([RUN_TESTS], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)


def test_a_style_error_fails_a_run_whose_tests_pass(tmp_path):
    proc = _run_tests(tmp_path, tmp_path / 'unstyled.py')
    out, _ = proc.communicate(timeout=600)
    assert proc.returncode == 1, out
    assert "F401 'os' imported but unused" in out
    assert 'unit + functional exit 0, real exit 0, flake8 exit 1' in out
    # The real layer's lines, one per test, prefixed as they come.
    assert any(line.startswith('real: ') and 'test_quick PASSED' in line
               for line in out.splitlines()), out
    assert not (tmp_path / 'mark.db').exists()


def test_a_clean_run_passes_without_pip_noise(tmp_path):
    in_process, _real, _unstyled = _layers(tmp_path)
    # Make it refresh the editable install of this venv (the same source
    # again), whose setuptools warnings must not reach the output.
    stamp = os.path.join(sys.prefix, '.nova-lite-editable')
    if os.path.exists(stamp):
        os.unlink(stamp)
    proc = _run_tests(tmp_path, in_process / 'test_fast.py')
    out, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, out
    assert os.path.exists(stamp)
    assert 'Warning' not in out and 'Editable' not in out, out


def test_a_failing_second_in_process_group_fails_the_run(tmp_path):
    """RUN_TESTS_IN_PROCESS with "|": one pytest process per group, the
    second one's lines prefixed; its failure is the layer's."""
    in_process, real, _unstyled = _layers(tmp_path)
    (in_process / 'test_failing.py').write_text(
        'def test_failing():\n    assert False\n')
    env = dict(os.environ, NOVA_LITE_VENV=sys.prefix,
               RUN_TESTS_IN_PROCESS='%s|%s' % (in_process / 'test_fast.py',
                                               in_process / 'test_failing.py'),
               RUN_TESTS_REAL=str(real),
               RUN_TESTS_FLAKE8=str(in_process / 'test_fast.py'),
               FAKE_MARK=str(tmp_path / 'mark'))
    out = subprocess.run([RUN_TESTS], cwd=ROOT, env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         timeout=600).stdout
    assert 'unit + functional exit 1, real exit 0, flake8 exit 0' in out
    assert any(line.startswith('api: ') and '1 failed' in line
               for line in out.splitlines()), out
    assert any(not line.startswith(('api: ', 'real: ')) and '1 passed' in line
               for line in out.splitlines()), out


def test_sigterm_tears_every_fixture_down(tmp_path):
    proc = _run_tests(tmp_path, tmp_path / 'in_process', FAKE_HANG='1')
    try:
        wait_for(lambda: (tmp_path / 'mark.started').exists() or
                 proc.poll() is not None, timeout=300, interval=0.5,
                 message='the real layer to start its test')
        assert proc.poll() is None, proc.communicate()[0]
        service = int((tmp_path / 'mark.pid').read_text())
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 143, out
    assert time.monotonic() - started < 120
    assert 'stopping (SIGTERM)' in out
    assert not (tmp_path / 'mark.db').exists(), out
    assert _gone(service)
    left = subprocess.run(['pgrep', '-f', str(tmp_path)],
                          capture_output=True, text=True).stdout.split()
    assert left == [], left


def _gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False
