"""Consoles and introspection through the REST API on a running plane
(a server in each cell): console output, remote consoles and their
tokens, the legacy console actions, diagnostics, topology,
trigger_crash_dump and injectNetworkInfo."""
from urllib import parse

import pytest

from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.api.test_servers_boot import OTHER
from tests.functional.conftest import wait_for

VNC = {'remote_console': {'protocol': 'vnc', 'type': 'novnc'}}


@pytest.fixture(scope='module')
def servers(running):
    return {cell: running.boot(cell) for cell in ('cell1', 'cell2')}


def _action(running, uuid, body, token=MEMBER, version='2.1'):
    return running.api('POST', '/servers/%s/action' % uuid, body,
                       token=token, version=version)


def _output(running, uuid, length=None, token=MEMBER):
    resp = _action(running, uuid, {'os-getConsoleOutput': {
        'length': length}}, token=token)
    assert resp.status_code == 200, resp.text
    return resp.json()['output']


def _token(url):
    query = parse.parse_qs(parse.urlsplit(url).query)
    if 'path' in query:
        query = parse.parse_qs(parse.urlsplit(query['path'][0]).query)
    return query['token'][0]


def test_console_output_records_the_guest_life(running, servers):
    for cell, uuid in servers.items():
        output = _output(running, uuid)
        assert 'Booting vm' in output and output.endswith('login: ')
        last = _output(running, uuid, length=1)
        assert last.endswith('] login: ') and '\n' not in last
        assert _output(running, uuid, length=0) == ''
        assert len(_output(running, uuid, length='2').split('\n')) == 2
    uuid = servers['cell2']
    running.act(uuid, {'reboot': {'type': 'HARD'}}, token=ADMIN)
    running.settle(uuid, 'active')
    assert 'reboot: hard reset' in _output(running, uuid)
    # trigger_crash_dump (2.17): an NMI the log shows, an instance action.
    assert _action(running, uuid, {'trigger_crash_dump': None},
                   version='2.16').status_code == 404
    assert _action(running, uuid, {'trigger_crash_dump': {}},
                   version='2.17').status_code == 400
    assert _action(running, uuid, {'trigger_crash_dump': None},
                   version='2.17').status_code == 202
    wait_for(lambda: 'Kernel panic' in _output(running, uuid),
             timeout=10, message='the crash dump')
    acts = running.api('GET', '/servers/%s/os-instance-actions' % uuid,
                       token=MEMBER).json()['instanceActions']
    assert acts[0]['action'] == 'trigger_crash_dump'
    # Policy (other projects: 404; the personas: the policy table); bad
    # input is a 400.
    assert _action(running, uuid, {'os-getConsoleOutput': {}},
                   token=OTHER).status_code == 404
    for bad in ({'length': -2}, {'length': 'x'}, {'x': 1}):
        assert _action(running, uuid,
                       {'os-getConsoleOutput': bad}).status_code == 400
    # A stopped server keeps its log; a crash dump needs it running.
    uuid = servers['cell1']
    running.reach(uuid, 'stopped')
    assert _output(running, uuid).rstrip().endswith('reboot: Power down')
    resp = _action(running, uuid, {'trigger_crash_dump': None},
                   version='2.17')
    assert resp.status_code == 409, resp.text
    running.act(uuid, {'os-start': None}, token=ADMIN)
    running.settle(uuid, 'active')


def _console(running, uuid, body=VNC, version='2.6', token=MEMBER):
    return running.api('POST', '/servers/%s/remote-consoles' % uuid, body,
                       token=token, version=version)


def _show_token(running, token, version='2.31', who=ADMIN):
    return running.api('GET', '/os-console-auth-tokens/%s' % token,
                       token=who, version=version)


def test_remote_consoles_and_their_tokens(running, servers, override):
    uuid = servers['cell2']
    resp = _console(running, uuid)
    assert resp.status_code == 200, resp.text
    body = resp.json()['remote_console']
    assert (body['protocol'], body['type']) == ('vnc', 'novnc')
    assert body['url'].startswith(
        'http://127.0.0.1:6080/vnc_auto.html?path=%3Ftoken%3D')
    token = _token(body['url'])
    shown = _show_token(running, token)
    assert shown.status_code == 200, shown.text
    console = shown.json()['console']
    assert console['instance_uuid'] == uuid
    assert isinstance(console['port'], int) and console['host']
    assert 'internal_access_path' in console
    # Before 2.31 only RDP consoles are shown; administrators only.
    assert _show_token(running, token, '2.30').status_code == 401
    assert _show_token(running, token, who=MEMBER).status_code == 403
    assert _show_token(running, 'nope').status_code == 404
    # Kinds of console the computes do not offer, types a protocol has
    # not, and mks before 2.8.
    for body, version, status in (
            ({'remote_console': {'protocol': 'spice',
                                 'type': 'spice-html5'}}, '2.6', 400),
            ({'remote_console': {'protocol': 'vnc', 'type': 'xvpvnc'}},
             '2.6', 400),
            ({'remote_console': {'protocol': 'mks', 'type': 'webmks'}},
             '2.6', 400),
            ({'remote_console': {'protocol': 'mks', 'type': 'webmks'}},
             '2.8', 400),
            ({'remote_console': {'protocol': 'vnc'}}, '2.6', 400),
            (VNC, '2.5', 404)):
        resp = _console(running, uuid, body, version)
        assert resp.status_code == status, (body, version, resp.text)
    override('enabled', True, group='serial_console')
    resp = _console(running, servers['cell1'], {'remote_console': {
        'protocol': 'serial', 'type': 'serial'}})
    assert resp.json()['remote_console']['url'].startswith(
        'ws://127.0.0.1:6083/?token=')
    assert _console(running, uuid, token=OTHER).status_code == 404
    # The legacy actions, below 2.6 only.
    resp = _action(running, uuid, {'os-getVNCConsole': {'type': 'novnc'}},
                   version='2.5')
    assert resp.status_code == 200, resp.text
    assert resp.json()['console']['type'] == 'novnc'
    assert _show_token(running, _token(resp.json()['console']['url'])
                       ).status_code == 200
    assert _action(running, uuid, {'os-getSPICEConsole': {
        'type': 'spice-html5'}}).status_code == 400
    assert _action(running, uuid, {'os-getVNCConsole': {'type': 'novnc'}},
                   version='2.6').status_code == 404
    # Tokens expire after [consoleauth] token_ttl.
    override('token_ttl', 0, group='consoleauth')
    expired = _token(_console(running, uuid).json()['remote_console']['url'])
    assert _show_token(running, expired).status_code == 404
    assert _show_token(running, token).status_code == 200


def test_tokens_die_with_their_server(running):
    uuid = running.boot('cell1')
    token = _token(_console(running, uuid).json()['remote_console']['url'])
    assert _show_token(running, token).status_code == 200
    # Moved to another host: the old host's console is gone.
    running.act(uuid, {'migrate': None}, token=ADMIN)
    running.settle(uuid, 'resized')
    assert _show_token(running, token).status_code == 404
    token = _token(_console(running, uuid).json()['remote_console']['url'])
    assert _show_token(running, token).status_code == 200
    assert running.api('DELETE', '/servers/%s' % uuid,
                       token=MEMBER).status_code == 204
    running.gone(uuid)
    assert _show_token(running, token).status_code == 404


def test_diagnostics_topology_and_inject_network_info(running, servers):
    uuid = servers['cell1']
    url = '/servers/%s/diagnostics' % uuid
    assert running.api('GET', url, token=MEMBER).status_code == 403
    legacy = running.api('GET', url, token=ADMIN, version='2.47').json()
    assert legacy['memory'] == 512 * 1024 and 'cpu0_time' in legacy
    standard = running.api('GET', url, token=ADMIN, version='2.48').json()
    assert standard['state'] == 'running'
    assert (standard['num_cpus'], standard['memory_details']) == (
        1, {'maximum': 512, 'used': 0})
    assert len(standard['disk_details']) == standard['num_disks'] == 1
    topology = '/servers/%s/topology' % uuid
    assert running.api('GET', topology, token=MEMBER,
                       version='2.78').json() == {'nodes': [],
                                                  'pagesize_kb': None}
    assert running.api('GET', topology, token=ADMIN,
                       version='2.77').status_code == 404
    assert running.api('GET', topology, token=OTHER,
                       version='2.78').status_code == 404
    assert _action(running, uuid, {'injectNetworkInfo': None},
                   token=MEMBER).status_code == 403
    assert _action(running, uuid, {'injectNetworkInfo': None},
                   token=ADMIN).status_code == 202
    wait_for(lambda: 'network configuration injected' in _output(
        running, uuid), timeout=10, message='the injection')
