"""PostgreSQL without stalls: psycopg2 waits in eventlet's hub.

A process started as every nova_lite service starts (``import
nova_lite.cmd``, which monkey-patches and makes psycopg2 cooperative)
runs ``SELECT pg_sleep(1)`` in two green threads at once: they overlap,
so both finish in about one second, and a third green thread keeps
ticking meanwhile. The same script with psycopg2 left blocking
(``eventlet.monkey_patch(psycopg=False)``: the stall the patch removes)
takes two seconds and the ticker stops.
"""
import json
import os
import subprocess
import sys


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

SCRIPT = r'''
import json, sys, time
if sys.argv[2] == 'service':
    from nova_lite import cmd  # noqa: F401  (what every service does first)
elif sys.argv[2] == 'eventlet-default':
    import eventlet
    eventlet.monkey_patch()
else:                                # psycopg2 left blocking
    import eventlet
    eventlet.monkey_patch(psycopg=False)
import eventlet
import sqlalchemy as sa
from nova_lite import green

engine = sa.create_engine(sys.argv[1], pool_size=2)
for _ in range(2):                   # connections made before timing
    with engine.connect() as conn:
        conn.execute(sa.text('SELECT 1'))
ticks = []

def sleep_in_db():
    with engine.connect() as conn:
        conn.execute(sa.text('SELECT pg_sleep(1)'))

def tick():
    while True:
        ticks.append(time.monotonic())
        eventlet.sleep(0.05)

start = time.monotonic()
ticker = eventlet.spawn(tick)
threads = [eventlet.spawn(sleep_in_db) for _ in range(2)]
for thread in threads:
    thread.wait()
elapsed = time.monotonic() - start
ticker.kill()
from psycopg2 import extensions
callback = extensions.get_wait_callback()
print(json.dumps({'elapsed': elapsed, 'ticks': len(ticks),
                  'patched': green.db_drivers_patched(),
                  'callback': callback and callback.__module__}))
'''


def _run(url, mode):
    env = dict(os.environ, PYTHONPATH=ROOT,
               PYTHONWARNINGS='ignore::DeprecationWarning')
    out = subprocess.run([sys.executable, '-c', SCRIPT, url, mode],
                         capture_output=True, text=True, timeout=60,
                         env=env, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _url(postgresql_url):
    # conftest's URLs are SQLAlchemy URLs on psycopg2 already.
    assert postgresql_url.startswith('postgresql+psycopg2://')
    return postgresql_url


def test_two_pg_sleeps_overlap_in_a_service_process(postgresql_url):
    result = _run(_url(postgresql_url), 'service')
    assert result['patched'] is True
    # Our patch (nova_lite.green), not eventlet's default one.
    assert result['callback'] == 'psycogreen.eventlet', result
    assert result['elapsed'] < 1.6, result
    # The hub ran the whole time (one tick every 50 ms).
    assert result['ticks'] >= 10, result


def test_a_blocking_psycopg2_stalls_the_process(postgresql_url):
    """The control: without a wait callback psycopg2 waits in C."""
    result = _run(_url(postgresql_url), 'unpatched')
    assert result['patched'] is False
    assert result['elapsed'] >= 1.9, result
    assert result['ticks'] <= 3, result
