#!/usr/bin/env python3
"""A real multi-process nova_lite deployment on MariaDB + RabbitMQ.

    tools/deployment.py start --workdir DIR [--cells 2] [--computes-per-cell 2]
                              [--apis 1] [--keystone]
    tools/deployment.py stop  --workdir DIR [--keep-data]

Layout: API, super conductor and scheduler share the API database, the
top-level cell database (cell1) and the API RabbitMQ vhost; each cell has
its own database, its own vhost and its own conductor, whose config has
no [api_database] at all; computes have no cell or API database, only
their cell's vhost and the local-services database (the embedded image
and network services, which stand in for Glance and Neutron; the API has
it too). Databases and vhosts get a unique prefix per deployment and are
dropped by `stop` (unless --keep-data). State (pids, URLs, each
process's command) is kept in DIR/deployment.json so `stop` can undo
exactly what `start` did.

With --apis N, N nova-lite-api processes serve the same cloud on N
consecutive ports (``endpoints``), as N API nodes behind a load balancer
would: one of them restarting leaves the others answering (see
tools/bench/rolling_restart.py). ``terminate(name)`` and ``respawn(name)``
stop one process gracefully (SIGTERM) and start it again with the same
command, for rolling restarts.

With --keystone, OpenStack Keystone itself (tools/keystone.py: its own
venv, SQLite in DIR/keystone, its own process) runs beside the others,
the API validates its tokens ([api] auth_strategy = keystone,
[keystone_authtoken] as the ``nova`` service user), its catalog points
at the API, and `start` prints the OS_* settings of the openstack client
(password auth). Without it the API runs noauth2.
"""
import argparse
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _use_project_venv():
    """Started by an interpreter without nova_lite (a bare
    ``tools/deployment.py``): run again under the quick start's .venv."""
    try:
        import nova_lite  # noqa: F401
        return
    except ImportError:
        pass
    venv_python = os.path.join(ROOT, '.venv', 'bin', 'python')
    if not os.path.exists(venv_python) or os.path.samefile(
            venv_python, sys.executable):
        sys.exit('tools/deployment.py needs nova_lite installed: run '
                 '`python3 -m venv .venv && .venv/bin/pip install -e .` in '
                 '%s first.' % ROOT)
    os.execv(venv_python, [venv_python] + sys.argv)


DB_ROOT = os.environ.get('NOVA_LITE_MYSQL', 'mysql+pymysql://root@127.0.0.1')
LOCAL_SERVICES = 'local_services'
RABBIT = os.environ.get('NOVA_LITE_RABBIT',
                        'rabbit://guest:guest@127.0.0.1:5672')


def _bin(name):
    here = os.path.dirname(sys.executable)
    path = os.path.join(here, name)
    return path if os.path.exists(path) else shutil.which(name)


def _run(*cmd, **kwargs):
    return subprocess.run(cmd, check=True, capture_output=True, text=True,
                          **kwargs)


def _mysql(sql):
    import sqlalchemy as sa
    engine = sa.create_engine(DB_ROOT + '/', poolclass=sa.pool.NullPool)
    with engine.begin() as conn:
        conn.execute(sa.text(sql))
    engine.dispose()


def _rabbitmqctl_all(calls):
    """Run several rabbitmqctl calls at once (each takes most of a second
    to start); raise if any failed."""
    procs = [subprocess.Popen(('rabbitmqctl', '-q') + tuple(args),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for args in calls]
    failed = []
    for args, proc in zip(calls, procs):
        out, err = proc.communicate()
        if proc.returncode:
            failed.append('rabbitmqctl %s: %s' % (' '.join(args),
                                                 err.strip()))
    if failed:
        raise RuntimeError('; '.join(failed))


def keystone_tool():
    """tools/keystone.py (not importable as ``keystone``: that name is
    Keystone's own package)."""
    spec = importlib.util.spec_from_file_location(
        'nova_lite_keystone_tool', os.path.join(ROOT, 'tools', 'keystone.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Deployment(object):
    def __init__(self, workdir, cells=2, computes_per_cell=2, port=None,
                 prefix=None, keystone=False, apis=1, api_ports=None):
        self.workdir = os.path.abspath(workdir)
        self.cells = cells
        self.computes_per_cell = computes_per_cell
        self.prefix = prefix or 'nl_%s' % uuid.uuid4().hex[:10]
        self.port = port or _free_port()
        # The first API listens on self.port (top.conf); each other one
        # on a port of its own (apiN.conf, read after top.conf).
        self.api_ports = list(api_ports or [self.port] + [
            _free_port() for _ in range(apis - 1)])
        self.procs = {}
        self._popens = {}
        # name -> [binary, config files]: how to start it again
        self.commands = {}
        self.state_file = os.path.join(self.workdir, 'deployment.json')
        self.keystone = None
        if keystone:
            self.keystone = keystone_tool().Keystone(
                os.path.join(self.workdir, 'keystone'),
                compute_url=self.endpoint)

    # --- names --------------------------------------------------------

    def db(self, name):
        return '%s_%s' % (self.prefix, name)

    def db_url(self, name):
        return '%s/%s?charset=utf8mb4' % (DB_ROOT, self.db(name))

    def vhost(self, name):
        return '%s_%s' % (self.prefix, name)

    def mq_url(self, name):
        return '%s/%s' % (RABBIT, self.vhost(name))

    def database_names(self):
        return ['api', 'cell0'] + self.cell_names() + [LOCAL_SERVICES]

    def cell_names(self):
        return ['cell%d' % i for i in range(1, self.cells + 1)]

    @property
    def endpoint(self):
        return 'http://127.0.0.1:%d' % self.port

    @property
    def endpoints(self):
        """Every API process's endpoint (the first is ``endpoint``)."""
        return ['http://127.0.0.1:%d' % port for port in self.api_ports]

    def api_names(self):
        return ['api'] + ['api%d' % i
                          for i in range(2, len(self.api_ports) + 1)]

    # --- config -------------------------------------------------------

    def _write_conf(self, name, sections):
        path = os.path.join(self.workdir, '%s.conf' % name)
        # Every service sends versioned notifications to its own vhost
        # (a cell's services: the cell's; the API and super conductor:
        # the API's).
        sections.setdefault('oslo_messaging_notifications',
                            {'driver': 'messaging'})
        with open(path, 'w') as f:
            for section, values in sections.items():
                f.write('[%s]\n' % section)
                for key, value in values.items():
                    f.write('%s = %s\n' % (key, value))
                f.write('\n')
        return path

    def _common(self, host, transport):
        return {'host': host, 'transport_url': transport,
                'state_path': os.path.join(self.workdir, 'state'),
                'report_interval': 2, 'service_down_time': 20,
                'periodic_interval': 5, 'update_resources_interval': 5,
                # SIGTERM: seconds to finish in-flight work before exiting
                'graceful_shutdown_timeout': 60}

    def write_configs(self):
        os.makedirs(self.workdir, exist_ok=True)
        confs = {}
        top = {
            'DEFAULT': self._common('top', self.mq_url('api')),
            'api': {'auth_strategy': 'noauth2', 'listen': '127.0.0.1',
                    'port': self.port},
            'api_database': {'connection': self.db_url('api')},
            'database': {'connection': self.db_url('cell1')},
            'local_services': {'connection': self.db_url(LOCAL_SERVICES)},
        }
        if self.keystone:
            top['api']['auth_strategy'] = 'keystone'
            top['keystone_authtoken'] = self.keystone.authtoken_options()
        confs['top'] = self._write_conf('top', top)
        for name, port in zip(self.api_names()[1:], self.api_ports[1:]):
            confs[name] = self._write_conf(name, {'api': {'port': port}})
        for cell in self.cell_names():
            confs['%s-conductor' % cell] = self._write_conf(
                '%s-conductor' % cell, {
                    'DEFAULT': self._common('%s-conductor' % cell,
                                            self.mq_url(cell)),
                    'database': {'connection': self.db_url(cell)},
                    # Ports of builds it fails (it stands in for Neutron).
                    'local_services': {
                        'connection': self.db_url(LOCAL_SERVICES)},
                })
            for i in range(1, self.computes_per_cell + 1):
                host = '%s-compute%d' % (cell, i)
                confs[host] = self._write_conf(host, {
                    'DEFAULT': self._common(host, self.mq_url(cell)),
                    'local_services': {
                        'connection': self.db_url(LOCAL_SERVICES)},
                })
        return confs

    # --- lifecycle ----------------------------------------------------

    def create_backends(self):
        self.create_databases()
        self.create_vhosts()

    def create_databases(self):
        for name in self.database_names():
            _mysql('CREATE DATABASE `%s` CHARACTER SET utf8mb4'
                   % self.db(name))

    def create_vhosts(self):
        vhosts = [self.vhost(name) for name in ['api'] + self.cell_names()]
        _rabbitmqctl_all([('add_vhost', v) for v in vhosts])
        _rabbitmqctl_all([('set_permissions', '-p', v, 'guest', '.*', '.*',
                           '.*') for v in vhosts])

    def drop_backends(self):
        for name in self.database_names():
            try:
                _mysql('DROP DATABASE IF EXISTS `%s`' % self.db(name))
            except Exception as exc:
                print('drop %s: %s' % (name, exc), file=sys.stderr)
        try:
            _rabbitmqctl_all([('delete_vhost', self.vhost(name))
                              for name in ['api'] + self.cell_names()])
        except RuntimeError as exc:
            print('drop vhosts: %s' % exc, file=sys.stderr)

    def manage(self, *args):
        return _run(_bin('nova-lite-manage'), '--config-file',
                    os.path.join(self.workdir, 'top.conf'), *args)

    def manage_all(self, *calls):
        """Run several nova-lite-manage commands at once (each spends
        seconds importing); raise if any failed."""
        conf = os.path.join(self.workdir, 'top.conf')
        procs = [subprocess.Popen(
            (_bin('nova-lite-manage'), '--config-file', conf) + args,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for args in calls]
        failed = []
        for args, proc in zip(calls, procs):
            out, err = proc.communicate()
            if proc.returncode:
                failed.append('nova-lite-manage %s: %s' % (
                    ' '.join(args[:2]), (err or out).strip()[-2000:]))
        if failed:
            raise RuntimeError('; '.join(failed))

    def map_cells(self, before_cells=None):
        """Three rounds, each waiting for the one before: the schemas of
        the API and local-services databases; what goes in them (cell
        mappings: their vhosts must exist by then, ``before_cells()``
        waits for them); the cells' schemas."""
        self.manage_all(('api_db', 'sync'), ('local_services', 'sync'))
        if before_cells is not None:
            before_cells()
        self.manage_all(
            ('local_services', 'create_defaults'),
            ('cell_v2', 'map_cell0', '--database_connection',
             self.db_url('cell0')),
            *[('cell_v2', 'create_cell', '--name', cell,
               '--transport-url', self.mq_url(cell),
               '--database_connection', self.db_url(cell))
              for cell in self.cell_names()])
        self.manage('db', 'sync')

    def _spawn(self, name, binary, conf, *more_confs, env=None):
        """Start process ``name``; ``env``: variables set for it on top of
        ours (test hooks), not remembered for a respawn."""
        log = open(os.path.join(self.workdir, '%s.out' % name), 'ab')
        # One log per process (API, super conductor and scheduler share
        # top.conf); .out catches what happens before logging is set up.
        argv = [_bin(binary)]
        for path in (conf,) + more_confs:
            argv += ['--config-file', path]
        proc = subprocess.Popen(argv + ['--log-file', os.path.join(
                                    self.workdir, '%s.log' % name)],
                                stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True,
                                env=dict(os.environ, **env) if env else None)
        log.close()
        # Held so that subprocess never reaps it behind our back (a
        # dropped Popen is waited for by the next Popen made): its exit
        # status stays ours to read (terminate, _reap).
        self._popens[name] = proc
        self.procs[name] = proc.pid
        self.commands[name] = [binary, [conf] + list(more_confs)]

    def start_services(self, confs):
        top = confs['top']
        self._spawn('conductor', 'nova-lite-conductor', top)
        self._spawn('scheduler', 'nova-lite-scheduler', top)
        for cell in self.cell_names():
            self._spawn('%s-conductor' % cell, 'nova-lite-conductor',
                        confs['%s-conductor' % cell])
            for i in range(1, self.computes_per_cell + 1):
                host = '%s-compute%d' % (cell, i)
                self._spawn(host, 'nova-lite-compute', confs[host])
        self._spawn('api', 'nova-lite-api', top)
        for name in self.api_names()[1:]:
            self._spawn(name, 'nova-lite-api', top, confs[name])

    def wait_for_api(self, timeout=60, endpoints=None):
        """Until every API (or those of ``endpoints``) answers."""
        deadline = time.monotonic() + timeout
        for endpoint in endpoints or self.endpoints:
            while True:
                try:
                    urllib.request.urlopen(endpoint + '/', timeout=2)
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise RuntimeError('API %s did not answer within '
                                           '%ss' % (endpoint, timeout))
                    self._check_alive()
                    time.sleep(0.2)

    def wait_for_computes(self, timeout=60):
        """Until the API lists every compute's node, then map them all
        (one discover_hosts: a compute records its service before its
        node, so every one is there to be found)."""
        want = self.cells * self.computes_per_cell
        deadline = time.monotonic() + timeout
        while self._hypervisor_count() < want:
            if time.monotonic() > deadline:
                raise RuntimeError('computes did not register within %ss'
                                   % timeout)
            self._check_alive()
            time.sleep(0.5)
        return self.manage('cell_v2', 'discover_hosts', '--verbose')

    def admin_token(self):
        """A token the API takes as an administrator's."""
        return self.keystone.token() if self.keystone else 'admin:admin'

    def _hypervisor_count(self):
        req = urllib.request.Request(
            self.endpoint + '/v2.1/os-hypervisors',
            headers={'X-Auth-Token': self.admin_token()})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return len(json.loads(resp.read())['hypervisors'])
        except (OSError, ValueError, KeyError):
            return 0

    def _check_alive(self):
        for name, pid in self.procs.items():
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                raise RuntimeError('%s (pid %d) died; see %s/%s.out'
                                   % (name, pid, self.workdir, name))

    def save(self):
        with open(self.state_file, 'w') as f:
            json.dump({'prefix': self.prefix, 'port': self.port,
                       'api_ports': self.api_ports,
                       'cells': self.cells,
                       'keystone': self.keystone is not None,
                       'computes_per_cell': self.computes_per_cell,
                       'procs': self.procs, 'commands': self.commands}, f)

    @classmethod
    def load(cls, workdir):
        with open(os.path.join(workdir, 'deployment.json')) as f:
            state = json.load(f)
        dep = cls(workdir, state['cells'], state['computes_per_cell'],
                  state['port'], state['prefix'],
                  api_ports=state.get('api_ports'))
        dep.procs = state['procs']
        dep.commands = state.get('commands', {})
        if state.get('keystone'):
            dep.keystone = keystone_tool().Keystone.load(
                os.path.join(dep.workdir, 'keystone'))
        return dep

    def _start_keystone(self, failures):
        try:
            os.makedirs(self.keystone.workdir, exist_ok=True)
            self.keystone.setup()
            self.keystone.serve()
            self.keystone.populate()
        except Exception as exc:
            failures.append(exc)

    def start(self):
        confs = self.write_configs()
        # Keystone bootstraps (tens of seconds) while the databases are
        # made; the API starts once it answers.
        failures = []
        if self.keystone:
            os.makedirs(self.keystone.workdir, exist_ok=True)
            self.keystone.save()
            bootstrap = threading.Thread(target=self._start_keystone,
                                         args=(failures,))
            bootstrap.start()
        # rabbitmqctl takes seconds per call: the vhosts are made while
        # the databases are made and their schemas synced.
        vhost_failures = []
        vhosts = threading.Thread(target=_collect_failure, args=(
            self.create_vhosts, vhost_failures))

        def vhosts_made():
            vhosts.join()
            if vhost_failures:
                raise vhost_failures[0]

        vhosts.start()
        try:
            self.create_databases()
            self.save()
            self.map_cells(before_cells=vhosts_made)
        finally:
            vhosts.join()   # before a failure can drop them
        if self.keystone:
            bootstrap.join()
            if failures:
                raise failures[0]
        self.start_services(confs)
        self.save()
        self.wait_for_api()
        self.wait_for_computes()
        return self

    def terminate(self, name, timeout=90):
        """SIGTERM process ``name`` and wait until it has exited: its exit
        status (0 after a graceful stop; negative: killed by a signal).
        After ``timeout`` seconds it is killed (SIGKILL) and
        RuntimeError raised."""
        pid = self.procs[name]
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status = _reap(pid)
            if status is not None:
                return status
            time.sleep(0.05)
        os.killpg(pid, signal.SIGKILL)
        _reap(pid)
        raise RuntimeError('%s (pid %d) did not stop within %ss; killed'
                           % (name, pid, timeout))

    def exit_status(self, name):
        """Process ``name``'s exit status once it has exited (negative:
        killed by that signal), None while it runs."""
        return _reap(self.procs[name])

    def respawn(self, name, env=None):
        """Start process ``name`` again with the command it had (and the
        variables of ``env`` set, see _spawn)."""
        binary, confs = self.commands[name]
        self._spawn(name, binary, *confs, env=env)
        self.save()
        return self.procs[name]

    def stop(self, keep_data=False, timeout=30):
        for pid in self.procs.values():
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + timeout
        for name, pid in self.procs.items():
            while time.monotonic() < deadline:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                try:
                    if os.waitpid(pid, os.WNOHANG)[0] == pid:
                        break
                except ChildProcessError:
                    pass
                time.sleep(0.1)
            else:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if self.keystone:
            self.keystone.stop()
        if not keep_data:
            self.drop_backends()
            if self.keystone:
                shutil.rmtree(self.keystone.workdir, ignore_errors=True)

    def client_settings(self):
        """What to export for the openstack client against this
        deployment (shell lines)."""
        if not self.keystone:
            return ['export OS_AUTH_TYPE=admin_token OS_TOKEN=admin:admin '
                    'OS_ENDPOINT=%s/v2.1 OS_IDENTITY_API_VERSION=3 '
                    'OS_IDENTITY_ENDPOINT_OVERRIDE=%s/identity '
                    'OS_IMAGE_ENDPOINT_OVERRIDE=%s/image '
                    'OS_NETWORK_ENDPOINT_OVERRIDE=%s/networking'
                    % ((self.endpoint,) * 4)]
        env = self.keystone.client_env('admin', base={})
        lines = ['export ' + ' '.join('%s=%s' % item
                                      for item in sorted(env.items()))]
        tool = keystone_tool()
        lines.append('# other users (password %s): %s' % (
            tool.PASSWORD, ', '.join('%s (%s in %s)' % (user, role, project)
                                     for user, project, role
                                     in tool.USERS[1:])))
        return lines


def _collect_failure(fn, failures):
    try:
        fn()
    except Exception as exc:
        failures.append(exc)


def _reap(pid):
    """Exit status of child ``pid`` if it has exited (None if it runs;
    0 if it is not our child and gone)."""
    try:
        done, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return 0
        return None
    if done != pid:
        return None
    return os.waitstatus_to_exitcode(status)


def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('action', choices=['start', 'stop'])
    parser.add_argument('--workdir', required=True)
    parser.add_argument('--cells', type=int, default=2)
    parser.add_argument('--computes-per-cell', type=int, default=2)
    parser.add_argument('--port', type=int, default=None)
    parser.add_argument('--apis', type=int, default=1,
                        help='API processes, each on a port of its own')
    parser.add_argument('--keep-data', action='store_true')
    parser.add_argument('--keystone', action='store_true',
                        help='run OpenStack Keystone beside the services '
                             'and authenticate through it')
    args = parser.parse_args(argv)
    if args.action == 'start':
        dep = Deployment(args.workdir, args.cells, args.computes_per_cell,
                         args.port, keystone=args.keystone, apis=args.apis)
        try:
            dep.start()
        except Exception:
            dep.stop()
            raise
        print('nova_lite deployment up: %s (configs in %s)'
              % (', '.join(e + '/v2.1' for e in dep.endpoints),
                 dep.workdir))
        print('\n'.join(dep.client_settings()))
    else:
        Deployment.load(args.workdir).stop(keep_data=args.keep_data)
        print('nova_lite deployment stopped')
    return 0


if __name__ == '__main__':
    _use_project_venv()
    sys.exit(main())
