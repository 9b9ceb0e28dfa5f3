"""The noVNC console proxy (nova-lite-novncproxy's application) in front
of a running plane: a server's noVNC console URL leads, through the
proxy, to the RFB server of its guest (the fake driver's), as Tempest's
NoVNCConsoleTestJSON checks it; a bad, dead or other-type token gets
the connection closed with no data."""
import struct
from urllib import parse
import urllib.request

import pytest

from nova_lite.api import novncproxy
from nova_lite.wsgi import server
from tests.functional.api.plane_fixtures import running  # noqa: F401
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.conftest import wait_for
from tests.functional.websocket_client import WebSocket

VNC = {'remote_console': {'protocol': 'vnc', 'type': 'novnc'}}


@pytest.fixture(scope='module')
def proxy(running):  # noqa: F811
    srv = server.Server('nova-lite-novncproxy', novncproxy.app,
                        '127.0.0.1', 0)
    srv.start()
    yield srv
    srv.stop()


def _console_url(running, uuid, proxy):  # noqa: F811
    resp = running.api('POST', '/servers/%s/remote-consoles' % uuid, VNC,
                       token=MEMBER, version='2.6')
    assert resp.status_code == 200, resp.text
    url = parse.urlsplit(resp.json()['remote_console']['url'])
    # The URL names [vnc] novncproxy_base_url; this proxy's port instead.
    return url._replace(netloc='127.0.0.1:%d' % proxy.port).geturl()


def _token(url):
    path = parse.parse_qs(parse.urlsplit(url).query)['path'][0]
    return parse.parse_qs(parse.urlsplit(path).query)['token'][0]


def _connect(proxy, path, headers=()):
    return WebSocket('127.0.0.1', proxy.port, path, headers=headers)


def _negotiate(ws, version=b'RFB 003.008\n'):
    """The client's side of the RFB opening over ws; the ServerInit."""
    assert ws.receive_data() == b'RFB 003.008\n'
    ws.send(version)
    if version == b'RFB 003.003\n':
        assert ws.receive_data() == struct.pack('>L', 1)
    else:
        assert ws.receive_data() == b'\x01\x01'    # one type: None
        ws.send(b'\x01')
        assert ws.receive_data() == b'\0\0\0\0'    # security OK
    ws.send(b'\x01')                               # shared desktop
    return ws.receive_data()


def _closed_without_data(ws):
    return ws.receive_data() is None


def test_console_url_reaches_the_guest(running, proxy):  # noqa: F811
    uuid = running.boot('cell1')
    url = _console_url(running, uuid, proxy)
    page = urllib.request.urlopen(url, timeout=10)
    text = page.read().decode()
    assert page.status == 200
    assert '<html' in text and '</html>' in text
    assert 'noVNC' in text and '<script' in text
    # The WebSocket request as noVNC makes it from the URL's path.
    ws = _connect(proxy, '/?token=%s' % _token(url))
    try:
        status = ws.response.split(b'\r\n')[0]
        assert status.startswith(b'HTTP/1.1 101 Switching Protocols')
        headers = ws.response.lower()
        assert b'upgrade: websocket' in headers
        assert b'sec-websocket-protocol: binary' in headers
        init = _negotiate(ws)
    finally:
        ws.close()
    width, height = struct.unpack('>HH', init[:4])
    (length,) = struct.unpack('>L', init[20:24])
    assert (width, height) == (640, 480)
    assert len(init) == 24 + length and init[24:] == uuid.encode()
    # RFB 3.3, and the token as a cookie (noVNC before 1.1).
    ws = _connect(proxy, '/websockify',
                  headers=['Cookie: token=%s' % _token(url)])
    try:
        assert _negotiate(ws, b'RFB 003.003\n')[24:] == uuid.encode()
    finally:
        ws.close()


def test_bad_tokens_are_closed_with_no_data(running, proxy):  # noqa: F811
    uuid = running.boot('cell2')
    url = _console_url(running, uuid, proxy)
    token = _token(url)
    for path, headers in (('/?token=bad' + token, []),
                          ('/?token=', []),
                          ('/websockify', []),
                          ('/websockify', ['Cookie: token=bad'])):
        ws = _connect(proxy, path, headers)
        try:
            assert ws.response.startswith(b'HTTP/1.1 101'), ws.response
            assert _closed_without_data(ws), path
        finally:
            ws.close()
    # A deleted server's token is dead, and its VNC server gone.
    shown = running.api('GET', '/os-console-auth-tokens/%s' % token,
                        token=ADMIN, version='2.31').json()['console']
    assert running.api('DELETE', '/servers/%s' % uuid,
                       token=MEMBER).status_code == 204
    running.gone(uuid)
    ws = _connect(proxy, '/?token=%s' % token)
    try:
        assert _closed_without_data(ws)
    finally:
        ws.close()

    def refused():
        try:
            WebSocket(shown['host'], shown['port'], '/').close()
        except OSError:
            return True
        return False
    wait_for(refused, timeout=10, message='VNC server of %s closed' % uuid)


def test_other_pages_are_404(proxy):
    with pytest.raises(urllib.error.HTTPError) as exc:
        urllib.request.urlopen('http://127.0.0.1:%d/nope' % proxy.port,
                               timeout=10)
    assert exc.value.code == 404
