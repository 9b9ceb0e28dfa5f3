"""The fake driver's guests answer SSH ([fake_driver] guest_ssh): while
a guest runs, port 22 of each of its IPv4 addresses that this machine
can bind (in practice 127.0.0.0/8, which Linux routes to the loopback
without any setup) is its SSH server, as a booted image's sshd would
be.

A client logs in with a public key the guest accepts (its key pair's,
injected at boot or rebuild) or with its administrator password (the
adminPass of its create, rebuild or changePassword; the rescue
password while it is rescued), under any user name (the image's user,
as cloud-init made it). Each exec request runs in the guest's shell
(fake_guest.Shell, through the driver, which keeps what a command
writes); interactive shells are refused. One host key (ECDSA) per
compute process.

Binding an address another socket still holds (a guest that just went
away, or the source of a live migration) is tried again for
BIND_RETRY_SECONDS; an address that is not this machine's is skipped
(logged at debug). Listeners, their green threads and their sessions
are closed when the guest stops running.

Needs paramiko (imported with this module, which the driver imports
only when guest_ssh is on) and eventlet's monkey-patching, which every
nova_lite service does first (paramiko's transport threads become
green threads).
"""
import errno
import hashlib
import ipaddress
import socket
import time

import eventlet
from eventlet.green import socket as green_socket
from oslo_log import log as logging
import paramiko

LOG = logging.getLogger(__name__)

PORT = 22
BIND_RETRY_SECONDS = 60.0
BIND_RETRY_INTERVAL = 0.25
BACKLOG = 16


def ipv4(addresses):
    """The IPv4 addresses among addresses, in order, once each."""
    found = []
    for address in addresses:
        try:
            if ipaddress.ip_address(address).version == 4 and (
                    address not in found):
                found.append(address)
        except ValueError:
            continue
    return found


def accepts_key(authorized_keys, key):
    """Whether key (a paramiko key) is among authorized_keys (lines of
    an authorized_keys file: 'type base64 [comment]')."""
    blob = key.get_base64()
    for line in authorized_keys or ():
        parts = line.split()
        if len(parts) >= 2 and parts[1] == blob and parts[0] == (
                key.get_name()):
            return True
    return False


class GuestSSH(object):
    """The SSH servers of one host's guests.

    guest_of(uuid): the guest's login data while it runs
    ({'authorized_keys': [...], 'passwords': [sha256 hex...]}), else
    None; run(uuid, user, command): (status, stdout, stderr) of command
    in the guest's shell.
    """

    def __init__(self, host, guest_of, run, port=PORT):
        self.host = host
        self.guest_of = guest_of
        self.run = run
        self.port = port
        self._listeners = {}   # uuid -> {address: _Listener}
        self._host_key = None

    def host_key(self):
        if self._host_key is None:
            self._host_key = paramiko.ECDSAKey.generate(bits=256)
        return self._host_key

    def listening(self, uuid):
        """The addresses uuid's guest listens on now (bound)."""
        return sorted(address for address, listener
                      in self._listeners.get(uuid, {}).items()
                      if listener.bound)

    def sync(self, uuid, addresses):
        """uuid's guest answers on addresses (its IPv4 ones) and no
        others; [] stops it answering."""
        wanted = ipv4(addresses)
        current = self._listeners.setdefault(uuid, {})
        for address in [a for a in current if a not in wanted]:
            current.pop(address).close()
        for address in wanted:
            if address not in current:
                current[address] = _Listener(self, uuid, address)
        if not current:
            del self._listeners[uuid]

    def close(self):
        """Stop every guest's server (the driver going away)."""
        for uuid in list(self._listeners):
            self.sync(uuid, [])


class _Listener(object):
    """Port 22 of one address of one guest, and its sessions."""

    def __init__(self, server, uuid, address):
        self.server = server
        self.uuid = uuid
        self.address = address
        self.bound = False
        self._closed = False
        self._sock = None
        self._transports = set()
        self._thread = eventlet.spawn(self._serve)

    def _bind(self):
        deadline = time.monotonic() + BIND_RETRY_SECONDS
        while not self._closed:
            sock = green_socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((self.address, self.server.port))
                sock.listen(BACKLOG)
                return sock
            except OSError as exc:
                sock.close()
                if exc.errno != errno.EADDRINUSE or (
                        time.monotonic() > deadline):
                    LOG.debug('Guest %s does not answer SSH on %s:%d: %s',
                              self.uuid, self.address, self.server.port,
                              exc)
                    return None
            eventlet.sleep(BIND_RETRY_INTERVAL)
        return None

    def _serve(self):
        sock = self._bind()
        if sock is None:
            return
        if self._closed:
            sock.close()
            return
        self._sock = sock
        self.bound = True
        LOG.debug('Guest %s answers SSH on %s:%d', self.uuid, self.address,
                  self.server.port)
        while not self._closed:
            try:
                conn, _peer = sock.accept()
            except OSError:
                return      # closed
            eventlet.spawn(self._session, conn)

    def _session(self, conn):
        transport = paramiko.Transport(conn)
        transport.add_server_key(self.server.host_key())
        self._transports = {t for t in self._transports if t.is_active()}
        self._transports.add(transport)
        if self._closed:
            transport.close()
            return
        try:
            transport.start_server(server=_Interface(self.server,
                                                     self.uuid))
        except (paramiko.SSHException, EOFError, OSError) as exc:
            LOG.debug('SSH session to guest %s ended: %s', self.uuid, exc)
            transport.close()

    def close(self):
        self._closed = True
        self.bound = False
        if self._sock is not None:
            self._sock.close()
        for transport in list(self._transports):
            transport.close()
        self._transports.clear()
        self._thread.kill()


class _Interface(paramiko.ServerInterface):
    """What one SSH session of a guest may do."""

    def __init__(self, server, uuid):
        self.server = server
        self.uuid = uuid
        self.user = 'root'

    def get_allowed_auths(self, username):
        return 'publickey,password'

    def check_auth_publickey(self, username, key):
        login = self.server.guest_of(self.uuid)
        if login and accepts_key(login.get('authorized_keys'), key):
            self.user = username
            return paramiko.AUTH_SUCCESSFUL
        return paramiko.AUTH_FAILED

    def check_auth_password(self, username, password):
        login = self.server.guest_of(self.uuid)
        digest = hashlib.sha256(password.encode()).hexdigest()
        if login and digest in (login.get('passwords') or ()):
            self.user = username
            return paramiko.AUTH_SUCCESSFUL
        return paramiko.AUTH_FAILED

    def check_channel_request(self, kind, chanid):
        if kind == 'session':
            return paramiko.OPEN_SUCCEEDED
        return paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED

    def check_channel_pty_request(self, *args):
        return True

    def check_channel_env_request(self, channel, name, value):
        return True

    def check_channel_exec_request(self, channel, command):
        eventlet.spawn(self._exec, channel, command)
        return True

    def _exec(self, channel, command):
        status = 255
        try:
            text = command.decode('utf-8', 'replace') if isinstance(
                command, bytes) else command
            status, out, err = self.server.run(self.uuid, self.user, text)
            if out:
                channel.sendall(out.encode('utf-8'))
            if err:
                channel.sendall_stderr(err.encode('utf-8'))
        except Exception:
            LOG.exception('Command of guest %s failed', self.uuid)
        finally:
            try:
                channel.send_exit_status(status)
                channel.shutdown_write()
                channel.close()
            except (OSError, EOFError, paramiko.SSHException):
                pass
