"""A small RFC 6455 client for tests: the upgrade request, masked binary
frames out, frames in (any length), as a browser's WebSocket sends and
reads them."""
import base64
import os
import socket
import struct

OPCODES = {1: 'text', 2: 'binary', 8: 'close', 9: 'ping', 10: 'pong'}


class WebSocket(object):
    """Connects to (host, port), asks for path's upgrade (subprotocol
    binary; extra header lines in headers). self.response: the
    answer's status line and headers (bytes)."""

    def __init__(self, host, port, path, headers=(), timeout=10):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = ['GET %s HTTP/1.1' % path, 'Host: %s:%d' % (host, port),
                 'Upgrade: websocket', 'Connection: Upgrade',
                 'Sec-WebSocket-Key: %s' % key,
                 'Sec-WebSocket-Version: 13',
                 'Sec-WebSocket-Protocol: binary'] + list(headers)
        self.sock.sendall(('\r\n'.join(lines) + '\r\n\r\n').encode())
        self._buf = b''
        while b'\r\n\r\n' not in self._buf:
            chunk = self.sock.recv(4096)
            if not chunk:
                break
            self._buf += chunk
        self.response, _, self._buf = self._buf.partition(b'\r\n\r\n')

    def _read(self, size):
        while len(self._buf) < size:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self._buf += chunk
        data, self._buf = self._buf[:size], self._buf[size:]
        return data

    def receive(self):
        """(opcode name, payload) of the next frame; None when the
        connection closed."""
        head = self._read(2)
        if head is None:
            return None
        opcode, length = head[0] & 0x0f, head[1] & 0x7f
        if length == 126:
            length = struct.unpack('>H', self._read(2))[0]
        elif length == 127:
            length = struct.unpack('>Q', self._read(8))[0]
        payload = self._read(length) if length else b''
        return OPCODES.get(opcode, opcode), payload

    def receive_data(self):
        """The next data frame's payload; None when the server closed
        (a close frame, or the connection) first."""
        frame = self.receive()
        if frame is None or frame[0] == 'close':
            return None
        return frame[1]

    def send(self, data):
        mask = os.urandom(4)
        size = len(data)
        if size < 126:
            head = struct.pack('>BB', 0x82, 0x80 | size)
        elif size < 65536:
            head = struct.pack('>BBH', 0x82, 0x80 | 126, size)
        else:
            head = struct.pack('>BBQ', 0x82, 0x80 | 127, size)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(head + mask + masked)

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
