#!/usr/bin/env python3
"""A real multi-process nova_lite deployment on MariaDB + RabbitMQ.

    tools/deployment.py start --workdir DIR [--cells 2] [--computes-per-cell 2]
                              [--keystone]
    tools/deployment.py stop  --workdir DIR [--keep-data]

Layout: API, super conductor and scheduler share the API database, the
top-level cell database (cell1) and the API RabbitMQ vhost; each cell has
its own database, its own vhost and its own conductor, whose config has
no [api_database] at all; computes have no cell or API database, only
their cell's vhost and the local-services database (the embedded image
and network services, which stand in for Glance and Neutron; the API has
it too). Databases and vhosts get a unique prefix per deployment and are
dropped by `stop` (unless --keep-data). State (pids, URLs) is kept in
DIR/deployment.json so `stop` can undo exactly what `start` did.

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
                 prefix=None, keystone=False):
        self.workdir = os.path.abspath(workdir)
        self.cells = cells
        self.computes_per_cell = computes_per_cell
        self.prefix = prefix or 'nl_%s' % uuid.uuid4().hex[:10]
        self.port = port or _free_port()
        self.procs = {}
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
                'periodic_interval': 5, 'update_resources_interval': 5}

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
        for name in self.database_names():
            _mysql('CREATE DATABASE `%s` CHARACTER SET utf8mb4'
                   % self.db(name))
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

    def map_cells(self):
        self.manage('api_db', 'sync')
        self.manage('local_services', 'sync')
        self.manage('local_services', 'create_defaults')
        self.manage('cell_v2', 'map_cell0', '--database_connection',
                    self.db_url('cell0'))
        for cell in self.cell_names():
            self.manage('cell_v2', 'create_cell', '--name', cell,
                        '--transport-url', self.mq_url(cell),
                        '--database_connection', self.db_url(cell))
        self.manage('db', 'sync')

    def _spawn(self, name, binary, conf):
        log = open(os.path.join(self.workdir, '%s.out' % name), 'ab')
        # One log per process (API, super conductor and scheduler share
        # top.conf); .out catches what happens before logging is set up.
        proc = subprocess.Popen([_bin(binary), '--config-file', conf,
                                 '--log-file', os.path.join(
                                     self.workdir, '%s.log' % name)],
                                stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        self.procs[name] = proc.pid

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

    def wait_for_api(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.endpoint + '/', timeout=2)
                return
            except OSError:
                self._check_alive()
                time.sleep(0.2)
        raise RuntimeError('API did not answer within %ss' % timeout)

    def wait_for_computes(self, timeout=60):
        """Until every compute is mapped (discover_hosts) and the API lists
        its node: a compute records its service before its node."""
        want = self.cells * self.computes_per_cell
        deadline = time.monotonic() + timeout
        out = None
        while time.monotonic() < deadline:
            if out is None:
                found = self.manage('cell_v2', 'discover_hosts', '--verbose')
                hosts = self.manage('cell_v2', 'list_hosts').stdout
                if sum(1 for line in hosts.splitlines()
                       if '-compute' in line) >= want:
                    out = found
            if out is not None and self._hypervisor_count() >= want:
                return out
            self._check_alive()
            time.sleep(0.5)
        raise RuntimeError('computes did not register within %ss' % timeout)

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
                       'cells': self.cells,
                       'keystone': self.keystone is not None,
                       'computes_per_cell': self.computes_per_cell,
                       'procs': self.procs}, f)

    @classmethod
    def load(cls, workdir):
        with open(os.path.join(workdir, 'deployment.json')) as f:
            state = json.load(f)
        dep = cls(workdir, state['cells'], state['computes_per_cell'],
                  state['port'], state['prefix'])
        dep.procs = state['procs']
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
        self.create_backends()
        self.save()
        self.map_cells()
        if self.keystone:
            bootstrap.join()
            if failures:
                raise failures[0]
        self.start_services(confs)
        self.save()
        self.wait_for_api()
        self.wait_for_computes()
        return self

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
    parser.add_argument('--keep-data', action='store_true')
    parser.add_argument('--keystone', action='store_true',
                        help='run OpenStack Keystone beside the services '
                             'and authenticate through it')
    args = parser.parse_args(argv)
    if args.action == 'start':
        dep = Deployment(args.workdir, args.cells, args.computes_per_cell,
                         args.port, keystone=args.keystone)
        try:
            dep.start()
        except Exception:
            dep.stop()
            raise
        print('nova_lite deployment up: %s/v2.1 (configs in %s)'
              % (dep.endpoint, dep.workdir))
        print('\n'.join(dep.client_settings()))
    else:
        Deployment.load(args.workdir).stop(keep_data=args.keep_data)
        print('nova_lite deployment stopped')
    return 0


if __name__ == '__main__':
    _use_project_venv()
    sys.exit(main())
