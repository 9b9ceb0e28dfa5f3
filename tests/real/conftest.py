"""The real layer: MariaDB, PostgreSQL and RabbitMQ on 127.0.0.1.

Each service is probed once per session. When one does not answer, the
tests that need it are skipped and a banner at the end of the run says so
-- unless NOVA_LITE_REQUIRE_SERVICES=1 (CI), where they fail instead.

Every database and vhost a test gets is new and uniquely named
(nl_<session>_<n>) and dropped after the test; at the end of the session
anything left with this session's prefix is dropped too.

Server locations can be changed with NOVA_LITE_MYSQL_URL,
NOVA_LITE_PG_URL (server URLs without a database) and NOVA_LITE_RABBIT_URL
(an AMQP URL without a vhost).
"""
import json
import os
import shutil
import subprocess
import urllib.parse
import urllib.request
import uuid

import pytest
import sqlalchemy as sa

MYSQL_SERVER = os.environ.get('NOVA_LITE_MYSQL_URL',
                              'mysql+pymysql://root@127.0.0.1:3306')
PG_SERVER = os.environ.get('NOVA_LITE_PG_URL',
                           'postgresql+psycopg2://postgres@127.0.0.1:5432')
RABBIT_SERVER = os.environ.get('NOVA_LITE_RABBIT_URL',
                               'rabbit://guest:guest@127.0.0.1:5672')
RABBIT_MGMT = os.environ.get('NOVA_LITE_RABBIT_MGMT_URL',
                             'http://127.0.0.1:15672')
PROBE_TIMEOUT = 5
REQUIRE = os.environ.get('NOVA_LITE_REQUIRE_SERVICES') == '1'

SESSION_PREFIX = 'nl_%s' % uuid.uuid4().hex[:8]
_names = iter(range(1, 1 << 30))
# service name -> None (answers) or the reason it does not
_probes = {}


def unique_name():
    return '%s_%d' % (SESSION_PREFIX, next(_names))


def pytest_configure(config):
    config.addinivalue_line(
        'markers', 'real: needs real MariaDB/PostgreSQL/RabbitMQ (tests/real)')


def pytest_collection_modifyitems(config, items):
    here = os.path.dirname(os.path.abspath(__file__))
    for item in items:
        if str(item.fspath).startswith(here + os.sep):
            item.add_marker(pytest.mark.real)


# --- probes -----------------------------------------------------------------

def _server_engine(url):
    connect_args = {'connect_timeout': PROBE_TIMEOUT}
    return sa.create_engine(url, poolclass=sa.pool.NullPool,
                            isolation_level='AUTOCOMMIT',
                            connect_args=connect_args)


def _probe_sql(url):
    engine = _server_engine(url)
    try:
        with engine.connect() as conn:
            conn.execute(sa.text('SELECT 1'))
    finally:
        engine.dispose()


def _probe_rabbit():
    import kombu
    url = RABBIT_SERVER.replace('rabbit://', 'amqp://', 1) + '/'
    with kombu.Connection(url, connect_timeout=PROBE_TIMEOUT) as conn:
        conn.ensure_connection(max_retries=1)


_PROBES = {
    'MariaDB': lambda: _probe_sql(MARIADB.admin_url),
    'PostgreSQL': lambda: _probe_sql(POSTGRESQL.admin_url),
    'RabbitMQ': _probe_rabbit,
}


def service_problem(name):
    """None if service name answers, else why not (probed once)."""
    if name not in _probes:
        try:
            _PROBES[name]()
            _probes[name] = None
        except Exception as exc:
            _probes[name] = ('%s: %s' % (type(exc).__name__, exc)
                             ).splitlines()[0]
    return _probes[name]


def require_service(name):
    """Skip (or, with NOVA_LITE_REQUIRE_SERVICES=1, fail) without name."""
    problem = service_problem(name)
    if problem is None:
        return
    message = '%s is not reachable (%s)' % (name, problem)
    if REQUIRE:
        pytest.fail(message + ' and NOVA_LITE_REQUIRE_SERVICES=1',
                    pytrace=False)
    pytest.skip(message)


def pytest_terminal_summary(terminalreporter):
    down = {name: why for name, why in _probes.items() if why is not None}
    if not down:
        return
    verdict = 'FAILED' if REQUIRE else 'SKIPPED'
    terminalreporter.write_sep(
        '!', 'REAL LAYER %s: services not reachable' % verdict, red=True,
        bold=True)
    for name, why in sorted(down.items()):
        terminalreporter.write_line('  %s: %s' % (name, why), red=True)
    if not REQUIRE:
        terminalreporter.write_line(
            '  Tests needing them were skipped; start them (DEVELOPERS.md) '
            'or set NOVA_LITE_REQUIRE_SERVICES=1 to fail instead.',
            red=True)


# --- databases ---------------------------------------------------------------

class _SqlServer(object):
    """Creates and drops databases on one server."""

    def __init__(self, name, server_url, admin_db):
        self.name = name
        self.server_url = server_url.rstrip('/')
        self.admin_url = self.server_url + '/' + admin_db
        self.created = []

    def _execute(self, *statements):
        engine = _server_engine(self.admin_url)
        try:
            with engine.connect() as conn:
                for statement in statements:
                    conn.execute(sa.text(statement))
        finally:
            engine.dispose()

    def create(self):
        require_service(self.name)
        db_name = unique_name()
        self._execute(self.create_sql(db_name))
        self.created.append(db_name)
        return '%s/%s' % (self.server_url, db_name)

    def drop(self, url):
        db_name = url.rsplit('/', 1)[1]
        self._execute(self.drop_sql(db_name))
        if db_name in self.created:
            self.created.remove(db_name)

    def leftovers(self):
        """This session's databases that still exist on the server."""
        engine = _server_engine(self.admin_url)
        try:
            with engine.connect() as conn:
                names = [r[0] for r in conn.execute(sa.text(self.list_sql))]
        finally:
            engine.dispose()
        return [n for n in names if n.startswith(SESSION_PREFIX + '_')]


class _MariaDB(_SqlServer):
    list_sql = 'SHOW DATABASES'

    def create_sql(self, name):
        return 'CREATE DATABASE `%s` CHARACTER SET utf8mb4' % name

    def drop_sql(self, name):
        return 'DROP DATABASE IF EXISTS `%s`' % name


class _PostgreSQL(_SqlServer):
    list_sql = 'SELECT datname FROM pg_database'

    def create_sql(self, name):
        return 'CREATE DATABASE "%s"' % name

    def drop_sql(self, name):
        # FORCE: a test's leftover connections must not keep it alive.
        return 'DROP DATABASE IF EXISTS "%s" WITH (FORCE)' % name


MARIADB = _MariaDB('MariaDB', MYSQL_SERVER, '')
POSTGRESQL = _PostgreSQL('PostgreSQL', PG_SERVER, 'postgres')


# --- RabbitMQ vhosts ---------------------------------------------------------

class _RabbitMQ(object):
    """Creates and deletes vhosts (rabbitmqctl, else the management API)."""

    name = 'RabbitMQ'

    def __init__(self):
        parsed = urllib.parse.urlsplit(RABBIT_SERVER)
        self.user = urllib.parse.unquote(parsed.username or 'guest')
        self.password = urllib.parse.unquote(parsed.password or 'guest')
        self.created = []

    def _ctl(self, *args):
        return subprocess.run(['rabbitmqctl', '-q'] + list(args), check=True,
                              capture_output=True, text=True,
                              timeout=60).stdout

    def _http(self, method, path, body=None):
        request = urllib.request.Request(
            RABBIT_MGMT + path, method=method,
            data=None if body is None else body.encode(),
            headers={'content-type': 'application/json'})
        password_mgr = urllib.request.HTTPPasswordMgrWithDefaultRealm()
        password_mgr.add_password(None, RABBIT_MGMT, self.user, self.password)
        opener = urllib.request.build_opener(
            urllib.request.HTTPBasicAuthHandler(password_mgr))
        with opener.open(request, timeout=30) as response:
            return response.read()

    @staticmethod
    def _use_ctl():
        return shutil.which('rabbitmqctl') is not None and os.geteuid() == 0

    def create(self):
        require_service(self.name)
        vhost = unique_name()
        if self._use_ctl():
            self._ctl('add_vhost', vhost)
            self._ctl('set_permissions', '-p', vhost, self.user,
                      '.*', '.*', '.*')
        else:
            quoted = urllib.parse.quote(vhost, safe='')
            self._http('PUT', '/api/vhosts/%s' % quoted)
            self._http('PUT', '/api/permissions/%s/%s' % (
                quoted, urllib.parse.quote(self.user, safe='')),
                '{"configure": ".*", "write": ".*", "read": ".*"}')
        self.created.append(vhost)
        return '%s/%s' % (RABBIT_SERVER.rstrip('/'), vhost)

    def leftovers(self):
        """This session's vhosts that still exist on the broker (those of
        a tools/deployment.py deployment too: its prefix is one of
        unique_name()'s)."""
        if self._use_ctl():
            names = self._ctl('list_vhosts', 'name').split()
        else:
            names = [v['name'] for v in json.loads(
                self._http('GET', '/api/vhosts?columns=name'))]
        return [n for n in names if n.startswith(SESSION_PREFIX + '_')]

    def delete(self, vhost):
        if self._use_ctl():
            self._ctl('delete_vhost', vhost)
        else:
            self._http('DELETE', '/api/vhosts/%s'
                       % urllib.parse.quote(vhost, safe=''))
        if vhost in self.created:
            self.created.remove(vhost)


RABBITMQ = _RabbitMQ()


# --- fixtures ----------------------------------------------------------------

@pytest.fixture
def make_mysql_database():
    """make() -> URL of a new empty MariaDB database, dropped after."""
    made = []

    def make():
        made.append(MARIADB.create())
        return made[-1]
    yield make
    for url in made:
        MARIADB.drop(url)


@pytest.fixture
def make_postgresql_database():
    """make() -> URL of a new empty PostgreSQL database, dropped after."""
    made = []

    def make():
        made.append(POSTGRESQL.create())
        return made[-1]
    yield make
    for url in made:
        POSTGRESQL.drop(url)


@pytest.fixture
def make_rabbit_vhost():
    """make() -> transport URL of a new RabbitMQ vhost, deleted after."""
    made = []

    def make():
        url = RABBITMQ.create()
        made.append(url.rsplit('/', 1)[1])
        return url
    yield make
    for vhost in made:
        RABBITMQ.delete(vhost)


@pytest.fixture
def mysql_url(make_mysql_database):
    return make_mysql_database()


@pytest.fixture
def postgresql_url(make_postgresql_database):
    return make_postgresql_database()


@pytest.fixture
def rabbit_transport_url(make_rabbit_vhost):
    return make_rabbit_vhost()


@pytest.fixture(scope='session', autouse=True)
def _drop_session_leftovers():
    """Drop whatever this session created and a test failed to drop
    (databases and vhosts named with its prefix), also when the run is
    interrupted (Ctrl-C, or SIGTERM with tests/interrupt.py): pytest
    still tears the session's fixtures down then."""
    yield
    for server in (MARIADB, POSTGRESQL):
        if _probes.get(server.name, 'not used') is not None:
            continue
        try:
            for name in server.leftovers():
                server.drop('%s/%s' % (server.server_url, name))
        except Exception as exc:
            print('real conftest: could not clean %s: %s'
                  % (server.name, exc))
    if _probes.get(RABBITMQ.name, 'not used') is not None:
        return
    try:
        vhosts = RABBITMQ.leftovers()  # only this session's
    except Exception as exc:
        print('real conftest: could not list vhosts: %s' % exc)
        vhosts = list(RABBITMQ.created)
    for vhost in vhosts:
        try:
            RABBITMQ.delete(vhost)
        except Exception as exc:
            print('real conftest: could not delete vhost %s: %s'
                  % (vhost, exc))


# --- one deployment for the modules that drive tools/deployment.py -----------

def deployment_tool():
    """tools/deployment.py as a module (tools/ is not a package)."""
    import importlib.util
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    spec = importlib.util.spec_from_file_location(
        'nova_lite_deployment', os.path.join(root, 'tools', 'deployment.py'))
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


# The tests here boot more servers in one project than Nova's default
# quotas allow (tests/real/test_quota_race.py is about quotas): their
# deployments have no instances, cores or ram limits.
UNLIMITED_QUOTAS = {'quota': {'instances': -1, 'cores': -1, 'ram': -1}}
# The shared deployment's computes also run the instance usage audit
# (tests/real/test_deployment.py reads its log through the API).
SHARED_CONFIG = dict(UNLIMITED_QUOTAS,
                     DEFAULT={'instance_usage_audit': 'true'})


@pytest.fixture(scope='session')
def shared_deployment(tmp_path_factory):
    """tools/deployment.py on MariaDB + RabbitMQ (2 cells x 2 computes,
    the noVNC console proxy), started once (about a minute here) for
    every module that uses it; each module leaves it as it found it,
    except where it says."""
    require_service('MariaDB')
    require_service('RabbitMQ')
    tool = deployment_tool()
    dep = tool.Deployment(
        str(tmp_path_factory.mktemp('deployment')),
        cells=2, computes_per_cell=2, prefix=unique_name(),
        database_url=MYSQL_SERVER, transport_url=RABBIT_SERVER,
        extra_config=SHARED_CONFIG, novncproxy_port=tool._free_port())
    try:
        dep.start()
    except KeyboardInterrupt:
        dep.stop()   # an interrupted run stops and drops what it made
        raise
    except Exception:
        logs = []
        for name in sorted(os.listdir(dep.workdir)):
            if name.endswith(('.out', '.log')):
                with open(os.path.join(dep.workdir, name)) as f:
                    logs.append('--- %s\n%s' % (name, f.read()[-3000:]))
        dep.stop()
        pytest.fail('deployment did not start:\n' + '\n'.join(logs))
    yield dep
    dep.stop()
