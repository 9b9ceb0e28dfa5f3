"""Canary of nova_lite._compat.eventlet: eventlet's HTTP protocol reads
each request line with _read_request_line, and RequestLineHook sees it."""
import eventlet
import eventlet.wsgi

from nova_lite._compat import eventlet as eventlet_compat


def test_request_lines_are_read_with_read_request_line():
    assert '_read_request_line' in eventlet.wsgi.HttpProtocol.__dict__
    assert '_read_request_line' in \
        eventlet.wsgi.HttpProtocol.handle_one_request.__code__.co_names


def test_the_hook_sees_each_request_line_first():
    seen = []

    class Protocol(eventlet_compat.RequestLineHook):
        def request_line_read(self, line):
            seen.append(line)
            return line

    def app(environ, start_response):
        start_response('200 OK', [('Content-Length', '2')])
        return [b'ok']

    sock = eventlet.listen(('127.0.0.1', 0))
    port = sock.getsockname()[1]
    server = eventlet.spawn(eventlet.wsgi.server, sock, app,
                            protocol=Protocol, log_output=False)
    try:
        client = eventlet.connect(('127.0.0.1', port))
        client.sendall(b'GET /canary HTTP/1.1\r\nHost: x\r\n'
                       b'Connection: close\r\n\r\n')
        answer = b''
        while True:
            chunk = client.recv(4096)
            if not chunk:
                break
            answer += chunk
        client.close()
    finally:
        server.kill()
        sock.close()
    assert answer.startswith(b'HTTP/1.1 200')
    assert seen and seen[0].startswith(b'GET /canary HTTP/1.1')
