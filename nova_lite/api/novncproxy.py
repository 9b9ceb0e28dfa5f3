"""nova-lite-novncproxy's WSGI application: the noVNC console proxy.

A console's access URL (``os-remote-consoles``, type ``novnc``) is
``[vnc] novncproxy_base_url?path=%3Ftoken%3D<token>``. This answers:

- ``GET`` of the page the URL names (``/``, ``/vnc.html``,
  ``/vnc_auto.html``, ``/vnc_lite.html``): a small HTML console page
  that opens the WebSocket below (it shows the guest's desktop name;
  it is not noVNC's full client);
- a WebSocket upgrade (RFC 6455, eventlet's server; subprotocol
  ``binary``) carrying the token in its query (``?token=``, or in a
  ``path`` parameter as noVNC sends it) or in a ``token`` cookie (noVNC
  before 1.1): the token is checked as os-console-auth-tokens checks it
  (every cell; unknown, expired, a deleted server's or a moved
  server's: the connection is closed at once) and must be a ``novnc``
  one; then the proxy connects to the guest's VNC server (the token's
  host and port) and relays bytes both ways until either side closes.

Anything else is a 404. Like Nova's proxy it needs the API and cell
databases (to find the token), not the message queue.
"""
import html
import http.cookies
import socket
from urllib import parse

import eventlet
from eventlet import websocket
from oslo_log import log as logging
import webob
import webob.dec

from nova_lite.compute.api import server_consoles
from nova_lite import context as nova_context
from nova_lite import exception

LOG = logging.getLogger(__name__)

PAGES = ('/', '/vnc.html', '/vnc_auto.html', '/vnc_lite.html')
CONSOLE_TYPE = 'novnc'
RELAY_CHUNK = 65536
PAGE = '''<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>%(title)s</title>
</head>
<body>
<p>nova_lite console proxy (the noVNC WebSocket protocol: RFB over a
binary WebSocket).</p>
<p id="status">Connecting...</p>
<script>
(function () {
  var status = document.getElementById('status');
  var query = new URLSearchParams(window.location.search);
  var path = query.get('path') || ('?token=' + (query.get('token') || ''));
  var scheme = window.location.protocol === 'https:' ? 'wss://' : 'ws://';
  var ws = new WebSocket(scheme + window.location.host + '/' + path,
                         ['binary']);
  ws.binaryType = 'arraybuffer';
  var step = 0;
  ws.onmessage = function (event) {
    var data = new Uint8Array(event.data);
    if (step === 0) {            // the server's RFB version: ours is 3.8
      ws.send(new TextEncoder().encode('RFB 003.008\\n'));
    } else if (step === 1) {     // security types: None
      ws.send(new Uint8Array([1]));
    } else if (step === 2) {     // security result, then ClientInit
      ws.send(new Uint8Array([1]));
    } else if (step === 3) {     // ServerInit: the desktop's name
      var view = new DataView(event.data);
      var name = new TextDecoder().decode(data.slice(24, 24 +
                                                     view.getUint32(20)));
      status.textContent = 'Connected to ' + name + ' (' +
        view.getUint16(0) + 'x' + view.getUint16(2) + ')';
    }
    step += 1;
  };
  ws.onclose = function () {
    if (step < 4) { status.textContent = 'Disconnected.'; }
  };
})();
</script>
</body>
</html>
'''


def _token(environ):
    """The token a WebSocket request carries, or None."""
    query = parse.parse_qs(environ.get('QUERY_STRING', ''))
    if query.get('token'):
        return query['token'][0]
    if query.get('path'):
        inner = parse.parse_qs(parse.urlparse(query['path'][0]).query)
        if inner.get('token'):
            return inner['token'][0]
    cookies = http.cookies.SimpleCookie()
    try:
        cookies.load(environ.get('HTTP_COOKIE', ''))
    except http.cookies.CookieError:
        return None
    if 'token' in cookies:
        return cookies['token'].value
    return None


def _console(token):
    """The token's console record if it is a valid noVNC one, else
    None."""
    if not token:
        return None
    ctxt = nova_context.get_admin_context()
    try:
        record = server_consoles.validate_token(ctxt, token)
    except exception.ConsoleTokenNotFound:
        return None
    if record['console_type'] != CONSOLE_TYPE:
        return None
    return record


def _relay(ws, sock):
    """Bytes from the client's frames to sock, and from sock to the
    client as binary frames, until either side closes."""
    def upstream():
        try:
            while True:
                message = ws.wait()
                if message is None:
                    break
                if isinstance(message, str):
                    message = message.encode('utf-8')
                sock.sendall(message)
        except OSError:
            pass
        finally:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    reader = eventlet.spawn(upstream)
    try:
        while True:
            data = sock.recv(RELAY_CHUNK)
            if not data:
                break
            ws.send(data)
    except OSError:
        pass
    finally:
        reader.kill()
        sock.close()


@websocket.WebSocketWSGI.configured(supported_protocols=['binary'])
def _websocket(ws):
    record = _console(_token(ws.environ))
    if record is None:
        LOG.info('Console connection refused: no valid noVNC token')
        return
    try:
        sock = eventlet.connect((record['host'], record['port']))
    except OSError as exc:
        LOG.warning('Console of %s: cannot reach its VNC server at %s:%s: '
                    '%s', record['instance_uuid'], record['host'],
                    record['port'], exc)
        return
    LOG.info('Console of %s connected (%s:%s)', record['instance_uuid'],
             record['host'], record['port'])
    _relay(ws, sock)


def _page(req):
    return webob.Response(
        status=200, content_type='text/html', charset='utf-8',
        text=PAGE % {'title': html.escape('nova_lite noVNC console')})


@webob.dec.wsgify
def _http(req):
    if req.method in ('GET', 'HEAD') and req.path_info in PAGES:
        return _page(req)
    return webob.Response(status=404, content_type='text/plain',
                          text='Not found\n')


def app(environ, start_response):
    """WebSocket upgrades to the relay, the rest to the pages."""
    if environ.get('HTTP_UPGRADE', '').lower() == 'websocket':
        return _websocket(environ, start_response)
    return _http(environ, start_response)
