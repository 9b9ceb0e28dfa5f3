"""The fake driver's VNC servers: one per guest whose VNC console was
asked for, as a hypervisor runs one per guest, so that a console proxy
(nova-lite-novncproxy) has an RFB server to relay to.

Each speaks the RFB protocol's opening (RFC 6143): version 3.8 (or 3.3
if the client asks for it), security type None, and a ServerInit naming
the guest, of a small blank screen; what the client sends after is read
and dropped (the screen never changes, so nothing is sent). A server is
closed with its guest.
"""
import struct

import eventlet
from oslo_log import log as logging

LOG = logging.getLogger(__name__)

VERSION = b'RFB 003.008\n'
WIDTH, HEIGHT = 640, 480
# 32 bits per pixel, depth 24, little endian, true colour, 8 bits per
# channel (red at bit 16, green at 8, blue at 0), then 3 bytes padding.
PIXEL_FORMAT = struct.pack('>BBBBHHHBBB3x', 32, 24, 0, 1, 255, 255, 255,
                           16, 8, 0)
SECURITY_NONE = 1


def _read(sock, size):
    """size bytes from sock; None when it closes first."""
    data = b''
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def server_init(name):
    """The ServerInit message of a screen called name."""
    encoded = name.encode('utf-8')[:255]
    return (struct.pack('>HH', WIDTH, HEIGHT) + PIXEL_FORMAT
            + struct.pack('>L', len(encoded)) + encoded)


def handshake(sock, name):
    """The server's side of the RFB opening on sock; False when the
    client went away or spoke something else."""
    sock.sendall(VERSION)
    theirs = _read(sock, 12)
    if theirs is None or not theirs.startswith(b'RFB 003.'):
        return False
    if theirs == b'RFB 003.003\n':
        # 3.3: the server names the security type (a 32-bit word).
        sock.sendall(struct.pack('>L', SECURITY_NONE))
    else:
        sock.sendall(bytes((1, SECURITY_NONE)))
        chosen = _read(sock, 1)
        if chosen != bytes((SECURITY_NONE,)):
            return False
        sock.sendall(b'\0\0\0\0')          # SecurityResult: OK
    if _read(sock, 1) is None:             # ClientInit (shared flag)
        return False
    sock.sendall(server_init(name))
    return True


class Server(object):
    """An RFB server for one guest on (host, an ephemeral port)."""

    def __init__(self, host, name):
        self.name = name
        self._listener = eventlet.listen((host, 0))
        self.port = self._listener.getsockname()[1]
        self._conns = set()
        self._thread = eventlet.spawn(self._serve)

    def _serve(self):
        while True:
            try:
                sock, _addr = self._listener.accept()
            except OSError:
                return        # closed
            self._conns.add(sock)
            eventlet.spawn(self._client, sock)

    def _client(self, sock):
        try:
            if handshake(sock, self.name):
                while sock.recv(4096):
                    pass
        except OSError:
            pass
        finally:
            self._conns.discard(sock)
            sock.close()

    def close(self):
        self._listener.close()
        for sock in list(self._conns):
            try:
                sock.close()
            except OSError:
                pass
        self._thread.kill()
