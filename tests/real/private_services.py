"""A MariaDB server and a RabbitMQ node of a test's own, for tests that
stop and restart them (tests/real/test_faults.py, tools/bench/faults.py):
the machine's shared MariaDB, PostgreSQL and RabbitMQ are never stopped.

    db = PrivateMariaDB(workdir)       # mariadb-install-db, then mariadbd
    mq = PrivateRabbitMQ(workdir)      # a second node, its own ports
    db.start(); mq.start()             # or start_all(db, mq): at once
    db.url, mq.url, mq.node            # for tools/deployment.py
    db.restart(down=5); mq.restart(down=5)   # app, or node=True
    db.stop(); mq.stop()

Each listens on 127.0.0.1 only, on free ports below the kernel's
ephemeral range (a port there may be taken by any client's connection
between the check and the bind), with everything (data, logs, socket,
pid file, Erlang cookie) under ``workdir``. MariaDB's root has no
password (``--auth-root-authentication-method=normal``). The RabbitMQ
node loads no plugins (the management plugin would want the shared
node's port 15672), reads no /etc/rabbitmq config, and is addressed by
``rabbitmqctl -n NODE``. Its Erlang cookie is the machine's RabbitMQ
cookie when it can be read (/var/lib/rabbitmq/.erlang.cookie, as root):
the packaged ``rabbitmqctl`` wrapper that tools/deployment.py runs
switches to the rabbitmq user and presents that one.

Nothing here needs pytest: tools/bench/faults.py loads this file too.
"""
import os
import random
import shutil
import signal
import socket
import subprocess
import threading
import time
import uuid

RABBIT_BIN = '/usr/lib/rabbitmq/bin'
SYSTEM_COOKIE = '/var/lib/rabbitmq/.erlang.cookie'
START_TIMEOUT = 120
STOP_TIMEOUT = 60


def _free_port(taken=()):
    """A port free on 127.0.0.1 in 20000-32000 (below the ephemeral
    range, away from RabbitMQ's 25672)."""
    for _ in range(200):
        port = random.randint(20000, 32000)
        if port in taken or port in (25672, 25673):
            continue
        with socket.socket() as s:
            try:
                s.bind(('127.0.0.1', port))
            except OSError:
                continue
        return port
    raise RuntimeError('no free port found in 20000-32000')


def _listening(port):
    try:
        with socket.create_connection(('127.0.0.1', port), timeout=1):
            return True
    except OSError:
        return False


def _wait(predicate, timeout, what, proc=None, log=None):
    deadline = time.monotonic() + timeout
    while not predicate():
        if proc is not None and proc.poll() is not None:
            raise RuntimeError('%s exited with %s%s' % (
                what, proc.returncode, _tail(log)))
        if time.monotonic() > deadline:
            raise RuntimeError('%s: not within %ss%s' % (what, timeout,
                                                         _tail(log)))
        time.sleep(0.2)


def _tail(path, chars=2000):
    if not path or not os.path.exists(path):
        return ''
    with open(path, errors='replace') as f:
        return '\n' + f.read()[-chars:]


def _end(proc, timeout=STOP_TIMEOUT):
    """Wait for ``proc`` to exit; SIGKILL its process group after
    ``timeout`` seconds."""
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(10)


class PrivateMariaDB(object):
    """mariadbd on a data directory of its own."""

    name = 'MariaDB'

    def __init__(self, workdir, port=None):
        self.dir = os.path.join(os.path.abspath(workdir), 'mariadb')
        self.datadir = os.path.join(self.dir, 'data')
        self.socket = os.path.join(self.dir, 'mysqld.sock')
        self.log = os.path.join(self.dir, 'mariadbd.err')
        self.port = port or _free_port()
        self.proc = None

    @property
    def url(self):
        """The server URL (no database), as tools/deployment.py takes."""
        return 'mysql+pymysql://root@127.0.0.1:%d' % self.port

    def install(self):
        os.makedirs(self.dir, exist_ok=True)
        argv = [shutil.which('mariadb-install-db') or 'mariadb-install-db',
                '--no-defaults', '--datadir=%s' % self.datadir,
                '--auth-root-authentication-method=normal',
                '--skip-test-db']
        if os.geteuid() == 0:
            argv.append('--user=root')
        with open(os.path.join(self.dir, 'install.log'), 'w') as out:
            subprocess.run(argv, check=True, stdout=out,
                           stderr=subprocess.STDOUT, timeout=300)

    def _argv(self):
        argv = [shutil.which('mariadbd') or '/usr/sbin/mariadbd',
                '--no-defaults', '--datadir=%s' % self.datadir,
                '--port=%d' % self.port, '--bind-address=127.0.0.1',
                '--socket=%s' % self.socket,
                '--pid-file=%s' % os.path.join(self.dir, 'mariadbd.pid'),
                '--log-error=%s' % self.log,
                # small: it shares two cores with everything else
                '--innodb-buffer-pool-size=64M', '--skip-log-bin',
                '--max-connections=500',
                # durability is not what these tests are about
                '--innodb-flush-log-at-trx-commit=2']
        if os.geteuid() == 0:
            argv.append('--user=root')
        return argv

    def start(self, timeout=START_TIMEOUT):
        if not os.path.isdir(os.path.join(self.datadir, 'mysql')):
            self.install()
        self.proc = subprocess.Popen(
            self._argv(), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        _wait(lambda: _listening(self.port), timeout,
              'mariadbd on port %d' % self.port, self.proc, self.log)

    def stop(self):
        """Shut down (SIGTERM: a clean shutdown) and wait for the exit."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        _end(self.proc)

    def kill(self):
        """SIGKILL: a crash, not a shutdown."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def restart(self, down=0.0):
        self.stop()
        time.sleep(down)
        self.start()

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class PrivateRabbitMQ(object):
    """A RabbitMQ node of its own: its own name, ports, Mnesia and
    logs; the broker's guest user (loopback only) on its AMQP port."""

    name = 'RabbitMQ'

    def __init__(self, workdir, port=None, dist_port=None):
        self.dir = os.path.join(os.path.abspath(workdir), 'rabbitmq')
        self.port = port or _free_port()
        self.dist_port = dist_port or _free_port(taken=(self.port,))
        self.node = 'nlfaults%s@localhost' % uuid.uuid4().hex[:6]
        self.log = os.path.join(self.dir, 'server.out')
        self.proc = None

    @property
    def url(self):
        """The transport URL (no vhost), as tools/deployment.py takes."""
        return 'rabbit://guest:guest@127.0.0.1:%d' % self.port

    def ctl_env(self):
        """The environment in which rabbitmqctl reaches this node (its
        Erlang cookie is in HOME)."""
        return dict(os.environ, HOME=os.path.join(self.dir, 'home'))

    def _server_env(self):
        env = self.ctl_env()
        conf = os.path.join(self.dir, 'conf')
        env.update(
            RABBITMQ_NODENAME=self.node,
            RABBITMQ_NODE_IP_ADDRESS='127.0.0.1',
            RABBITMQ_NODE_PORT=str(self.port),
            RABBITMQ_DIST_PORT=str(self.dist_port),
            RABBITMQ_MNESIA_BASE=os.path.join(self.dir, 'mnesia'),
            RABBITMQ_LOG_BASE=os.path.join(self.dir, 'log'),
            RABBITMQ_ENABLED_PLUGINS_FILE=os.path.join(conf,
                                                       'enabled_plugins'),
            RABBITMQ_CONFIG_FILE=os.path.join(conf, 'rabbitmq.conf'),
            RABBITMQ_CONF_ENV_FILE=os.path.join(conf, 'rabbitmq-env.conf'),
            RABBITMQ_ADVANCED_CONFIG_FILE=os.path.join(conf,
                                                       'advanced.config'))
        return env

    def _bin(self, name):
        path = os.path.join(RABBIT_BIN, name)
        return path if os.path.exists(path) else (shutil.which(name) or name)

    def _prepare(self):
        conf = os.path.join(self.dir, 'conf')
        for sub in ('home', 'mnesia', 'log', 'conf'):
            os.makedirs(os.path.join(self.dir, sub), exist_ok=True)
        cookie = os.path.join(self.dir, 'home', '.erlang.cookie')
        if not os.path.exists(cookie) and os.access(SYSTEM_COOKIE,
                                                    os.R_OK):
            shutil.copyfile(SYSTEM_COOKIE, cookie)
            os.chmod(cookie, 0o400)
        with open(os.path.join(conf, 'enabled_plugins'), 'w') as f:
            f.write('[].\n')
        for name in ('rabbitmq.conf', 'rabbitmq-env.conf'):
            open(os.path.join(conf, name), 'a').close()
        with open(os.path.join(conf, 'advanced.config'), 'w') as f:
            f.write('[].\n')

    def ctl(self, *args, timeout=120):
        return subprocess.run(
            [self._bin('rabbitmqctl'), '-q', '-n', self.node] + list(args),
            env=self.ctl_env(), capture_output=True, text=True,
            timeout=timeout, check=True).stdout

    def start(self, timeout=START_TIMEOUT):
        self._prepare()
        out = open(self.log, 'ab')
        # The script, not the /usr/sbin wrapper: that one would su to
        # the rabbitmq user and write the shared node's startup log.
        self.proc = subprocess.Popen(
            [self._bin('rabbitmq-server')], env=self._server_env(),
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        out.close()
        # The AMQP listener opens at the end of the boot.
        _wait(lambda: _listening(self.port), timeout,
              'RabbitMQ node %s on port %d' % (self.node, self.port),
              self.proc, self.log)

    def stop(self):
        """``rabbitmqctl stop`` (a clean shutdown), then wait for the
        exit; SIGTERM, then SIGKILL, when that does not do."""
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            self.ctl('stop', timeout=STOP_TIMEOUT)
        except (subprocess.SubprocessError, OSError):
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        _end(self.proc)

    def restart(self, down=0.0, node=False):
        """Restart the broker: its RabbitMQ application (``rabbitmqctl
        stop_app``, ``start_app``: every connection dropped, every
        transient queue and its messages gone, as in a restart, in
        seconds rather than the tens a node's boot takes here), or with
        ``node`` the whole node (its Erlang runtime too)."""
        if node:
            self.stop()
            time.sleep(down)
            self.start()
            return
        self.ctl('stop_app', timeout=STOP_TIMEOUT)
        _wait(lambda: not _listening(self.port), STOP_TIMEOUT,
              'RabbitMQ node %s closing port %d' % (self.node, self.port))
        time.sleep(down)
        self.ctl('start_app', timeout=START_TIMEOUT)
        _wait(lambda: _listening(self.port), START_TIMEOUT,
              'RabbitMQ node %s on port %d' % (self.node, self.port),
              self.proc, self.log)

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def start_all(*services):
    """Start the services at once (a RabbitMQ node boots for tens of
    seconds here); if one fails, stop the others and raise."""
    failures = []

    def start(service):
        try:
            service.start()
        except Exception as exc:
            failures.append('%s: %s' % (service.name, exc))

    threads = [threading.Thread(target=start, args=(s,)) for s in services]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        for service in services:
            service.cleanup()
        raise RuntimeError('; '.join(failures))
