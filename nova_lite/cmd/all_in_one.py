"""nova-lite-all-in-one: the whole control plane in one process.

Exit status: 0 after an orderly stop (Ctrl-C or SIGTERM), 2 when it
cannot start: the state directory is in use by another all-in-one, or
the port is taken.
"""
import argparse
import errno
import fcntl
import gc
import os
import socket
import sys
import time

from nova_lite import cmd  # noqa: F401  (eventlet first)
from nova_lite import allinone  # noqa: H306
from nova_lite.conf import CONF
from nova_lite import config
from nova_lite import inproc_transport
from nova_lite import service
from nova_lite import utils
from nova_lite import version


def _parse(argv):
    parser = argparse.ArgumentParser(
        prog='nova-lite-all-in-one',
        description='Run API, conductors, scheduler and simulated computes '
                    'in one process on SQLite (state kept in --state-dir).')
    parser.add_argument('--state-dir', default='./nova-lite-state')
    parser.add_argument('--cells', type=int, default=2)
    parser.add_argument('--computes-per-cell', type=int, default=2)
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--port', type=int, default=8774)
    parser.add_argument('--debug', action='store_true')
    parser.add_argument('--version', action='version',
                        version=version.release_string())
    parser.add_argument(
        '--config-file', action='append', default=[], metavar='FILE',
        help='oslo.config file applied over the defaults (repeatable; '
             'later files win), e.g. [oslo_policy] policy_file, '
             '[scheduler] weight_classes, [fake_driver] capacity, '
             'spawn_delay '
             'and injected failures, [api] auth_strategy = keystone '
             'with [keystone_authtoken] (default noauth2). The state '
             'directory decides the '
             'databases, transports and listen address.')
    parser.add_argument(
        '--allow-cross-cell-resize', action='store_true',
        help='let resize and cold migration move a server to another '
             'cell: opens the compute:servers:resize:cross_cell policy '
             'rule to the server\'s project members and administrators '
             '(a policy directory in the state directory, read after '
             'yours) and sets [filter_scheduler] '
             'cross_cell_move_weight_multiplier to %s so that the '
             'scheduler prefers hosts of other cells.'
             % allinone.PREFER_OTHER_CELLS)
    parser.add_argument(
        '--no-default-flavors', dest='default_flavors',
        action='store_false',
        help='do not create the m1.tiny ... m1.xlarge flavors (ids 1-5, '
             'as on a devstack) that a new state directory otherwise '
             'gets at its first start.')
    return parser.parse_args(argv)


EXIT_CANNOT_START = 2
LOCK_FILE = '.lock'


def _lock_state_dir(state_dir):
    """Hold an exclusive lock on the state directory for the process's
    life (released by the kernel when it exits); None if another process
    holds it."""
    os.makedirs(state_dir, exist_ok=True)
    lock = open(os.path.join(state_dir, LOCK_FILE), 'a+')
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        lock.close()
        if exc.errno in (errno.EAGAIN, errno.EACCES):
            return None
        raise
    lock.seek(0)
    lock.truncate()
    lock.write('%d\n' % os.getpid())
    lock.flush()
    return lock


def _port_in_use(host, port):
    """The OSError binding host:port gives, or None if it is free. The
    probe does not set SO_REUSEPORT, so a listener that set it (as
    eventlet.listen does) still counts as in use."""
    if port == 0:
        return None
    for family, _, _, _, addr in socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM):
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(addr)
            except OSError as exc:
                return exc
    return None


def _refuse(message):
    print('nova-lite-all-in-one: %s' % message, file=sys.stderr)
    return EXIT_CANNOT_START


def main(argv=None):
    started = time.monotonic()
    args = _parse(sys.argv[1:] if argv is None else argv)
    state_lock = _lock_state_dir(args.state_dir)
    if state_lock is None:
        return _refuse('%s is in use by another nova-lite-all-in-one (see '
                       'the pid in %s); stop it or pass another '
                       '--state-dir.' % (os.path.abspath(args.state_dir),
                                         LOCK_FILE))
    busy = _port_in_use(args.host, args.port)
    if busy is not None:
        return _refuse('cannot listen on %s:%d (%s); stop what uses it or '
                       'pass another --port.' % (args.host, args.port,
                                                  busy.strerror or busy))
    missing = [f for f in args.config_file if not os.path.isfile(f)]
    if missing:
        return _refuse('config file %s not found.' % missing[0])
    config.parse_args(['nova-lite-all-in-one'] +
                      [arg for f in args.config_file
                       for arg in ('--config-file', f)] +
                      (['--debug'] if args.debug else []),
                      default_config_files=[])
    # Its messages never leave this process: they are not test-encoded
    # to JSON on the way (the functional tests, in-process, still are).
    inproc_transport.CHECK_MESSAGES = False
    if args.allow_cross_cell_resize:
        allinone.allow_cross_cell_resize(args.state_dir)
    plane = allinone.Plane(args.state_dir, cells=args.cells,
                           computes_per_cell=args.computes_per_cell,
                           host=args.host, port=args.port,
                           default_flavors=args.default_flavors,
                           with_novncproxy=True).build()
    conf_file = '%s/nova_lite.conf' % CONF.state_path
    # The scripts next to this interpreter: the venv need not be active.
    manage = os.path.join(os.path.dirname(sys.executable), 'nova-lite-manage')

    def announce():
        if CONF.api.auth_strategy == 'keystone':
            print('nova_lite all-in-one is up in %.1fs: %s/v2.1\n'
                  '  tokens are validated by Keystone at %s (with the '
                  'compute endpoint in its catalog: export OS_AUTH_URL '
                  'and a user\'s OS_USERNAME, OS_PASSWORD, '
                  'OS_PROJECT_NAME)\nStop with Ctrl-C.'
                  % (time.monotonic() - started, plane.endpoint,
                     CONF.keystone_authtoken.www_authenticate_uri),
                  flush=True)
            return
        print('nova_lite all-in-one is up in %.1fs: %s/v2.1\n'
              '  curl -H "X-Auth-Token: admin:admin" %s/v2.1/os-services\n'
              '  %s\n'
              '  openstack compute service list\n'
              '  %s --config-file %s cell_v2 list_cells\n'
              'Stop with Ctrl-C.'
              % (time.monotonic() - started, plane.endpoint, plane.endpoint,
                 utils.export_line(
                     utils.noauth_client_environment(plane.endpoint)),
                 manage, conf_file),
              flush=True)

    def on_started():
        # Everything made while starting lives as long as the process:
        # keep it out of the collector's scans (shorter GC pauses).
        gc.freeze()
        announce()
    plane.on_started = on_started
    launcher = service.serve([plane])
    launcher.wait()
    state_lock.close()
    return 0
