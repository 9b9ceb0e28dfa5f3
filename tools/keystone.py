#!/usr/bin/env python3
"""OpenStack Keystone itself (PyPI's ``keystone``) beside nova_lite.

    tools/keystone.py venv
    tools/keystone.py start --workdir DIR --compute-url URL [--port P]
    tools/keystone.py stop --workdir DIR

``venv`` builds .keystone-venv from tools/keystone-requirements.txt
(once: a stamp of that file says whether it must be installed again;
NOVA_LITE_KEYSTONE_VENV names another place), so that Keystone's pins
never meet nova_lite's. ``start`` makes a SQLite database and a
keystone.conf (fernet tokens, key repositories) in DIR, runs
``keystone-manage db_sync``, ``fernet_setup``, ``credential_setup`` and
``bootstrap`` (admin user and project, roles admin/member/reader, region
RegionOne, the identity endpoint), serves Keystone's WSGI app
(``keystone.server.wsgi.initialize_public_application``, as
``keystone.wsgi.api`` does) with Werkzeug's threaded server in a process
of its own, and fills the catalog and the users nova_lite needs:

* services compute (URL/v2.1), image (URL/image), network
  (URL/networking), volumev3 (URL/volume/v3) and shared-file-system
  (URL/share/v2) with public
  endpoints at the nova_lite API URL;
* user ``nova`` with the ``service`` role in project ``service``: the
  service user keystonemiddleware's auth_token validates tokens as;
* users ``demo`` (member) and ``demo-reader`` (reader) in project
  ``demo``, ``alt`` (member) and ``alt-reader`` (reader) in ``alt``.

Every user's password is PASSWORD. This module needs only the standard
library (Keystone itself runs in its venv), so tools/deployment.py and
the tests import it from any interpreter.
"""
import argparse
import fcntl
import grp
import hashlib
import json
import os
import pwd
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REQUIREMENTS = os.path.join(ROOT, 'tools', 'keystone-requirements.txt')
VENV = os.environ.get('NOVA_LITE_KEYSTONE_VENV',
                      os.path.join(ROOT, '.keystone-venv'))
STAMP = '.nova-lite-keystone-stamp'
PASSWORD = 'nova-lite-secret'
REGION = 'RegionOne'
# (user, project, role): the service user and the demo personas.
USERS = [('nova', 'service', 'service'),
         ('demo', 'demo', 'member'),
         ('demo-reader', 'demo', 'reader'),
         ('alt', 'alt', 'member'),
         ('alt-reader', 'alt', 'reader')]
# Catalog entries beside identity: (type, name, path under nova_lite's
# API URL) -- the Compute API and the embedded Glance/Neutron-style APIs.
SERVICES = [('compute', 'nova', '/v2.1'),
            ('image', 'glance', '/image'),
            ('network', 'neutron', '/networking'),
            ('volumev3', 'cinderv3', '/volume/v3'),
            ('shared-file-system', 'manilav2', '/share/v2')]


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def ensure_venv(venv=VENV):
    """The python of Keystone's venv, built (or brought up to
    tools/keystone-requirements.txt) if needed; concurrent callers wait
    for one build."""
    with open(REQUIREMENTS, 'rb') as f:
        want = hashlib.sha256(f.read()).hexdigest()
    python = os.path.join(venv, 'bin', 'python')
    stamp = os.path.join(venv, STAMP)
    os.makedirs(os.path.dirname(os.path.abspath(venv)), exist_ok=True)
    with open(os.path.abspath(venv) + '.lock', 'a') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            with open(stamp) as f:
                if f.read().strip() == want and os.path.exists(python):
                    return python
        except FileNotFoundError:
            pass
        print('keystone: installing Keystone into %s' % venv,
              file=sys.stderr)
        if not os.path.exists(python):
            subprocess.run([_base_python(), '-m', 'venv', venv], check=True)
        subprocess.run([python, '-m', 'pip', 'install', '-q', '-r',
                        REQUIREMENTS], check=True)
        with open(stamp, 'w') as f:
            f.write(want + '\n')
    return python


def _base_python():
    return getattr(sys, '_base_executable', None) or sys.executable


class KeystoneError(Exception):
    pass


def _http(method, url, body=None, token=None, expect=(200, 201, 204),
          headers=None):
    """(status, headers, JSON body) of one call to Keystone's API."""
    headers = dict(headers or {}, **{'Content-Type': 'application/json'})
    if token:
        headers['X-Auth-Token'] = token
    req = urllib.request.Request(
        url, method=method, headers=headers,
        data=None if body is None else json.dumps(body).encode())
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            status, raw, got = resp.status, resp.read(), resp.headers
    except urllib.error.HTTPError as exc:
        status, raw, got = exc.code, exc.read(), exc.headers
    if expect and status not in expect:
        raise KeystoneError('%s %s: %s %s' % (method, url, status,
                                              raw[:500]))
    return status, got, json.loads(raw) if raw else None


class Keystone(object):
    """One Keystone in workdir (database, config, keys, logs, state)."""

    def __init__(self, workdir, port=None, compute_url=None,
                 database_url=None):
        self.workdir = os.path.abspath(workdir)
        self.port = port or free_port()
        self.compute_url = compute_url
        # SQLAlchemy URL of Keystone's database (an empty MariaDB
        # database that the caller made, e.g. the deployment's); SQLite
        # in workdir when None -- fine for one client, but it answers
        # 500 "database is locked" under parallel writers (tempest).
        self.database_url = database_url
        self.procs = {}     # name -> pid of a serving process
        self.ports = {}     # name -> its port
        self.state_file = os.path.join(self.workdir, 'keystone.json')

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self.port

    @property
    def auth_url(self):
        return self.url + '/v3'

    def path(self, *names):
        return os.path.join(self.workdir, *names)

    # --- setup --------------------------------------------------------

    def write_conf(self, name='keystone', expiration=3600):
        """A keystone.conf: its database (database_url, or SQLite in
        workdir), fernet tokens living expiration seconds, key
        repositories in workdir."""
        conf = self.path('%s.conf' % name)
        with open(conf, 'w') as f:
            f.write('[DEFAULT]\n'
                    'use_stderr = true\n'
                    '\n[identity]\n'
                    # bcrypt's fewest rounds: users are made and
                    # authenticate in milliseconds, not a second each.
                    'password_hash_rounds = 4\n'
                    '\n[database]\n'
                    'connection = %s\n'
                    '\n[token]\n'
                    'provider = fernet\n'
                    'expiration = %d\n'
                    '\n[fernet_tokens]\n'
                    'key_repository = %s\n'
                    '\n[fernet_receipts]\n'
                    'key_repository = %s\n'
                    '\n[credential]\n'
                    'key_repository = %s\n'
                    % (self.database_url or
                       'sqlite:///%s' % self.path('keystone.sqlite'),
                       expiration,
                       self.path('fernet-keys'), self.path('fernet-keys'),
                       self.path('credential-keys')))
        return conf

    def manage(self, *commands):
        """Run keystone-manage once per command (a tuple of arguments),
        all at once: each spends seconds just starting."""
        procs = [subprocess.Popen(
            [os.path.join(VENV, 'bin', 'keystone-manage'), '--config-file',
             self.path('keystone.conf')] + list(args),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for args in commands]
        failed = []
        for args, proc in zip(commands, procs):
            _out, err = proc.communicate(timeout=300)
            if proc.returncode:
                failed.append('keystone-manage %s: %s' % (args[0],
                                                         err[-3000:]))
        if failed:
            raise KeystoneError('\n'.join(failed))

    def setup(self):
        """Venv, config, database and keys; bootstrap admin and the
        identity endpoint."""
        ensure_venv()
        os.makedirs(self.path('fernet-keys'), exist_ok=True)
        os.makedirs(self.path('credential-keys'), exist_ok=True)
        self.write_conf()
        owner = ('--keystone-user', pwd.getpwuid(os.getuid()).pw_name,
                 '--keystone-group', grp.getgrgid(os.getgid()).gr_name)
        self.manage(('db_sync',), ('fernet_setup',) + owner,
                    ('credential_setup',) + owner)
        self.manage(('bootstrap', '--bootstrap-password', PASSWORD,
                     '--bootstrap-username', 'admin',
                     '--bootstrap-project-name', 'admin',
                     '--bootstrap-role-name', 'admin',
                     '--bootstrap-service-name', 'keystone',
                     '--bootstrap-region-id', REGION,
                     '--bootstrap-admin-url', self.auth_url,
                     '--bootstrap-internal-url', self.auth_url,
                     '--bootstrap-public-url', self.auth_url))
        return self

    # --- serving ------------------------------------------------------

    def serve(self, name='keystone', port=None, expiration=None,
              timeout=60):
        """Serve Keystone's WSGI app in a process of its own; another name
        is another server on the same database and keys (e.g. one whose
        tokens expire within seconds). Returns its URL."""
        port = port or (self.port if name == 'keystone' else free_port())
        conf = self.path('keystone.conf')
        if expiration is not None:
            conf = self.write_conf(name, expiration)
        log = open(self.path('%s.log' % name), 'ab')
        proc = subprocess.Popen(
            [os.path.join(VENV, 'bin', 'python'), os.path.abspath(__file__),
             'serve', '--config-file', conf, '--port', str(port)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        self.procs[name], self.ports[name] = proc.pid, port
        self.save()
        url = 'http://127.0.0.1:%d' % port
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise KeystoneError('keystone %s exited with %s; see %s' % (
                    name, proc.returncode, self.path('%s.log' % name)))
            try:
                _http('GET', url + '/v3', expect=(200,))
                return url
            except (OSError, KeystoneError):
                time.sleep(0.2)
        raise KeystoneError('keystone %s did not answer within %ss'
                            % (name, timeout))

    def stop(self, name=None, timeout=15):
        for proc_name, pid in list(self.procs.items()):
            if name not in (None, proc_name):
                continue
            try:
                os.killpg(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and _alive(pid):
                time.sleep(0.1)
            if _alive(pid):
                os.killpg(pid, signal.SIGKILL)
            del self.procs[proc_name]
        self.save()

    def save(self):
        with open(self.state_file, 'w') as f:
            json.dump({'port': self.port, 'compute_url': self.compute_url,
                       'database_url': self.database_url,
                       'procs': self.procs, 'ports': self.ports}, f)

    @classmethod
    def load(cls, workdir):
        with open(os.path.join(workdir, 'keystone.json')) as f:
            state = json.load(f)
        ks = cls(workdir, state['port'], state['compute_url'],
                 state.get('database_url'))
        ks.procs, ks.ports = state['procs'], state['ports']
        return ks

    # --- the API ------------------------------------------------------

    def token(self, user='admin', project='admin', password=PASSWORD,
              url=None):
        """A project-scoped token issued to user by password."""
        _status, headers, _body = _http(
            'POST', (url or self.url) + '/v3/auth/tokens',
            {'auth': {'identity': {'methods': ['password'], 'password': {
                'user': {'name': user, 'domain': {'id': 'default'},
                         'password': password}}},
                'scope': {'project': {'name': project,
                                      'domain': {'id': 'default'}}}}})
        return headers['X-Subject-Token']

    def revoke(self, token):
        """Revoke token through Keystone's API (DELETE /v3/auth/tokens,
        the admin asking)."""
        _http('DELETE', self.auth_url + '/auth/tokens', token=self.token(),
              expect=(204,), headers={'X-Subject-Token': token})

    def api(self, method, path, body=None, token=None, expect=(200, 201,
                                                               204)):
        return _http(method, self.auth_url + path, body,
                     token or self._admin, expect)[2]

    def populate(self, compute_url=None):
        """The service user, demo users and projects, the service role,
        and nova_lite's services in the catalog (compute_url: nova_lite's
        API, e.g. http://127.0.0.1:8774)."""
        self.compute_url = compute_url or self.compute_url
        self._admin = self.token()
        roles = {r['name']: r['id'] for r in self.api('GET', '/roles')[
            'roles']}
        if 'service' not in roles:
            roles['service'] = self.api('POST', '/roles', {'role': {
                'name': 'service'}})['role']['id']
        projects = {}
        for _user, project, _role in USERS:
            if project not in projects:
                projects[project] = self.api('POST', '/projects', {
                    'project': {'name': project, 'domain_id': 'default'}}
                )['project']['id']
        for user, project, role in USERS:
            user_id = self.api('POST', '/users', {'user': {
                'name': user, 'password': PASSWORD, 'domain_id': 'default',
                'default_project_id': projects[project]}})['user']['id']
            self.api('PUT', '/projects/%s/users/%s/roles/%s' % (
                projects[project], user_id, roles[role]))
        for service_type, name, path in SERVICES:
            service_id = self.api('POST', '/services', {'service': {
                'type': service_type, 'name': name}})['service']['id']
            for interface in ('public', 'internal'):
                self.api('POST', '/endpoints', {'endpoint': {
                    'service_id': service_id, 'interface': interface,
                    'region_id': REGION,
                    'url': self.compute_url.rstrip('/') + path}})
        self.projects = projects
        self.save()
        return projects

    def project_id(self, name):
        return self.api('GET', '/projects?name=%s' % name, token=self.token()
                        )['projects'][0]['id']

    # --- what nova_lite and clients are given ---------------------------

    def authtoken_options(self, token_cache_time=300):
        """nova_lite's [keystone_authtoken]: keystonemiddleware validates
        tokens as the nova service user (password auth), caching each
        validation token_cache_time seconds in the process."""
        return {'auth_type': 'password', 'auth_url': self.auth_url,
                'www_authenticate_uri': self.auth_url,
                'username': 'nova', 'password': PASSWORD,
                'project_name': 'service', 'user_domain_name': 'Default',
                'project_domain_name': 'Default', 'region_name': REGION,
                'token_cache_time': token_cache_time}

    def client_env(self, user='admin', project=None, base=None):
        """The OS_* settings of `openstack` with password auth as user
        (its own project unless named): no endpoint override, the
        catalog says where everything is."""
        project = project or dict((u, p) for u, p, _r in USERS).get(
            user, 'admin')
        env = {k: v for k, v in (os.environ if base is None else base).items()
               if not k.startswith('OS_')}
        env.update({'OS_AUTH_URL': self.auth_url, 'OS_AUTH_TYPE': 'password',
                    'OS_IDENTITY_API_VERSION': '3', 'OS_USERNAME': user,
                    'OS_PASSWORD': PASSWORD, 'OS_PROJECT_NAME': project,
                    'OS_USER_DOMAIN_NAME': 'Default',
                    'OS_PROJECT_DOMAIN_NAME': 'Default',
                    'OS_REGION_NAME': REGION})
        return env


def _alive(pid):
    try:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _serve(conf, port):
    """Inside Keystone's venv: its WSGI app on 127.0.0.1:port."""
    os.environ['OS_KEYSTONE_CONFIG_FILES'] = conf
    # This file is tools/keystone.py: its directory must not shadow the
    # keystone package.
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or '.') != here]
    from keystone.server import wsgi
    sys.argv[1:] = []   # Keystone parses the command line as its own
    from werkzeug import serving
    application = wsgi.initialize_public_application()
    server = serving.make_server('127.0.0.1', port, application,
                                 threaded=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    server.serve_forever()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('action', choices=['venv', 'start', 'stop',
                                           'serve'])
    parser.add_argument('--workdir')
    parser.add_argument('--compute-url', default='http://127.0.0.1:8774')
    parser.add_argument('--port', type=int)
    parser.add_argument('--config-file')
    args = parser.parse_args(argv)
    if args.action == 'venv':
        print(ensure_venv())
    elif args.action == 'serve':
        _serve(args.config_file, args.port)
    elif args.action == 'start':
        os.makedirs(args.workdir, exist_ok=True)
        ks = Keystone(args.workdir, args.port, args.compute_url).setup()
        ks.serve()
        ks.populate()
        print('keystone up: %s (users %s, password %s)' % (
            ks.auth_url, ', '.join(u for u, _p, _r in USERS), PASSWORD))
        print('export ' + ' '.join('%s=%s' % item for item in sorted(
            ks.client_env('admin', base={}).items())))
    else:
        Keystone.load(args.workdir).stop()
    return 0


if __name__ == '__main__':
    sys.exit(main())
