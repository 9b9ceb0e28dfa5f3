"""A fork server for the `openstack` command (tests/clients.py starts it).

    python tests/cli_zygote.py SOCKET_PATH

Each `openstack` process spends one to two CPU seconds importing
python-openstackclient, openstacksdk, keystoneauth and cliff before it
sends a request; the tests run a few hundred of them. This process
imports them once, listens on a Unix socket and, for each connection,
forks a child that runs the `openstack` console script's own entry point
(openstackclient.shell.main) with the request's arguments and
environment, its stdout and stderr captured, and answers with the exit
status, both outputs and the child's CPU seconds. The child is a fresh
copy of a process that has run no command, so each command starts from
the same state a new `openstack` process would (its own options,
clouds.yaml lookup, session and caches); only the imports are shared,
and `--wait` polls more often (_poll_sooner).

Protocol, one connection per command: the client sends one JSON line
{"argv": [...], "env": {...}}; the child answers with a line holding
its pid (so that a client that times out can kill it), then one JSON
line {"rc", "stdout", "stderr", "cpu"}. The server prints "ready" on
stdout once it listens and ends when its stdin closes (its parent
ended or let go of it).
"""
import functools
import json
import os
import select
import signal
import socket
import sys
import tempfile
import warnings

# The command groups the tests use: imported once, here.
_GROUPS = ('openstack.cli', 'openstack.common', 'openstack.compute.v2',
           'openstack.image.v2', 'openstack.network.v2',
           'openstack.identity.v3', 'openstack.volume.v3')


def _warm():
    warnings.simplefilter('ignore')
    from importlib import metadata
    import openstack  # noqa: F401  (openstacksdk)
    from openstackclient.common import clientmanager  # noqa: F401
    from openstackclient import shell  # noqa: F401
    eps = metadata.entry_points()
    for group in _GROUPS:
        for ep in eps.select(group=group):
            try:
                ep.load()
            except Exception:
                pass
    # the plugin modules each API's client factory imports
    for ep in eps.select(group='openstack.cli.base'):
        try:
            ep.load()
        except Exception:
            pass
    import keystoneauth1.loading  # noqa: F401
    from keystoneauth1.loading import _plugins  # noqa: F401
    _poll_sooner()


def _poll_sooner():
    """`--wait` polls every 0.5 s instead of osc-lib's 5 s: the servers
    of an all-in-one settle in well under a second, and the tests would
    otherwise spend most of their time asleep in these waits. Nothing
    else about the commands changes."""
    from osc_lib import utils

    def sooner(func):
        @functools.wraps(func)
        def wait(*args, **kwargs):
            kwargs.setdefault('sleep_time', 0.5)
            return func(*args, **kwargs)
        return wait
    utils.wait_for_status = sooner(utils.wait_for_status)
    utils.wait_for_delete = sooner(utils.wait_for_delete)


def _run_child(conn):
    from openstackclient import shell
    request = b''
    while not request.endswith(b'\n'):
        chunk = conn.recv(65536)
        if not chunk:
            os._exit(1)
        request += chunk
    request = json.loads(request)
    conn.sendall(b'%d\n' % os.getpid())
    os.environ.clear()
    os.environ.update(request['env'])
    out = tempfile.TemporaryFile()
    err = tempfile.TemporaryFile()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(out.fileno(), 1)
    os.dup2(err.fileno(), 2)
    sys.argv = [_PROGRAM] + request['argv']
    try:
        rc = shell.main(request['argv'])
    except SystemExit as exc:
        rc = exc.code
    except BaseException:
        import traceback
        traceback.print_exc()
        rc = 1
    if rc is None:
        rc = 0
    elif not isinstance(rc, int):
        sys.stderr.write('%s\n' % rc)
        rc = 1
    sys.stdout.flush()
    sys.stderr.flush()
    times = os.times()
    reply = {'rc': rc, 'cpu': times.user + times.system}
    for name, f in (('stdout', out), ('stderr', err)):
        f.seek(0)
        reply[name] = f.read().decode('utf-8', 'replace')
    conn.sendall(json.dumps(reply).encode() + b'\n')
    conn.close()
    os._exit(0)


def _reap(signum, frame):
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


# What sys.argv[0] is in an `openstack` process (cliff names the program
# after it when its classes are defined).
_PROGRAM = os.path.join(os.path.dirname(sys.executable), 'openstack')


def main(path):
    sys.argv = [_PROGRAM]
    _warm()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    signal.signal(signal.SIGCHLD, _reap)
    sys.stdout.write('ready\n')
    sys.stdout.flush()
    while True:
        try:
            ready, _, _ = select.select([listener, sys.stdin], [], [])
        except InterruptedError:
            continue
        if sys.stdin in ready:
            if not os.read(sys.stdin.fileno(), 4096):
                break
        if listener in ready:
            try:
                conn, _addr = listener.accept()
            except InterruptedError:
                continue
            pid = os.fork()
            if pid == 0:
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                listener.close()
                try:
                    _run_child(conn)
                finally:
                    os._exit(1)
            conn.close()
    listener.close()
    os.unlink(path)


if __name__ == '__main__':
    main(sys.argv[1])
