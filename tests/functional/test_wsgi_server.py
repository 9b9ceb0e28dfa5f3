"""nova_lite.wsgi: the eventlet server (in-process and as nova-lite-api with
workers) and the ``application`` module for other WSGI servers."""
import http.client
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request

import eventlet
from oslo_context import context as oslo_context
import pytest

from nova_lite.wsgi import server as wsgi_server
from tests.functional.conftest import wait_for


def _get(url, token='admin:admin'):
    request = urllib.request.Request(url, headers={'X-Auth-Token': token})
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status, resp.headers['Content-Type'], resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers['Content-Type'], exc.read()


def _blocking_app(release, entered):
    def app(environ, start_response):
        entered.send()
        release.wait()
        start_response('200 OK', [('Content-Type', 'application/json')])
        return [b'{}']
    return app


def test_port_zero_binds_a_free_port_and_a_taken_port_is_refused():
    first = wsgi_server.Server('a', lambda e, s: [], '127.0.0.1', 0)
    try:
        assert first.port > 0
        with pytest.raises(wsgi_server.CannotListen) as exc:
            wsgi_server.Server('b', lambda e, s: [], '127.0.0.1', first.port)
        assert 'in use' in str(exc.value)
    finally:
        first.socket.close()


def test_answers_are_sent_without_waiting_for_the_clients_ack():
    """Every accepted connection has TCP_NODELAY (inherited from the
    listening socket): a response written in several pieces (headers,
    then a body of many segments) is not held back by Nagle until the
    client's delayed ACK, which cost a GET /servers/detail of 20
    servers 40 ms of its 52."""
    sock = wsgi_server.listen('127.0.0.1', 0)
    client = socket.create_connection(sock.getsockname()[:2], timeout=5)
    try:
        conn, _addr = sock.accept()
        try:
            assert conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        finally:
            conn.close()
    finally:
        client.close()
        sock.close()


def test_stop_refuses_new_connections_and_finishes_requests_in_progress():
    release, entered = eventlet.Event(), eventlet.Event()
    server = wsgi_server.Server('t', _blocking_app(release, entered),
                                '127.0.0.1', 0)
    server.start()
    url = 'http://127.0.0.1:%d/' % server.port
    in_progress = eventlet.spawn(_get, url)
    entered.wait()
    server.stop()
    with pytest.raises(OSError):
        socket.create_connection(('127.0.0.1', server.port), timeout=5)
    release.send()
    server.wait()
    assert in_progress.wait()[0] == 200


def test_stop_closes_idle_keep_alive_connections_and_wait_returns():
    """A client holding a keep-alive connection (openstacksdk does) does
    not keep a stopping API alive: the idle connection is closed, and its
    next request fails before any answer (so it may be sent elsewhere)."""
    import http.client

    def app(environ, start_response):
        start_response('200 OK', [('Content-Length', '2')])
        return [b'{}']

    server = wsgi_server.Server('t', app, '127.0.0.1', 0)
    server.start()
    conn = http.client.HTTPConnection('127.0.0.1', server.port, timeout=5)
    try:
        conn.request('GET', '/')
        assert conn.getresponse().read() == b'{}'
        server.stop()
        waiting = eventlet.spawn(server.wait)
        with eventlet.Timeout(5):
            waiting.wait()
        with pytest.raises((http.client.RemoteDisconnected,
                            ConnectionError)):
            conn.request('GET', '/')
            conn.getresponse()
    finally:
        conn.close()


def test_an_exception_escaping_the_app_is_a_500_fault():
    def broken(environ, start_response):
        raise RuntimeError('secret')
    server = wsgi_server.Server('t', broken, '127.0.0.1', 0)
    server.start()
    try:
        status, content_type, body = _get('http://127.0.0.1:%d/'
                                          % server.port)
    finally:
        server.stop()
        server.wait()
    assert status == 500 and content_type.startswith('application/json')
    fault = json.loads(body)['computeFault']
    assert fault['code'] == 500 and 'secret' not in fault['message']


def _free_port():
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]


def _children(pid):
    with open('/proc/%d/task/%d/children' % (pid, pid)) as f:
        return f.read().split()


def test_nova_lite_api_with_workers(plane, tmp_path):
    """Two workers share the port; a second API on it exits 2; SIGHUP
    keeps serving; SIGTERM stops in order (exit 0)."""
    port = _free_port()
    extra = tmp_path / 'api.conf'
    extra.write_text('[api]\nport = %d\nworkers = 2\n' % port)
    command = [os.path.join(os.path.dirname(sys.executable), 'nova-lite-api'),
               '--config-file', os.path.join(plane.state_dir,
                                             'nova_lite.conf'),
               '--config-file', str(extra)]
    api = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
    url = 'http://127.0.0.1:%d/v2.1/os-services' % port
    try:
        def serving():
            try:
                return _get(url)[0] == 200
            except OSError:
                assert api.poll() is None, api.stderr.read()
                return False
        wait_for(serving, timeout=60, message='nova-lite-api to serve')
        wait_for(lambda: len(_children(api.pid)) == 2, timeout=30,
                 message='two workers')
        second = subprocess.run(command, capture_output=True, text=True,
                                timeout=60)
        assert second.returncode == 2
        assert 'cannot listen on' in second.stderr
        api.send_signal(signal.SIGHUP)
        assert _get(url)[0] == 200
        api.send_signal(signal.SIGTERM)
        assert api.wait(timeout=60) == 0
    finally:
        if api.poll() is None:
            api.kill()
            api.wait()


def test_application_module_serves_with_its_environment(plane):
    """``nova_lite.wsgi.osapi_compute.application``, loaded as uwsgi or
    gunicorn would (config files named by the environment)."""
    script = (
        'import json, sys\n'
        'import webtest\n'
        'from nova_lite.wsgi import osapi_compute\n'
        'app = webtest.TestApp(osapi_compute.application)\n'
        'ok = app.get("/v2.1/os-services",\n'
        '             headers={"X-Auth-Token": "admin:admin"})\n'
        'bad = app.put("/v2.1/os-services/enable", "[" * 5000,\n'
        '              headers={"X-Auth-Token": "admin:admin"},\n'
        '              expect_errors=True)\n'
        'print(json.dumps([ok.status_int, bad.status_int, bad.json]))\n')
    env = dict(os.environ, OS_NOVA_LITE_CONFIG_DIR=plane.state_dir,
               OS_NOVA_LITE_CONFIG_FILES='nova_lite.conf')
    result = subprocess.run([sys.executable, '-c', script], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    ok, bad, fault = json.loads(result.stdout.splitlines()[-1])
    assert (ok, bad) == (200, 400) and fault['badRequest']['code'] == 400


class _CurrentRequestIds(logging.Handler):
    """The request id oslo.log's formatter would print on each access
    line: the green thread's current context when the line is logged."""

    def __init__(self):
        super().__init__()
        self.ids = []

    def emit(self, record):
        if '"GET ' in record.getMessage():      # not "accepted" lines
            current = oslo_context.get_current()
            self.ids.append(current.request_id if current else None)


def test_every_access_line_names_its_own_request(plane):
    """Requests on one keep-alive connection, one refused before auth
    (401): each line logged while it is served names its own request id
    (they named the first request's)."""
    handler = _CurrentRequestIds()
    access = logging.getLogger('eventlet.wsgi.server')
    access.addHandler(handler)
    access.setLevel(logging.INFO)
    conn = http.client.HTTPConnection(plane.host, plane.port, timeout=30)
    sent = []
    try:
        for path, token in (('/v2.1/flavors', 'admin:admin'),
                            ('/v2.1/os-services', 'admin:admin'),
                            ('/v2.1/servers', None),
                            ('/v2.1/servers/nope', 'demo:demo'),
                            ('/v2.1/flavors', 'admin:admin')):
            conn.request('GET', path, headers={'X-Auth-Token': token}
                         if token else {})
            response = conn.getresponse()
            response.read()
            sent.append(response.getheader('X-OpenStack-Request-Id'))
    finally:
        conn.close()
        access.removeHandler(handler)
    assert len(set(sent)) == 5
    wait_for(lambda: len(handler.ids) >= 5, timeout=10,
             message='five access lines')
    assert handler.ids == sent
