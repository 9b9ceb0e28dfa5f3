"""Hypothesis over a real socket: what eventlet's HTTP server itself
refuses is a fault too.

Raw requests to the API under nova_lite.wsgi's server: long URLs (around
the API's 414 limit and the server's request-line limit, up to 100 KiB),
long or many headers, malformed request lines and versions, contradictory
or broken framing (Content-Length, Transfer-Encoding, chunks), deep and
non-finite chunked bodies. Every answer must be < 500 and, when an error, a
fault with a JSON content type.
"""
import socket

from hypothesis import given
from hypothesis import strategies as st

from nova_lite.api import json_body
from nova_lite.api import middleware
from nova_lite.wsgi import server as wsgi_server
from tests.functional.api import test_fuzz

MAX_URL = middleware.MAX_URL_LENGTH
MAX_LINE = wsgi_server.MAX_REQUEST_LINE

URL_LENGTHS = st.one_of(
    st.sampled_from([MAX_URL - 1, MAX_URL, MAX_URL + 1, MAX_LINE - 40,
                     MAX_LINE - 10, MAX_LINE, 10000, 100000]),
    st.integers(min_value=1, max_value=20000))
VERSIONS = st.sampled_from(['HTTP/1.1'] * 6 + [
    'HTTP/1.0', 'HTTP/2.0', 'HTTP/1', 'HTTP/x.y', 'FTP/1.1', '',
    'HTTP/1.1 trailing'])
# Extra header lines, raw.
HEADERS = st.one_of(
    st.just(b''), st.just(b''), st.just(b''),
    st.sampled_from([
        b'X-Long: ' + b'a' * 20000 + b'\r\n',
        b''.join(b'X-H%d: %s\r\n' % (i, b'a' * 8000) for i in range(9)),
        b''.join(b'X-H%d: a\r\n' % i for i in range(120)),
        b'Content-Length: -1\r\n', b'Content-Length: abc\r\n',
        b'Content-Length: 1\r\nContent-Length: 2\r\n',
        b'Content-Length: 2\r\nTransfer-Encoding: chunked\r\n',
        b'Transfer-Encoding: gzip\r\n',
        b'no colon here\r\n', b'X-Bin: \xff\xfe\r\n',
    ]))
CHUNK_BODIES = st.one_of(
    st.sampled_from([b'{"status": "disabled"}', b'zz\r\n', b'{"k": NaN}']),
    test_fuzz.NESTED,
    st.builds(test_fuzz.nested, st.just('array'),
              st.sampled_from([1000, 30000])))


def _chunked(body, broken):
    if broken:
        return b'%x\r\n%s\r\nnot-hex\r\n\r\n' % (len(body), body)
    return b''.join(b'%x\r\n%s\r\n' % (len(body[i:i + 4096]),
                                       body[i:i + 4096])
                    for i in range(0, len(body), 4096)) + b'0\r\n\r\n'


def exchange(port, data):
    """Send raw bytes, read until the server closes: (status, headers,
    body)."""
    with socket.create_connection(('127.0.0.1', port), timeout=10) as sock:
        try:
            sock.sendall(data)
        except OSError:
            pass    # refused early; its answer is still to be read
        received = []
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            received.append(chunk)
    head, _, body = b''.join(received).partition(b'\r\n\r\n')
    lines = head.decode('latin-1').split('\r\n')
    assert lines[0].startswith('HTTP/1.'), lines[0]
    status = int(lines[0].split()[1])
    headers = dict((k.strip().lower(), v.strip()) for k, v in (
        line.split(':', 1) for line in lines[1:]))
    if 'content-length' in headers:
        body = body[:int(headers['content-length'])]
    return status, headers, body.decode('utf-8')


@test_fuzz.SETTINGS
@given(method=test_fuzz.METHODS, path=test_fuzz.PATHS,
       url_length=URL_LENGTHS, version=VERSIONS, headers=HEADERS,
       body=st.one_of(st.none(), CHUNK_BODIES), broken=st.booleans(),
       token=st.sampled_from([b'admin:admin', b'bob:project-a']))
def test_no_wire_input_gives_a_server_error_or_a_non_fault(
        served, method, path, url_length, version, headers, body, broken,
        token):
    url = path + '?x=' if '?' not in path else path + '&x='
    url += 'a' * max(0, url_length - len(url))
    request_line = ('%s %s %s' % (method, url, version)).strip()
    data = request_line.encode() + b'\r\nHost: test\r\nConnection: close\r\n'
    data += b'X-Auth-Token: ' + token + b'\r\n' + headers
    if body is not None and b'Transfer-Encoding' not in headers:
        data += b'Content-Type: application/json\r\n'
        data += b'Transfer-Encoding: chunked\r\n\r\n' + _chunked(body, broken)
    else:
        data += b'\r\n'
    status, response_headers, text = exchange(served.port, data)
    test_fuzz.check(status, response_headers.get('content-type', ''), text,
                    method)
    if len(request_line) + 2 >= MAX_LINE:
        assert status == 414, (status, text)
    elif (len(url) - 1 > MAX_URL and not headers and version == 'HTTP/1.1'
          and ' ' not in url):     # the API counts path and query, no '?'
        assert status == 414, (status, text)
    elif (body is not None and not headers and not broken
          and version == 'HTTP/1.1' and len(url) - 1 <= MAX_URL
          and test_fuzz._not_strict(body)):
        assert status == 400, (status, text)


def test_nested_chunked_body_at_the_limits(served):
    """Deep bodies sent chunked (no length announced): 400 under the size
    limit, 413 over it; at the depth limit the endpoint judges it."""
    for body, expected in (
            (test_fuzz.nested('array', 50000), 400),
            (test_fuzz.nested('object', 5000), 400),
            (test_fuzz.nested('array', 100000), 413),
            (test_fuzz.nested('array', json_body.MAX_DEPTH), 400)):
        data = (b'PUT /v2.1/os-services/enable HTTP/1.1\r\nHost: t\r\n'
                b'Connection: close\r\nX-Auth-Token: admin:admin\r\n'
                b'Content-Type: application/json\r\n'
                b'Transfer-Encoding: chunked\r\n\r\n' +
                _chunked(body, broken=False))
        status, headers, text = exchange(served.port, data)
        fault = test_fuzz.check(status, headers['content-type'], text, 'PUT')
        assert status == expected, fault
