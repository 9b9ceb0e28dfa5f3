"""Any WSGI server: gunicorn serves ``nova_lite.wsgi.osapi_compute``.

A deployment (tools/deployment.py: MariaDB, RabbitMQ, one cell, one
compute) gets a second API: gunicorn with several sync workers loading
``nova_lite.wsgi.osapi_compute:application`` from the deployment's own
top.conf (OS_NOVA_LITE_CONFIG_DIR/FILES), i.e. the same paste pipeline
as nova-lite-api. Flavors and servers are created, listed, shown and
deleted through it, and its errors are Compute API faults.

Sync workers, not eventlet's: gunicorn (27, installed) no longer ships an
eventlet worker, and nova_lite's API needs no monkey patching to answer
(its green threads run on eventlet's hub when it waits; database and RPC
I/O then blocks the worker, which serves one request at a time anyway).
Concurrency comes from the number of workers.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from tests.functional.conftest import wait_for
from tests.real import conftest as real
from tests.real import test_deployment

BIN = os.path.dirname(sys.executable)
WORKERS = 3
IMAGE = test_deployment.IMAGE
ADMIN = {'X-Auth-Token': 'admin:admin', 'Content-Type': 'application/json'}


@pytest.fixture(scope='module')
def deployment(tmp_path_factory):
    real.require_service('MariaDB')
    real.require_service('RabbitMQ')
    dep = real.deployment_tool().Deployment(
        str(tmp_path_factory.mktemp('gunicorn-deployment')), cells=1,
        computes_per_cell=1, prefix=real.unique_name())
    try:
        dep.start()
    except Exception:
        dep.stop()
        raise
    yield dep
    dep.stop()


def _free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def _children(pid):
    out = subprocess.run(['ps', '-o', 'pid=', '--ppid', str(pid)],
                         capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


@pytest.fixture(scope='module')
def gunicorn(deployment):
    port = _free_port()
    env = dict(os.environ, OS_NOVA_LITE_CONFIG_DIR=deployment.workdir,
               OS_NOVA_LITE_CONFIG_FILES='top.conf',
               PYTHONWARNINGS='ignore::DeprecationWarning')
    log = open(os.path.join(deployment.workdir, 'gunicorn.out'), 'ab')
    proc = subprocess.Popen(
        [os.path.join(BIN, 'gunicorn'), '--workers', str(WORKERS),
         '--worker-class', 'sync', '--bind', '127.0.0.1:%d' % port,
         '--timeout', '120', '--no-control-socket',
         'nova_lite.wsgi.osapi_compute:application'],
        env=env, stdout=log, stderr=subprocess.STDOUT)
    endpoint = 'http://127.0.0.1:%d' % port

    def serving():
        assert proc.poll() is None, 'gunicorn exited: see gunicorn.out'
        try:
            return call(endpoint, 'GET', '/flavors')[0] == 200
        except OSError:
            return False
    try:
        wait_for(serving, timeout=90, message='gunicorn to serve')
        wait_for(lambda: len(_children(proc.pid)) == WORKERS, timeout=60,
                 message='%d gunicorn workers' % WORKERS)
        yield proc, endpoint
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()


def call(endpoint, method, path, body=None, version='2.47', raw=None):
    headers = dict(ADMIN, **{'OpenStack-API-Version': 'compute ' + version})
    data = raw if raw is not None else (
        json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(endpoint + '/v2.1' + path, method=method,
                                 headers=headers, data=data)
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            text = resp.read()
            return resp.status, json.loads(text) if text else None
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b'null')


def test_flavors_and_servers_through_gunicorn(gunicorn):
    proc, endpoint = gunicorn
    status, body = call(endpoint, 'POST', '/flavors', {'flavor': {
        'name': 'g.tiny', 'id': 'g.tiny', 'ram': 256, 'vcpus': 1,
        'disk': 1}})
    assert status == 200, body
    # Every worker answers from the same databases.
    for _ in range(2 * WORKERS):
        status, body = call(endpoint, 'GET', '/flavors/detail')
        assert status == 200
        assert [f['id'] for f in body['flavors']] == ['g.tiny']
    status, body = call(endpoint, 'POST', '/servers', {'server': {
        'name': 'g-1', 'flavorRef': 'g.tiny', 'imageRef': IMAGE,
        'networks': 'auto'}})
    assert status == 202, body
    server_id = body['server']['id']

    def active():
        code, shown = call(endpoint, 'GET', '/servers/%s' % server_id)
        assert code == 200, shown
        assert shown['server']['status'] != 'ERROR', shown
        return shown['server']['status'] == 'ACTIVE'
    wait_for(active, timeout=90, message='server ACTIVE through gunicorn')
    status, body = call(endpoint, 'GET', '/servers/detail')
    assert status == 200
    assert [s['id'] for s in body['servers']] == [server_id]
    assert body['servers'][0]['OS-EXT-SRV-ATTR:host'] == 'cell1-compute1'
    status, _ = call(endpoint, 'DELETE', '/servers/%s' % server_id)
    assert status == 204

    def gone():
        return call(endpoint, 'GET', '/servers/%s' % server_id)[0] == 404
    wait_for(gone, timeout=90, message='server deleted')
    assert call(endpoint, 'DELETE', '/flavors/g.tiny')[0] == 202
    assert proc.poll() is None


def test_errors_through_gunicorn_are_faults(gunicorn):
    _proc, endpoint = gunicorn
    status, body = call(endpoint, 'GET', '/servers/nope')
    assert status == 404
    assert body['itemNotFound']['code'] == 404
    status, body = call(endpoint, 'POST', '/flavors', raw=b'{"flavor": [')
    assert status == 400
    assert body['badRequest']['code'] == 400
    status, body = call(endpoint, 'POST', '/flavors', {'flavor': {
        'name': 'x', 'ram': 'lots', 'vcpus': 1, 'disk': 1}})
    assert status == 400 and 'ram' in body['badRequest']['message']
    status, body = call(endpoint, 'GET', '/flavors', version='2.999')
    assert status == 406
    assert body['notAcceptable']['code'] == 406
    status, body = call(endpoint, 'GET', '/servers/detail', version='2.1')
    assert status == 200


def test_sigterm_stops_every_worker(gunicorn):
    proc, _endpoint = gunicorn
    workers = _children(proc.pid)
    assert len(workers) == WORKERS
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0
    for pid in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
