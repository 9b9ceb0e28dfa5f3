"""One running plane per test module (two cells, cell0, the API over
HTTP) and the REST calls tests use to reach a server's state on it:
boot in a chosen cell, stop, pause, suspend, lock, reset to error.

The plane is module-scoped: starting one costs seconds, booting a
server on it a fraction of one. A module that uses it must not also use
the function-scoped database fixtures (`seeded`, `cells_env`, `conf`):
they reset the process-wide configuration the plane runs on.
"""
import pytest

from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite import objects
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import Client
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.conftest import start_plane
from tests.functional.conftest import stop_plane
from tests.functional.conftest import wait_for

COMPUTE = 'nova-compute'


class Running(object):
    """A started plane, its REST client (flavor 'small' created) and, for
    the few states no API call reaches, its admin context and cells."""

    def __init__(self, plane):
        self.plane = plane
        self.api = Client(plane.endpoint)
        assert self.api('POST', '/flavors', {'flavor': {
            'name': 'small', 'id': 'small', 'ram': 512, 'vcpus': 1,
            'disk': 1}}, token=ADMIN).status_code == 200
        self.ctxt = nova_context.get_admin_context()
        self.cells = dict(plane.cells)

    def flavor(self, flavorid='small'):
        return objects.Flavor.get_by_flavor_id(self.ctxt, flavorid)

    def _computes(self):
        body = self.api('GET', '/os-services?binary=%s' % COMPUTE,
                        token=ADMIN).json()
        return [s['host'] for s in body['services']]

    def _set_enabled(self, hosts, enabled):
        path = '/os-services/%s' % ('enable' if enabled else 'disable')
        for host in hosts:
            resp = self.api('PUT', path, {'host': host, 'binary': COMPUTE},
                            token=ADMIN)
            assert resp.status_code == 200, resp.text

    def boot(self, cell=None, token=MEMBER, version='2.37', **extra):
        """A server booted through the API and ACTIVE; in cell (the
        other cells' computes disabled while it is scheduled). Returns
        its uuid."""
        others = [h for h in self._computes()
                  if cell and not h.startswith(cell + '-')]
        self._set_enabled(others, False)
        try:
            created = self.api('POST', '/servers', _server(**extra),
                               version=version, token=token)
            assert created.status_code == 202, created.text
            uuid = created.json()['server']['id']
            _wait_status(self.api, uuid, 'ACTIVE', token=token)
        finally:
            self._set_enabled(others, True)
        if cell:
            assert self.host(uuid).startswith(cell + '-')
        return uuid

    def host(self, uuid):
        return self.api('GET', '/servers/%s' % uuid, token=ADMIN).json()[
            'server']['OS-EXT-SRV-ATTR:host']

    def act(self, uuid, body, token=MEMBER, status=202):
        resp = self.api('POST', '/servers/%s/action' % uuid, body,
                        token=token)
        assert resp.status_code == status, resp.text
        return resp

    def settle(self, uuid, vm_state):
        """Wait until the server shows vm_state with no task."""
        def reached():
            body = self.api('GET', '/servers/%s' % uuid,
                            token=ADMIN).json()['server']
            return (body['OS-EXT-STS:vm_state'] == vm_state and
                    body['OS-EXT-STS:task_state'] is None)
        wait_for(reached, timeout=30, message='%s %s' % (uuid, vm_state))

    def gone(self, uuid):
        """Wait until a deleted server is gone (404)."""
        wait_for(lambda: self.api('GET', '/servers/%s' % uuid,
                                  token=ADMIN).status_code == 404,
                 timeout=30, message='%s gone' % uuid)

    def reach(self, uuid, vm_state):
        """Bring an ACTIVE server to vm_state through the API:
        stopped, paused, suspended or error."""
        body = {'stopped': {'os-stop': None}, 'paused': {'pause': None},
                'suspended': {'suspend': None},
                'error': {'os-resetState': {'state': 'error'}}}[vm_state]
        self.act(uuid, body, token=ADMIN)
        self.settle(uuid, vm_state)


@pytest.fixture(scope='module')
def running(tmp_path_factory):
    plane = start_plane(tmp_path_factory.mktemp('plane') / 'state')
    try:
        yield Running(plane)
    finally:
        stop_plane(plane)


@pytest.fixture
def override():
    """CONF.set_override for one test on the module's running plane."""
    done = []

    def set_override(name, value, group=None):
        CONF.set_override(name, value, group=group)
        done.append((name, group))
    yield set_override
    for name, group in done:
        CONF.clear_override(name, group=group)
