"""tools/deployment.py before it starts anything: in a fresh clone with
the README's .venv, and the broker and database servers it is given
(its vhosts made on that broker, never on the machine's default node).
tests/real/test_deployment.py drives a whole deployment."""
import base64
import configparser
import http.server
import json
import os
import shutil
import stat
import subprocess
import sys
import threading

import pytest

from tests.real import conftest as real

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, 'tools', 'deployment.py')


@pytest.fixture(scope='module')
def tool():
    return real.deployment_tool()


# --- a fresh clone -----------------------------------------------------------

def _base_python():
    """The interpreter this test's venv was made from (the user's
    python3 of the README): the venv's python links to it."""
    return os.path.realpath(sys.executable)


@pytest.fixture
def clone(tmp_path):
    """tools/deployment.py in a new checkout whose .venv is made as the
    README makes it (python3 -m venv .venv), nova_lite installed into it
    as `pip install -e .` would (a .pth naming the source tree)."""
    base = _base_python()
    probe = subprocess.run([base, '-c', 'import nova_lite'],
                           capture_output=True, cwd=str(tmp_path))
    assert probe.returncode != 0, 'the base python must lack nova_lite'
    checkout = tmp_path / 'nova_lite'
    (checkout / 'tools').mkdir(parents=True)
    shutil.copy(TOOL, str(checkout / 'tools'))
    subprocess.run([base, '-m', 'venv', '--without-pip',
                    str(checkout / '.venv')], check=True, timeout=120)
    venv_python = checkout / '.venv' / 'bin' / 'python'
    assert os.path.realpath(str(venv_python)) == base
    purelib = subprocess.run(
        [str(venv_python), '-c',
         'import sysconfig; print(sysconfig.get_path("purelib"))'],
        capture_output=True, text=True, check=True).stdout.strip()
    return checkout, base, purelib


def _run_tool(checkout, python, *args):
    env = {k: v for k, v in os.environ.items()
           if k not in ('PYTHONPATH', 'VIRTUAL_ENV', 'PYTHONHOME')}
    return subprocess.run([python, 'tools/deployment.py'] + list(args),
                          cwd=str(checkout), capture_output=True, text=True,
                          timeout=120, env=env)


def test_help_runs_under_the_readme_venv_from_a_fresh_clone(clone):
    checkout, base, purelib = clone
    with open(os.path.join(purelib, 'nova_lite_source.pth'), 'w') as f:
        f.write(ROOT + '\n')
    result = _run_tool(checkout, base, '--help')
    assert result.returncode == 0, result.stderr
    assert '--database-url' in result.stdout
    assert 'needs nova_lite installed' not in result.stderr


def test_a_venv_without_nova_lite_is_refused_with_the_readme_command(clone):
    checkout, base, _purelib = clone
    result = _run_tool(checkout, base, '--help')
    assert result.returncode == 1
    assert 'needs nova_lite installed' in result.stderr
    assert '.venv/bin/pip install -e .' in result.stderr


def test_help_names_the_servers_and_their_variables():
    result = subprocess.run([sys.executable, TOOL, '--help'],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    text = ' '.join(result.stdout.split())
    for words in ('--database-url URL', '--transport-url URL',
                  '$NOVA_LITE_MYSQL', '$NOVA_LITE_RABBIT', '--rabbit-node',
                  '--rabbit-management-url', 'rabbitmqctl -n NODE'):
        assert words in text, words


# --- the servers it is given -------------------------------------------------

def test_urls_come_from_the_options_and_survive_stop(tool, tmp_path):
    dep = tool.Deployment(
        str(tmp_path), cells=1, prefix='nl_x',
        database_url='mysql+pymysql://nova:pw@db1:3307/',
        transport_url='rabbit://nova:pw@mq1:5673',
        rabbit_management_url='http://mq1:15673')
    assert dep.db_url('cell1') == \
        'mysql+pymysql://nova:pw@db1:3307/nl_x_cell1?charset=utf8mb4'
    assert dep.mq_url('cell1') == 'rabbit://nova:pw@mq1:5673/nl_x_cell1'
    dep.save()
    loaded = tool.Deployment.load(str(tmp_path))
    assert loaded.db_url('api') == dep.db_url('api')
    assert loaded.mq_url('api') == dep.mq_url('api')
    assert loaded.broker.describe() == 'management API http://mq1:15673'


def test_environment_gives_the_defaults(tool, tmp_path, monkeypatch):
    monkeypatch.setenv('NOVA_LITE_MYSQL', 'mysql+pymysql://env@db2')
    monkeypatch.setenv('NOVA_LITE_RABBIT', 'rabbit://env:pw@mq2:5672')
    fresh = real.deployment_tool()
    dep = fresh.Deployment(str(tmp_path), prefix='nl_y')
    assert dep.db_url('api').startswith('mysql+pymysql://env@db2/nl_y_api')
    assert dep.mq_url('api') == 'rabbit://env:pw@mq2:5672/nl_y_api'


def _fake_commands(bindir, epmd_output):
    """epmd and rabbitmqctl stand-ins on PATH; rabbitmqctl records its
    arguments, one call per line."""
    calls = bindir / 'calls'
    bindir.mkdir()
    for name, body in (
            ('epmd', 'cat <<"EOF"\n%sEOF\n' % epmd_output),
            ('rabbitmqctl', 'echo "$*" >> %s\n' % calls)):
        path = bindir / name
        path.write_text('#!/bin/sh\n' + body)
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return calls


EPMD = ('epmd: up and running on port 4369 with data:\n'
        'name rabbit at port 25672\n'
        'name rabbit2 at port 25673\n')


def test_vhosts_are_made_on_the_node_of_the_transport_url(
        tool, tmp_path, monkeypatch):
    calls = _fake_commands(tmp_path / 'bin', EPMD)
    monkeypatch.setenv('PATH', '%s:%s' % (tmp_path / 'bin',
                                          os.environ['PATH']))
    monkeypatch.setenv('RABBITMQ_NODENAME', 'rabbit@localhost')
    dep = tool.Deployment(str(tmp_path / 'dep'), cells=1, prefix='nl_z',
                          transport_url='rabbit://nova:pw@127.0.0.1:5673')
    dep.create_vhosts()
    dep.broker.delete_vhosts(['nl_z_api'])
    lines = calls.read_text().splitlines()
    assert lines and all(line.startswith('-q -n rabbit2@localhost ')
                         for line in lines), lines
    assert '-q -n rabbit2@localhost add_vhost nl_z_cell1' in lines
    assert ('-q -n rabbit2@localhost set_permissions -p nl_z_api nova '
            '.* .* .*') in lines
    assert '-q -n rabbit2@localhost delete_vhost nl_z_api' in lines


def test_a_port_no_local_node_serves_is_refused(tool, tmp_path, monkeypatch):
    _fake_commands(tmp_path / 'bin', EPMD)
    monkeypatch.setenv('PATH', '%s:%s' % (tmp_path / 'bin',
                                          os.environ['PATH']))
    dep = tool.Deployment(str(tmp_path / 'dep'),
                          transport_url='rabbit://g:g@127.0.0.1:5699')
    with pytest.raises(RuntimeError, match='--rabbit-node'):
        dep.create_vhosts()
    remote = tool.Deployment(str(tmp_path / 'dep2'),
                             transport_url='rabbit://g:g@mq.example:5672')
    with pytest.raises(RuntimeError, match='--rabbit-management-url'):
        remote.create_vhosts()


class _Management(http.server.BaseHTTPRequestHandler):
    requests = []

    def _record(self):
        length = int(self.headers.get('Content-Length') or 0)
        body = self.rfile.read(length) if length else b''
        if 'Authorization' not in self.headers:
            self.send_response(401)
            self.send_header('WWW-Authenticate', 'Basic realm="mgmt"')
            self.end_headers()
            return
        self.requests.append((self.command, self.path,
                              self.headers['Authorization'],
                              json.loads(body) if body else None))
        self.send_response(201 if self.command == 'PUT' else 204)
        self.end_headers()

    do_PUT = do_DELETE = _record

    def log_message(self, *args):
        pass


def test_vhosts_go_through_the_management_api_when_given(tool, tmp_path):
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Management)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = 'http://127.0.0.1:%d' % server.server_address[1]
        dep = tool.Deployment(str(tmp_path), cells=1, prefix='nl_m',
                              transport_url='rabbit://nova:pw@mq9:5672',
                              rabbit_management_url=url)
        dep.create_vhosts()
        dep.broker.delete_vhosts(['nl_m_api', 'nl_m_cell1'])
    finally:
        server.shutdown()
        server.server_close()
    seen = [(method, path) for method, path, _auth, _body
            in _Management.requests]
    assert seen == [
        ('PUT', '/api/vhosts/nl_m_api'),
        ('PUT', '/api/permissions/nl_m_api/nova'),
        ('PUT', '/api/vhosts/nl_m_cell1'),
        ('PUT', '/api/permissions/nl_m_cell1/nova'),
        ('DELETE', '/api/vhosts/nl_m_api'),
        ('DELETE', '/api/vhosts/nl_m_cell1')]
    assert {auth for _m, _p, auth, _b in _Management.requests} == {
        'Basic ' + base64.b64encode(b'nova:pw').decode()}
    assert _Management.requests[1][3] == {
        'configure': '.*', 'write': '.*', 'read': '.*'}


def test_allow_cross_cell_resize_opens_the_rule_and_prefers_other_cells(
        tool, tmp_path):
    from oslo_config import cfg
    from oslo_context import context as oslo_context
    from oslo_policy import policy

    from nova_lite import policies
    from nova_lite.policies import server_resize

    dep = tool.Deployment(str(tmp_path), cells=1, prefix='nl_c',
                          allow_cross_cell_resize=True)
    top = dep.write_configs()['top']
    conf = cfg.ConfigOpts()
    conf.register_opt(cfg.FloatOpt('cross_cell_move_weight_multiplier'),
                      group='filter_scheduler')
    conf.register_opt(cfg.ListOpt('enabled_filters'),
                      group='filter_scheduler')
    conf(['--config-file', top], project='nova_lite')
    assert conf.filter_scheduler.cross_cell_move_weight_multiplier == \
        -1000000.0
    # (Both in the one section.)
    assert 'SameHostFilter' in conf.filter_scheduler.enabled_filters
    enforcer = policy.Enforcer(conf)
    enforcer.register_defaults(policies.list_rules())
    member = oslo_context.RequestContext(project_id='p1', roles=['member'])
    target = {'project_id': 'p1', 'user_id': 'u1'}
    assert enforcer.authorize(server_resize.CROSS_CELL, target, member)
    without = tool.Deployment(str(tmp_path / 'plain'), cells=1,
                              prefix='nl_d').write_configs()['top']
    conf = cfg.ConfigOpts()
    conf(['--config-file', without], project='nova_lite')
    enforcer = policy.Enforcer(conf)
    enforcer.register_defaults(policies.list_rules())
    assert not enforcer.authorize(server_resize.CROSS_CELL, target, member)


def test_set_writes_an_option_into_every_service_config(tool, tmp_path):
    import configparser

    settings = tool.parse_settings(['fake_driver.spawn_delay=2',
                                    'DEFAULT.rpc_response_timeout = 20'])
    assert settings == {'fake_driver': {'spawn_delay': '2'},
                        'DEFAULT': {'rpc_response_timeout': '20'}}
    with pytest.raises(ValueError):
        tool.parse_settings(['spawn_delay=2'])
    dep = tool.Deployment(str(tmp_path), cells=1, prefix='nl_s', apis=2,
                          extra_config=settings)
    confs = dep.write_configs()
    for name in ('top', 'cell1-conductor', 'cell1-compute1'):
        parser = configparser.ConfigParser()
        parser.read(confs[name])
        assert parser['fake_driver']['spawn_delay'] == '2', name
        assert parser['DEFAULT']['rpc_response_timeout'] == '20', name
        # ...over what the layout sets, which is kept
        assert parser['DEFAULT']['host'], name
    # apiN.conf is read after top.conf, which has them already
    parser = configparser.ConfigParser()
    parser.read(confs['api2'])
    assert 'fake_driver' not in parser.sections()


def test_scheduler_runs_the_hint_filters_as_devstack(tool, tmp_path):
    """nova_lite's default filters and SameHostFilter/DifferentHostFilter
    (Tempest's same_host/different_host tests run); --set changes them."""
    from nova_lite.conf import scheduler
    from nova_lite.scheduler import filters
    dep = tool.Deployment(str(tmp_path), cells=1, prefix='nl_f')
    parser = configparser.RawConfigParser()
    parser.read(dep.write_configs()['top'])
    names = parser.get('filter_scheduler', 'enabled_filters').split(',')
    [default] = [o.default for o in scheduler.filter_opts
                 if o.name == 'enabled_filters']
    assert names == default + ['SameHostFilter', 'DifferentHostFilter']
    assert set(names) <= set(filters.FILTER_MODULES)
    dep = tool.Deployment(str(tmp_path / 'set'), cells=1, prefix='nl_g',
                          extra_config={'filter_scheduler': {
                              'enabled_filters': 'ComputeFilter'}})
    parser = configparser.RawConfigParser()
    parser.read(dep.write_configs()['top'])
    assert parser.get('filter_scheduler',
                      'enabled_filters') == 'ComputeFilter'


def test_guests_answer_ssh_on_a_private_range_of_their_own(tool, tmp_path):
    """With guest_ssh (start's default where port 22 can be served),
    computes run [fake_driver] guest_ssh and the private network is a
    /16 of 127.0.0.0/8 picked per deployment (kept in its state);
    without it (the class's default, --no-guest-ssh) both stay at
    nova_lite's defaults."""
    import ipaddress

    dep = tool.Deployment(str(tmp_path / 'a'), cells=1, prefix='nl_g',
                          rabbit_node='rabbit@here', guest_ssh=True)
    confs = dep.write_configs()
    cidr = ipaddress.ip_network(dep.private_network_cidr)
    assert cidr.prefixlen == 16 and cidr.subnet_of(
        ipaddress.ip_network('127.0.0.0/8'))
    assert ipaddress.ip_address('127.0.0.1') not in cidr
    for name in ('top', 'cell1-conductor', 'cell1-compute1'):
        parser = configparser.ConfigParser()
        parser.read(confs[name])
        assert parser['local_services']['private_network_cidr'] == str(
            cidr), name
    parser = configparser.ConfigParser()
    parser.read(confs['cell1-compute1'])
    assert parser['fake_driver']['guest_ssh'] == 'true'
    dep.save()
    loaded = tool.Deployment.load(str(tmp_path / 'a'))
    assert (loaded.guest_ssh, loaded.private_network_cidr) == (
        True, str(cidr))

    plain = tool.Deployment(str(tmp_path / 'b'), cells=1, prefix='nl_h')
    confs = plain.write_configs()
    parser = configparser.ConfigParser()
    parser.read(confs['cell1-compute1'])
    assert 'fake_driver' not in parser.sections()
    assert 'private_network_cidr' not in parser['local_services']
