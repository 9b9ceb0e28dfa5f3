#!/usr/bin/env python3
"""A real multi-process nova_lite deployment on MariaDB + RabbitMQ.

    tools/deployment.py start --workdir DIR [--cells 2] [--computes-per-cell 2]
                              [--apis 1] [--keystone]
                              [--allow-cross-cell-resize]
    tools/deployment.py stop  --workdir DIR [--keep-data]

    [--database-url URL] [--transport-url URL] [--rabbit-node NODE]
    [--rabbit-management-url URL]: see --help.

Layout: API, super conductor and scheduler share the API database, the
top-level cell database (cell1) and the API RabbitMQ vhost; each cell has
its own database, its own vhost and its own conductor, whose config has
no [api_database] at all; computes have no cell or API database, only
their cell's vhost and the local-services database (the embedded image
and network services, which stand in for Glance and Neutron; the API has
it too). Databases and vhosts get a unique prefix per deployment and are
dropped by `stop` (unless --keep-data). The scheduler runs nova_lite's
default host filters and, as devstack configures Nova, SameHostFilter
and DifferentHostFilter (``--set filter_scheduler.enabled_filters=...``
changes them). Every service's [external_events]
names the API (as an administrator: noauth2's admin token, or
Keystone's admin user), so the network service of the computes sends
network-vif-plugged there over HTTP, as Neutron does, and their builds
wait for it. State (pids, URLs, each
process's command) is kept in DIR/deployment.json so `stop` can undo
exactly what `start` did.

With --apis N, N nova-lite-api processes serve the same cloud on N
consecutive ports (``endpoints``), as N API nodes behind a load balancer
would: one of them restarting leaves the others answering (see
tools/bench/rolling_restart.py). ``terminate(name)`` and ``respawn(name)``
stop one process gracefully (SIGTERM) and start it again with the same
command, for rolling restarts.

With --keystone, OpenStack Keystone itself (tools/keystone.py: its own
venv, a database of its own on the deployment's MariaDB, its own
process) runs beside the others,
the API validates its tokens ([api] auth_strategy = keystone,
[keystone_authtoken] as the ``nova`` service user), its catalog points
at the API, and `start` prints the OS_* settings of the openstack client
(password auth). Without it the API runs noauth2.

Guests answer SSH (as Tempest's validation needs them to): the shared
"private" network of the embedded network service is a /16 of
127.0.0.0/8 picked per deployment (``private_network_cidr`` in
deployment.json: two deployments on one machine never share one), so
every fixed IP is an address of this machine, and the computes run
with [fake_driver] guest_ssh = true (each running guest listens on
port 22 of its addresses: root is needed for that port).
``--no-guest-ssh`` leaves both at nova_lite's defaults.
"""
import argparse
import importlib.util
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _use_project_venv():
    """Started by an interpreter without nova_lite (a bare
    ``tools/deployment.py``): run again under the quick start's .venv.

    Whether this process already is that venv is decided by sys.prefix:
    a venv's bin/python is usually a symlink to the interpreter that made
    it (the user's python3), so comparing the two files says "same" when
    the venv is not in use at all.
    """
    try:
        import nova_lite  # noqa: F401
        return
    except ImportError:
        pass
    venv = os.path.join(ROOT, '.venv')
    venv_python = os.path.join(venv, 'bin', 'python')
    if not os.path.exists(venv_python) or _in_venv(venv):
        sys.exit('tools/deployment.py needs nova_lite installed: run '
                 '`python3 -m venv .venv && .venv/bin/pip install -e .` in '
                 '%s first.' % ROOT)
    os.execv(venv_python, [venv_python] + sys.argv)


def _in_venv(venv):
    """Is this interpreter the one of the venv at ``venv``?"""
    try:
        return os.path.samefile(sys.prefix, venv)
    except OSError:
        return False


# The database server and the broker: --database-url / --transport-url,
# else these variables, else the local defaults.
DB_ROOT = os.environ.get('NOVA_LITE_MYSQL', 'mysql+pymysql://root@127.0.0.1')
LOCAL_SERVICES = 'local_services'
KEYSTONE_DB = 'keystone'
RABBIT = os.environ.get('NOVA_LITE_RABBIT',
                        'rabbit://guest:guest@127.0.0.1:5672')
# How vhosts are made on that broker: its management HTTP API
# (--rabbit-management-url), or rabbitmqctl against its node
# (--rabbit-node, else the local node that listens on its port).
RABBIT_MGMT = os.environ.get('NOVA_LITE_RABBIT_MGMT_URL')
RABBIT_NODE = os.environ.get('NOVA_LITE_RABBIT_NODE')
# --allow-cross-cell-resize (the same as the all-in-one's flag).
CROSS_CELL_RULE = ('"compute:servers:resize:cross_cell": '
                   '"rule:project_member_or_admin"\n')
PREFER_OTHER_CELLS = -1000000.0
# The scheduler's host filters: nova_lite's defaults and, as devstack
# configures Nova, the same_host/different_host hints' filters.
ENABLED_FILTERS = ('ComputeFilter,AvailabilityZoneFilter,'
                   'ServerGroupAntiAffinityFilter,ServerGroupAffinityFilter,'
                   'SameHostFilter,DifferentHostFilter')


def _bin(name, bindir=None):
    """The command ``name`` of ``bindir`` (default: this interpreter's
    venv), else from PATH."""
    path = os.path.join(bindir or os.path.dirname(sys.executable), name)
    return path if os.path.exists(path) else shutil.which(name)


def _run(*cmd, **kwargs):
    return subprocess.run(cmd, check=True, capture_output=True, text=True,
                          **kwargs)


def _mysql(server_url, sql):
    import sqlalchemy as sa
    engine = sa.create_engine(server_url.rstrip('/') + '/',
                              poolclass=sa.pool.NullPool)
    with engine.begin() as conn:
        conn.execute(sa.text(sql))
    engine.dispose()


class BrokerAdmin(object):
    """Makes and deletes vhosts on the broker of one transport URL, never
    on another: through its management HTTP API when given one, else
    with ``rabbitmqctl -n NODE`` for its node.

    The node, unless given: the node registered with this machine's epmd
    whose distribution port is the URL's AMQP port + 20000 (RabbitMQ's
    default), named with the host part of the local default node name
    (RABBITMQ_NODENAME, rabbitmq-env.conf's NODENAME, else
    rabbit@<short hostname>). A broker on another machine needs
    --rabbit-management-url or --rabbit-node.
    """

    LOCAL_HOSTS = ('127.0.0.1', 'localhost', '::1')

    def __init__(self, transport_url, node=None, management_url=None):
        parsed = urllib.parse.urlsplit(transport_url)
        self.host = parsed.hostname or '127.0.0.1'
        self.port = parsed.port or 5672
        self.user = urllib.parse.unquote(parsed.username or 'guest')
        self.password = urllib.parse.unquote(parsed.password or 'guest')
        self.management_url = management_url
        self.node = node
        if not management_url and not node:
            self.node = self.local_node()

    def describe(self):
        if self.management_url:
            return 'management API %s' % self.management_url
        return 'rabbitmqctl -n %s' % self.node

    def local_node(self):
        import socket
        if self.host not in self.LOCAL_HOSTS and self.host not in (
                socket.gethostname(), socket.getfqdn()):
            raise RuntimeError(
                'the broker %s:%d is not on this machine: pass '
                '--rabbit-management-url or --rabbit-node so that its '
                'vhosts are made there' % (self.host, self.port))
        default = _default_rabbit_node()
        name, _, host = default.partition('@')
        dist_port = self.port + 20000
        for registered, port in _epmd_names():
            if port == dist_port:
                return '%s@%s' % (registered, host)
        if self.port == 5672:
            return default
        raise RuntimeError(
            'no RabbitMQ node of this machine listens on port %d (epmd '
            'lists none with distribution port %d): pass --rabbit-node'
            % (self.port, dist_port))

    def _ctl_all(self, calls):
        """Run several rabbitmqctl calls at once (each takes most of a
        second to start); raise if any failed."""
        _run_all([('rabbitmqctl', '-q', '-n', self.node) + tuple(args)
                  for args in calls],
                 lambda argv, output: '%s: %s' % (' '.join(argv[1:]),
                                                  output))

    def _http(self, method, path, body=None):
        base = self.management_url.rstrip('/')
        request = urllib.request.Request(
            base + path, method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={'content-type': 'application/json'})
        passwords = urllib.request.HTTPPasswordMgrWithDefaultRealm()
        passwords.add_password(None, base, self.user, self.password)
        opener = urllib.request.build_opener(
            urllib.request.HTTPBasicAuthHandler(passwords))
        try:
            opener.open(request, timeout=30).close()
        except urllib.error.HTTPError as exc:
            if not (method == 'DELETE' and exc.code == 404):
                raise RuntimeError('%s %s%s: %s' % (method, base, path, exc))

    def add_vhosts(self, vhosts):
        if not self.management_url:
            self._ctl_all([('add_vhost', v) for v in vhosts])
            self._ctl_all([('set_permissions', '-p', v, self.user, '.*',
                            '.*', '.*') for v in vhosts])
            return
        user = urllib.parse.quote(self.user, safe='')
        for vhost in vhosts:
            quoted = urllib.parse.quote(vhost, safe='')
            self._http('PUT', '/api/vhosts/%s' % quoted)
            self._http('PUT', '/api/permissions/%s/%s' % (quoted, user),
                       {'configure': '.*', 'write': '.*', 'read': '.*'})

    def delete_vhosts(self, vhosts):
        if not self.management_url:
            self._ctl_all([('delete_vhost', v) for v in vhosts])
            return
        for vhost in vhosts:
            self._http('DELETE', '/api/vhosts/%s'
                       % urllib.parse.quote(vhost, safe=''))


def _run_all(commands, describe_failure, env=None):
    """Run the commands (argv tuples) at once; raise RuntimeError with
    describe_failure(argv, output) of each that failed."""
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env)
             for argv in commands]
    failed = []
    for argv, proc in zip(commands, procs):
        out, err = proc.communicate()
        if proc.returncode:
            failed.append(describe_failure(argv, (err or out).strip()))
    if failed:
        raise RuntimeError('; '.join(failed))


def _default_rabbit_node():
    """The node name a bare rabbitmqctl on this machine would use."""
    import socket
    name = os.environ.get('RABBITMQ_NODENAME')
    if not name:
        try:
            with open('/etc/rabbitmq/rabbitmq-env.conf') as f:
                for line in f:
                    key, _, value = line.strip().partition('=')
                    if key in ('NODENAME', 'RABBITMQ_NODENAME'):
                        name = value.strip().strip('"\'')
        except OSError:
            pass
    name = name or 'rabbit'
    if '@' not in name:
        name = '%s@%s' % (name, socket.gethostname().split('.')[0])
    return name


def _epmd_names():
    """[(node name, distribution port)] registered with the local epmd."""
    try:
        out = subprocess.run(['epmd', '-names'], capture_output=True,
                             text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    names = []
    for line in out.splitlines():
        # "name rabbit at port 25672"
        words = line.split()
        if len(words) == 5 and words[0] == 'name' and words[4].isdigit():
            names.append((words[1], int(words[4])))
    return names


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
                 prefix=None, keystone=False, apis=1, api_ports=None,
                 database_url=None, transport_url=None, rabbit_node=None,
                 rabbit_management_url=None, allow_cross_cell_resize=False,
                 extra_config=None, bindir=None, novncproxy_port=None,
                 guest_ssh=False, private_network_cidr=None):
        self.workdir = os.path.abspath(workdir)
        # Guests answer SSH on their fixed IPs, which the private
        # network takes from 127.0.0.0/8 (None: nova_lite's defaults).
        self.guest_ssh = guest_ssh
        self.private_network_cidr = private_network_cidr or (
            guest_network() if guest_ssh else None)
        # nova-lite-novncproxy's port (None: no console proxy runs, and
        # console URLs name [vnc] novncproxy_base_url's default).
        self.novncproxy_port = novncproxy_port
        # Where the nova-lite-* commands it starts come from (default:
        # this interpreter's venv); a rolling upgrade changes it between
        # two respawns (tools/bench/upgrade.py).
        self.bindir = bindir
        # {section: {option: value}} written into every service's config
        # (--set SECTION.OPTION=VALUE), over what the layout sets.
        self.extra_config = extra_config or {}
        self.allow_cross_cell_resize = allow_cross_cell_resize
        # The servers (URLs without a database or vhost) this deployment
        # makes its databases and vhosts on.
        self.database_url = (database_url or DB_ROOT).rstrip('/')
        self.transport_url = (transport_url or RABBIT).rstrip('/')
        self.rabbit_node = rabbit_node or RABBIT_NODE
        self.rabbit_management_url = rabbit_management_url or RABBIT_MGMT
        self._broker = None
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
            # Keystone on the deployment's MariaDB (a database of its
            # own, made by _start_keystone and dropped with the others).
            self.keystone = keystone_tool().Keystone(
                os.path.join(self.workdir, 'keystone'),
                compute_url=self.endpoint,
                database_url=self.db_url(KEYSTONE_DB))

    # --- names --------------------------------------------------------

    def db(self, name):
        return '%s_%s' % (self.prefix, name)

    def db_url(self, name):
        return '%s/%s?charset=utf8mb4' % (self.database_url, self.db(name))

    def vhost(self, name):
        return '%s_%s' % (self.prefix, name)

    def mq_url(self, name):
        return '%s/%s' % (self.transport_url, self.vhost(name))

    @property
    def broker(self):
        """The BrokerAdmin of transport_url (found once, kept in
        deployment.json so that `stop` deletes on the same node)."""
        if self._broker is None:
            self._broker = BrokerAdmin(
                self.transport_url, node=self.rabbit_node,
                management_url=self.rabbit_management_url)
            self.rabbit_node = self._broker.node
        return self._broker

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
        if not name.startswith('api'):   # apiN.conf is read after top.conf
            for section, values in self.extra_config.items():
                sections.setdefault(section, {}).update(values)
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

    def _external_events(self):
        """[external_events] of every service: the embedded network and
        volume services of computes (and conductors) send their
        network-vif-plugged and volume-reimaged to the API over HTTP,
        as Neutron and Cinder do, as an administrator (noauth2's
        ``admin`` token, else Keystone's admin user)."""
        section = {'endpoint': self.endpoint}
        if self.keystone:
            tool = keystone_tool()
            section.update({
                'auth_type': 'password', 'auth_url': self.keystone.auth_url,
                'username': 'admin', 'password': tool.PASSWORD,
                'project_name': 'admin', 'user_domain_name': 'Default',
                'project_domain_name': 'Default'})
        return section

    def write_configs(self):
        os.makedirs(self.workdir, exist_ok=True)
        confs = {}
        top = {
            'DEFAULT': self._common('top', self.mq_url('api')),
            'api': {'auth_strategy': 'noauth2', 'listen': '127.0.0.1',
                    'port': self.port},
            'api_database': {'connection': self.db_url('api')},
            'database': {'connection': self.db_url('cell1')},
            'local_services': self._local_services(),
            'external_events': self._external_events(),
            'filter_scheduler': {'enabled_filters': ENABLED_FILTERS},
        }
        if self.keystone:
            top['api']['auth_strategy'] = 'keystone'
            top['keystone_authtoken'] = self.keystone.authtoken_options()
        if self.novncproxy_port:
            top['vnc'] = {
                'novncproxy_host': '127.0.0.1',
                'novncproxy_port': self.novncproxy_port,
                'novncproxy_base_url': 'http://127.0.0.1:%d/vnc_auto.html'
                                       % self.novncproxy_port}
        if self.allow_cross_cell_resize:
            for section, values in self._cross_cell_resize().items():
                top.setdefault(section, {}).update(values)
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
                    'local_services': self._local_services(),
                    'external_events': self._external_events(),
                })
            for i in range(1, self.computes_per_cell + 1):
                host = '%s-compute%d' % (cell, i)
                compute = {
                    'DEFAULT': self._common(host, self.mq_url(cell)),
                    'local_services': self._local_services(),
                    'external_events': self._external_events(),
                }
                if self.guest_ssh:
                    compute['fake_driver'] = {'guest_ssh': 'true'}
                confs[host] = self._write_conf(host, compute)
        return confs

    def _local_services(self):
        """[local_services] of every service: the embedded services'
        database and the private network's range."""
        section = {'connection': self.db_url(LOCAL_SERVICES)}
        if self.private_network_cidr:
            section['private_network_cidr'] = self.private_network_cidr
        return section

    def _cross_cell_resize(self):
        """top.conf's sections that let resizes and cold migrations move
        a server to another cell (the API's policy, the scheduler's
        weigher), as nova-lite-all-in-one --allow-cross-cell-resize."""
        policy_dir = os.path.join(self.workdir, 'cross-cell-policy.d')
        os.makedirs(policy_dir, exist_ok=True)
        with open(os.path.join(policy_dir, 'cross-cell-resize.yaml'),
                  'w') as f:
            f.write(CROSS_CELL_RULE)
        return {'oslo_policy': {'policy_dirs': policy_dir},
                'filter_scheduler': {
                    'cross_cell_move_weight_multiplier': PREFER_OTHER_CELLS}}

    # --- lifecycle ----------------------------------------------------

    def create_backends(self):
        self.create_databases()
        self.create_vhosts()

    def create_databases(self):
        for name in self.database_names():
            _mysql(self.database_url,
                   'CREATE DATABASE `%s` CHARACTER SET utf8mb4'
                   % self.db(name))

    def create_vhosts(self):
        vhosts = [self.vhost(name) for name in ['api'] + self.cell_names()]
        self.broker.add_vhosts(vhosts)

    def drop_backends(self):
        for name in self.database_names() + (
                [KEYSTONE_DB] if self.keystone else []):
            try:
                _mysql(self.database_url,
                       'DROP DATABASE IF EXISTS `%s`' % self.db(name))
            except Exception as exc:
                print('drop %s: %s' % (name, exc), file=sys.stderr)
        try:
            self.broker.delete_vhosts([self.vhost(name) for name
                                       in ['api'] + self.cell_names()])
        except RuntimeError as exc:
            print('drop vhosts: %s' % exc, file=sys.stderr)

    def environ(self, env=None, bindir=None):
        """The environment of a command of ``bindir`` (default: this
        deployment's): ours and ``env``, without PYTHONPATH when the
        command is another release's (its own code, not a tree
        PYTHONPATH puts first)."""
        environ = dict(os.environ, **(env or {}))
        bindir = bindir or self.bindir
        if bindir and not os.path.samefile(
                bindir, os.path.dirname(sys.executable)):
            environ.pop('PYTHONPATH', None)
        return environ

    def manage(self, *args):
        return _run(_bin('nova-lite-manage', self.bindir), '--config-file',
                    os.path.join(self.workdir, 'top.conf'), *args,
                    env=self.environ())

    def manage_all(self, *calls):
        """Run several nova-lite-manage commands at once (each spends
        seconds importing); raise if any failed."""
        conf = os.path.join(self.workdir, 'top.conf')
        _run_all([(_bin('nova-lite-manage', self.bindir), '--config-file',
                   conf) + args
                  for args in calls],
                 lambda argv, output: 'nova-lite-manage %s: %s' % (
                     ' '.join(argv[3:5]), output[-2000:]),
                 env=self.environ())

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
        argv = [_bin(binary, self.bindir)]
        for path in (conf,) + more_confs:
            argv += ['--config-file', path]
        environ = self.environ(env)
        proc = subprocess.Popen(argv + ['--log-file', os.path.join(
                                    self.workdir, '%s.log' % name)],
                                stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True, env=environ)
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
        if self.novncproxy_port:
            self._spawn('novncproxy', 'nova-lite-novncproxy', top)
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
                       'database_url': self.database_url,
                       'transport_url': self.transport_url,
                       'rabbit_node': self.rabbit_node,
                       'rabbit_management_url': self.rabbit_management_url,
                       'procs': self.procs, 'commands': self.commands,
                       'bindir': self.bindir,
                       'novncproxy_port': self.novncproxy_port,
                       'guest_ssh': self.guest_ssh,
                       'private_network_cidr': self.private_network_cidr},
                      f)

    @classmethod
    def load(cls, workdir):
        with open(os.path.join(workdir, 'deployment.json')) as f:
            state = json.load(f)
        dep = cls(workdir, state['cells'], state['computes_per_cell'],
                  state['port'], state['prefix'],
                  api_ports=state.get('api_ports'),
                  database_url=state.get('database_url'),
                  transport_url=state.get('transport_url'),
                  rabbit_node=state.get('rabbit_node'),
                  rabbit_management_url=state.get('rabbit_management_url'),
                  novncproxy_port=state.get('novncproxy_port'),
                  guest_ssh=state.get('guest_ssh', False),
                  private_network_cidr=state.get('private_network_cidr'))
        dep.procs = state['procs']
        dep.bindir = state.get('bindir')
        dep.commands = state.get('commands', {})
        if state.get('keystone'):
            dep.keystone = keystone_tool().Keystone.load(
                os.path.join(dep.workdir, 'keystone'))
        return dep

    def _start_keystone(self, failures):
        try:
            _mysql(self.database_url,
                   'CREATE DATABASE `%s` CHARACTER SET utf8mb4'
                   % self.db(KEYSTONE_DB))
            os.makedirs(self.keystone.workdir, exist_ok=True)
            self.keystone.setup()
            self.keystone.serve()
            self.keystone.populate()
        except Exception as exc:
            failures.append(exc)

    def start(self):
        # Which broker node gets the vhosts, settled before any is made
        # and saved with the rest, so that `stop` deletes them there.
        self.broker.describe()
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
            from nova_lite import utils
            return [utils.export_line(
                utils.noauth_client_environment(self.endpoint))]
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


def can_serve_ssh():
    """Whether guests could listen on port 22 of a loopback address
    here (root, and no server holding port 22 of every address);
    start leaves guest SSH off, saying why, when they could not."""
    import socket
    with socket.socket() as s:
        try:
            s.bind(('127.63.255.254', 22))
        except OSError as exc:
            print('deployment: guests will not answer SSH (port 22 of a '
                  'loopback address: %s); Tempest runs without '
                  'validation' % exc, file=sys.stderr)
            return False
    return True


def guest_network():
    """A /16 of 127.0.0.0/8 for a deployment's private network, picked
    at random (127.64.0.0 to 127.254.0.0: clear of 127.0.0.1 and of the
    low addresses other tools use)."""
    return '127.%d.0.0/16' % random.randint(64, 254)


def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


EPILOG = '''\
The database server and the broker (URLs without a database or vhost):
--database-url, else $NOVA_LITE_MYSQL, else %(db)s;
--transport-url, else $NOVA_LITE_RABBIT, else %(mq)s.
Each deployment makes its databases and one vhost per cell (plus the
API's) there, with a unique prefix, and `stop` drops them. Vhosts are
made on the broker of --transport-url: through its management HTTP API
with --rabbit-management-url ($NOVA_LITE_RABBIT_MGMT_URL), else with
`rabbitmqctl -n NODE`: --rabbit-node ($NOVA_LITE_RABBIT_NODE), else the
local node whose distribution port is the AMQP port + 20000 (a broker on
another machine needs one of the two options). The user of the URL gets
every permission on each vhost. `stop` reads all of this back from
WORKDIR/deployment.json.''' % {'db': DB_ROOT, 'mq': RABBIT}


def parse_settings(settings, parser=None):
    """['SECTION.OPTION=VALUE', ...] -> {section: {option: value}}."""
    config = {}
    for setting in settings:
        key, sep, value = setting.partition('=')
        section, dot, option = key.strip().rpartition('.')
        if not sep or not dot or not section or not option:
            message = ('--set %r: expected SECTION.OPTION=VALUE' % setting)
            if parser is None:
                raise ValueError(message)
            parser.error(message)
        config.setdefault(section, {})[option] = value.strip()
    return config


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n')[0], epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('action', choices=['start', 'stop'])
    parser.add_argument('--workdir', required=True)
    parser.add_argument('--cells', type=int, default=2)
    parser.add_argument('--computes-per-cell', type=int, default=2)
    parser.add_argument('--port', type=int, default=None)
    parser.add_argument('--apis', type=int, default=1,
                        help='API processes, each on a port of its own')
    parser.add_argument('--keep-data', action='store_true')
    parser.add_argument('--allow-cross-cell-resize', action='store_true',
                        help='let resize and cold migration move servers '
                             'to another cell: top.conf reads the policy '
                             'directory DIR/cross-cell-policy.d (the rule '
                             'compute:servers:resize:cross_cell for '
                             'project members and administrators) and '
                             'sets [filter_scheduler] '
                             'cross_cell_move_weight_multiplier = %s'
                             % PREFER_OTHER_CELLS)
    parser.add_argument('--database-url', metavar='URL',
                        help='MariaDB/MySQL server, e.g. '
                             'mysql+pymysql://root:secret@db1:3306 '
                             '(default: $NOVA_LITE_MYSQL or %s)' % DB_ROOT)
    parser.add_argument('--transport-url', metavar='URL',
                        help='RabbitMQ broker, e.g. '
                             'rabbit://user:secret@mq1:5672 (default: '
                             '$NOVA_LITE_RABBIT or %s)' % RABBIT)
    parser.add_argument('--rabbit-node', metavar='NODE',
                        help='Erlang node of that broker for rabbitmqctl '
                             '-n (default: $NOVA_LITE_RABBIT_NODE, else '
                             'found from the AMQP port)')
    parser.add_argument('--rabbit-management-url', metavar='URL',
                        help='make vhosts through this management HTTP '
                             'API instead, e.g. http://mq1:15672 '
                             '(default: $NOVA_LITE_RABBIT_MGMT_URL)')
    parser.add_argument('--keystone', action='store_true',
                        help='run OpenStack Keystone beside the services '
                             'and authenticate through it')
    parser.add_argument('--novncproxy', action='store_true',
                        help='run nova-lite-novncproxy (the noVNC console '
                             'proxy) on a free port, console URLs naming '
                             'it')
    parser.add_argument('--no-guest-ssh', dest='guest_ssh',
                        action='store_false',
                        help='guests do not answer SSH and the private '
                             'network keeps nova_lite\'s default range '
                             '(by default it is a /16 of 127.0.0.0/8 and '
                             'computes run [fake_driver] guest_ssh)')
    parser.add_argument('--set', metavar='SECTION.OPTION=VALUE',
                        action='append', default=[], dest='settings',
                        help='an option written into every service\'s '
                             'config file, e.g. --set '
                             'fake_driver.spawn_delay=2 or --set '
                             'DEFAULT.rpc_response_timeout=20 (repeatable)')
    args = parser.parse_args(argv)
    if args.action == 'start':
        dep = Deployment(args.workdir, args.cells, args.computes_per_cell,
                         args.port, keystone=args.keystone, apis=args.apis,
                         database_url=args.database_url,
                         transport_url=args.transport_url,
                         rabbit_node=args.rabbit_node,
                         rabbit_management_url=args.rabbit_management_url,
                         allow_cross_cell_resize=args.allow_cross_cell_resize,
                         extra_config=parse_settings(args.settings, parser),
                         novncproxy_port=(_free_port() if args.novncproxy
                                          else None),
                         guest_ssh=args.guest_ssh and can_serve_ssh())
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
