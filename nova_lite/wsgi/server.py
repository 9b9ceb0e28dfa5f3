"""The API's HTTP server: eventlet's WSGI server, used directly.

``Server`` binds when built (so the port is known, and forked workers
share the socket) and serves in a green thread from ``start()``; ``stop()``
closes its listening socket and ``wait()`` lets requests in progress
finish.
It binds without SO_REUSEPORT: a port already in use is a ``CannotListen``
error, never a second server silently sharing the port.

Every answer is in the Compute API fault format, including the ones eventlet
writes itself before any WSGI application runs (request line too long,
header lines or headers too large, malformed request line, bad framing
headers) and an application that raises.
"""
import re
import socket

import eventlet
import eventlet.wsgi
import greenlet
from oslo_log import log as logging

from nova_lite._compat import eventlet as eventlet_compat
from nova_lite.api import faults

LOG = logging.getLogger(__name__)

POOL_SIZE = 100             # green threads serving requests, per process
BACKLOG = 128
MAX_REQUEST_LINE = 8192     # longer: 414 here (shorter URLs: the API's own)
MAX_HEADER_LINE = 16384     # keystone tokens travel in headers
CLIENT_SOCKET_TIMEOUT = 900
TCP_KEEPIDLE = 600
# After refusing a request, read what the client still sends (up to this
# much, for up to this long) before closing: closing with unread data makes
# the kernel reset the connection, and the client may lose our answer.
LINGER_BYTES = 1 << 20
LINGER_SECONDS = 2.0
LOG_FORMAT = ('%(client_ip)s "%(request_line)s" status: %(status_code)s '
              'len: %(body_length)s time: %(wall_seconds).7f')

_DIGITS = re.compile(r'[0-9]+')


class CannotListen(Exception):
    pass


def listen(host, port, backlog=BACKLOG):
    """A listening socket on (host, port); port 0 picks a free port."""
    try:
        info = socket.getaddrinfo(host, port, socket.AF_UNSPEC,
                                  socket.SOCK_STREAM)[0]
        family, address = info[0], info[-1]
    except OSError:
        family, address = socket.AF_INET, (host, port)
    try:
        sock = eventlet.listen(address, family, backlog=backlog,
                               reuse_port=False)
    except OSError as exc:
        raise CannotListen('cannot listen on %s:%s: %s' % (
            host, port, exc.strerror or exc)) from exc
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    # Accepted connections inherit it: an answer written in pieces
    # (headers, then the body's segments) goes out at once, not after
    # the client's delayed ACK (40 ms on Linux) as Nagle would have it.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if hasattr(socket, 'TCP_KEEPIDLE'):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE,
                        TCP_KEEPIDLE)
    return sock


class HttpProtocol(eventlet_compat.RequestLineHook):
    """eventlet's HTTP/1.1 protocol, refusing bad requests with faults."""

    def request_line_read(self, line):
        # eventlet answers a request line of url_length_limit bytes or more
        # with its own empty 414 right after reading it; answer first.
        if len(line) >= self.server.url_length_limit:
            self._refuse(414, 'The request URL is too long.')
            return ''    # eventlet then closes the connection
        return line

    def parse_request(self):
        try:
            if not super().parse_request():
                return False
        except eventlet.wsgi.HeaderLineTooLong:
            return self._refuse(400, 'A request header line is longer than '
                                     '%d bytes.' % MAX_HEADER_LINE)
        except eventlet.wsgi.HeadersTooLarge:
            return self._refuse(400, 'The request headers are larger than '
                                     '%d bytes.'
                                % eventlet.wsgi.MAX_TOTAL_HEADER_SIZE)
        return self._check_framing()

    def _check_framing(self):
        lengths = self.headers.get_all('Content-Length') or []
        encodings = self.headers.get_all('Transfer-Encoding') or []
        if len(lengths) > 1 or len(encodings) > 1:
            return self._refuse(400, 'Content-Length and Transfer-Encoding '
                                     'may each be given once.')
        if lengths and not _DIGITS.fullmatch(lengths[0].strip()):
            return self._refuse(400, 'Content-Length must be a '
                                     'non-negative integer.')
        if lengths and encodings:
            return self._refuse(400, 'Content-Length and Transfer-Encoding '
                                     'are not allowed together.')
        if encodings and encodings[0].strip().lower() != 'chunked':
            return self._refuse(400, 'Transfer-Encoding %r is not supported.'
                                % encodings[0][:40])
        return True

    def send_error(self, code, message=None, explain=None):
        """The standard library's request-line and header errors (bad
        syntax, bad or unsupported HTTP version, too many headers)."""
        # An HTTP/2 client talking text, or too many headers: still a bad
        # request, not our failure.
        self._refuse(400 if code in (431, 505) else code,
                     (message or self.responses.get(code, ('',))[0])[:200])

    def _refuse(self, code, message):
        body = faults.fault_response(code, message).body
        reason = self.responses.get(code, ('Error',))[0]
        head = ('HTTP/1.1 %d %s\r\nContent-Type: application/json; '
                'charset=UTF-8\r\nContent-Length: %d\r\nConnection: close\r\n'
                '\r\n' % (code, reason, len(body)))
        self.close_connection = True
        try:
            self.wfile.write(head.encode('latin-1') + body)
            self.wfile.flush()
            self._linger()
        except OSError:
            pass
        return False

    def _linger(self):
        conn = self.connection
        conn.shutdown(socket.SHUT_WR)
        conn.settimeout(LINGER_SECONDS)
        left = LINGER_BYTES
        while left > 0:
            data = conn.recv(min(left, 65536))
            if not data:
                return
            left -= len(data)

    def get_environ(self):
        environ = super().get_environ()
        # eventlet's input ends where the body ends, chunked or not: let
        # webob read bodies without a Content-Length (PEP 3333 extension).
        environ['wsgi.input_terminated'] = True
        return environ


def guard(app):
    """``app``, answering a 500 fault instead of letting an exception reach
    the server (which would answer in plain text)."""
    def guarded(environ, start_response):
        try:
            return app(environ, start_response)
        except Exception:
            LOG.exception('Unexpected error serving %s %s',
                          environ.get('REQUEST_METHOD'),
                          environ.get('PATH_INFO'))
            response = faults.fault_response(500,
                                             faults.INTERNAL_ERROR_MESSAGE)
            return response(environ, start_response)
    return guarded


class Server(object):
    """One WSGI application on one listening socket (oslo.service's
    ServiceBase interface: start, stop, wait, reset)."""

    def __init__(self, name, app, host, port, pool_size=POOL_SIZE):
        self.name = name
        self.app = guard(app)
        self.pool_size = pool_size
        self._pool = eventlet.GreenPool(pool_size)
        self._server = None
        self._serving = None
        self.socket = listen(host, port)
        self.host, self.port = self.socket.getsockname()[:2]
        LOG.info('%s listening on %s:%s', name, self.host, self.port)

    def start(self):
        eventlet.wsgi.MAX_HEADER_LINE = MAX_HEADER_LINE
        self._serving = self.socket.dup()
        self._server = eventlet.spawn(
            eventlet.wsgi.server, self._serving, self.app,
            protocol=HttpProtocol, custom_pool=self._pool,
            log=logging.getLogger('eventlet.wsgi.server'),
            log_format=LOG_FORMAT, url_length_limit=MAX_REQUEST_LINE,
            keepalive=True, socket_timeout=CLIENT_SOCKET_TIMEOUT,
            debug=False)

    def stop(self):
        """Stop listening (final); requests in progress go on."""
        LOG.info('Stopping %s', self.name)
        if self._server is not None:
            self._pool.resize(0)
            self._server.kill()
            self._serving.close()
        self.socket.close()

    def wait(self):
        """Until every request in progress has been answered."""
        if self._server is not None:
            try:
                self._pool.waitall()
            except greenlet.GreenletExit:
                pass

    def reset(self):
        """SIGHUP: back to the configured pool size."""
        self._pool.resize(self.pool_size)
