"""2.99 through the REST API on a running plane: a spice-direct remote
console (refused below 2.99, and by a compute older than service
version 22), its access URL at [spice] spice_direct_proxy_base_url,
and os-console-auth-tokens showing tls_port from 2.99."""
from urllib import parse

from nova_lite import context as nova_context
from nova_lite import objects
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import MEMBER

DIRECT = {'remote_console': {'protocol': 'spice', 'type': 'spice-direct'}}
HTML5 = {'remote_console': {'protocol': 'spice', 'type': 'spice-html5'}}


def _console(running, uuid, body=DIRECT, version='2.99'):
    return running.api('POST', '/servers/%s/remote-consoles' % uuid, body,
                       token=MEMBER, version=version)


def _token(url):
    return parse.parse_qs(parse.urlsplit(url).query)['token'][0]


def _show_token(running, token, version='2.99'):
    response = running.api('GET', '/os-console-auth-tokens/%s' % token,
                           token=ADMIN, version=version)
    assert response.status_code == 200, response.text
    return response.json()['console']


def set_compute_version(running, host, version):
    """Record host's compute at service version (a compute not upgraded
    yet); returns the version it had."""
    for cell in running.cells.values():
        if cell.is_cell0():
            continue
        with nova_context.target_cell(running.ctxt, cell) as cctxt:
            try:
                service = objects.Service.get_by_compute_host(cctxt, host)
            except Exception:
                continue
            previous = service.version
            service.version = version
            service.save()
            return previous
    raise AssertionError('no compute service on %s' % host)


def test_spice_direct_console_and_its_tls_port(running, override):
    override('enabled', True, group='spice')
    uuid = running.boot('cell1')
    # Not below 2.99.
    assert _console(running, uuid, version='2.98').status_code == 400
    # Not for another protocol.
    assert _console(running, uuid, {'remote_console': {
        'protocol': 'vnc', 'type': 'spice-direct'}}).status_code == 400

    response = _console(running, uuid)
    assert response.status_code == 200, response.text
    body = response.json()['remote_console']
    assert (body['protocol'], body['type']) == ('spice', 'spice-direct')
    assert body['url'].startswith('http://127.0.0.1:13002/nova?token=')
    console = _show_token(running, _token(body['url']))
    assert set(console) == {'instance_uuid', 'host', 'port', 'tls_port',
                            'internal_access_path'}
    assert console['instance_uuid'] == uuid
    assert console['tls_port'] is None
    # Below 2.99 the token shows no tls_port.
    assert 'tls_port' not in _show_token(running, _token(body['url']),
                                         version='2.98')

    # With TLS required, the console's TLS port is kept with its token.
    override('require_secure', True, group='spice')
    direct = _console(running, uuid).json()['remote_console']
    console = _show_token(running, _token(direct['url']))
    assert isinstance(console['tls_port'], int)
    assert console['tls_port'] != console['port']
    html5 = _console(running, uuid, HTML5).json()['remote_console']
    assert html5['url'].startswith('http://127.0.0.1:6082/spice_auto.html')
    assert _show_token(running, _token(html5['url']))['tls_port'] == \
        console['tls_port']


def test_a_compute_too_old_for_spice_direct_is_a_409(running, override):
    override('enabled', True, group='spice')
    uuid = running.boot('cell2')
    host = running.host(uuid)
    previous = set_compute_version(running, host, 21)
    try:
        response = _console(running, uuid)
        assert response.status_code == 409, response.text
        # Other consoles still work.
        assert _console(running, uuid, HTML5).status_code == 200
    finally:
        set_compute_version(running, host, previous)
    assert _console(running, uuid).status_code == 200
