"""Port bindings follow same-cell moves through the REST API (one cell of
two computes), read from the embedded network service (its REST API's
``binding:host_id`` and status, its bindings per host), as Nova keeps
them with Neutron's port bindings:

- cold migration and resize: an INACTIVE binding on the destination
  beside the source's ACTIVE one while the source hands the guest over;
  the destination's ACTIVE from the finish (the port DOWN until the
  destination reports it plugged, then ACTIVE); the source's INACTIVE
  one deleted by the confirm, or ACTIVE again by a revert (the
  destination's deleted); a failure before the guest runs at the
  destination deletes the destination's;
- live migration: the destination's INACTIVE while the guest copies,
  ACTIVE at the switch, the source's deleted after it; the port ACTIVE
  (plugged) at the end;
- evacuation: the port bound to the destination alone, plugged there,
  and the rebuild waits for its network-vif-plugged (a missing event is
  fatal: the evacuation fails, the server in ERROR on its source).
"""
import pytest
import requests

from nova_lite import context as nova_context
from nova_lite.network import api as network_api
from tests.functional.api.resize_helpers import action
from tests.functional.api.resize_helpers import boot
from tests.functional.api.resize_helpers import client_of
from tests.functional.api.resize_helpers import one_cell_plane
from tests.functional.api.resize_helpers import show
from tests.functional.api.resize_helpers import wait_migration
from tests.functional.api.resize_helpers import wait_status
from tests.functional.api.test_server_evacuate import _forced_down
from tests.functional.api.test_server_evacuate import _start
from tests.functional.api.test_server_evacuate import _stop
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.conftest import wait_for

HOST = 'OS-EXT-SRV-ATTR:host'
HOSTS = ('cell1-compute1', 'cell1-compute2')


@pytest.fixture
def plane(tmp_path, conf):
    yield from one_cell_plane(tmp_path)


@pytest.fixture
def api(plane):
    return client_of(plane)


def _port(plane, uuid):
    """The server's one port as the network service's REST API shows
    it."""
    resp = requests.get(
        plane.endpoint + '/networking/v2.0/ports?device_id=' + uuid,
        headers={'X-Auth-Token': ADMIN}, timeout=30)
    assert resp.status_code == 200, resp.text
    [port] = resp.json()['ports']
    return port


def _bindings(uuid):
    ctxt = nova_context.get_admin_context()
    found = network_api.API().get_instance_bindings(ctxt, uuid)
    return sorted((b['host'], b['status']) for bs in found.values()
                  for b in bs)


def _other(host):
    return [h for h in HOSTS if h != host][0]


def _task(api, uuid):
    return show(api, uuid)['OS-EXT-STS:task_state']


def _booted(api, plane):
    uuid = boot(api, networks='auto', token=ADMIN)
    source = show(api, uuid)[HOST]
    assert _bindings(uuid) == [(source, 'ACTIVE')]
    port = _port(plane, uuid)
    assert (port['binding:host_id'], port['status']) == (source, 'ACTIVE')
    return uuid, source


def _wait_plugged(plane, uuid, host):
    wait_for(lambda: (_port(plane, uuid)['binding:host_id'],
                      _port(plane, uuid)['status']) == (host, 'ACTIVE'),
             timeout=30, message='port ACTIVE on %s' % host)


def test_cold_migration_binds_on_the_destination_and_confirm_drops_source(
        api, plane, conf):
    uuid, source = _booted(api, plane)
    dest = _other(source)
    conf.set_override('delay_methods', {'migrate_disk_and_power_off': 3,
                                        'finish_migration': 2},
                      group='fake_driver')
    assert action(api, uuid, {'migrate': {'host': dest}}, version='2.56',
                  token=ADMIN).status_code == 202
    # The source powers off and hands over: the destination's binding
    # is there, INACTIVE; the port still bound to the source.
    wait_for(lambda: _task(api, uuid) == 'resize_migrating', timeout=30,
             message='resize_migrating')
    assert _bindings(uuid) == sorted([(source, 'ACTIVE'),
                                      (dest, 'INACTIVE')])
    assert _port(plane, uuid)['binding:host_id'] == source
    # The destination starts the guest: its binding ACTIVE, the port
    # DOWN until plugged there.
    wait_for(lambda: _task(api, uuid) == 'resize_finish', timeout=30,
             message='resize_finish')
    assert _bindings(uuid) == sorted([(source, 'INACTIVE'),
                                      (dest, 'ACTIVE')])
    port = _port(plane, uuid)
    assert (port['binding:host_id'], port['status']) == (dest, 'DOWN')
    wait_status(api, uuid, 'VERIFY_RESIZE')
    _wait_plugged(plane, uuid, dest)
    assert action(api, uuid, {'confirmResize': None},
                  token=ADMIN).status_code == 204
    wait_status(api, uuid, 'ACTIVE')
    wait_migration(uuid, 'confirmed')
    assert _bindings(uuid) == [(dest, 'ACTIVE')]
    _wait_plugged(plane, uuid, dest)


def test_resize_revert_binds_back_to_the_source(api, plane, conf):
    uuid, source = _booted(api, plane)
    dest = _other(source)
    assert action(api, uuid, {'resize': {'flavorRef': 'medium'}},
                  token=ADMIN).status_code == 202
    server = wait_status(api, uuid, 'VERIFY_RESIZE')
    assert server[HOST] == dest
    assert _bindings(uuid) == sorted([(source, 'INACTIVE'),
                                      (dest, 'ACTIVE')])
    _wait_plugged(plane, uuid, dest)
    conf.set_override('delay_methods', {'finish_revert_migration': 2},
                      group='fake_driver')
    assert action(api, uuid, {'revertResize': None},
                  token=ADMIN).status_code == 202
    # The source restarts the guest: its binding ACTIVE again, the
    # destination's gone.
    wait_for(lambda: _bindings(uuid) == [(source, 'ACTIVE')], timeout=30,
             message='bound to the source again')
    assert _port(plane, uuid)['binding:host_id'] == source
    wait_status(api, uuid, 'ACTIVE')
    wait_migration(uuid, 'reverted')
    assert show(api, uuid)[HOST] == source
    _wait_plugged(plane, uuid, source)


def test_failure_before_the_finish_drops_the_destination_binding(
        api, plane, conf):
    uuid, source = _booted(api, plane)
    conf.set_override('fail_methods', ['migrate_disk_and_power_off'],
                      group='fake_driver')
    assert action(api, uuid, {'resize': {'flavorRef': 'medium'}},
                  token=ADMIN).status_code == 202
    wait_migration(uuid, 'error')
    wait_status(api, uuid, 'ACTIVE')
    assert _bindings(uuid) == [(source, 'ACTIVE')]
    port = _port(plane, uuid)
    assert (port['binding:host_id'], port['status']) == (source, 'ACTIVE')
    # The destination fails to start it: back to the source, bound
    # there again.
    conf.set_override('fail_methods', ['finish_migration'],
                      group='fake_driver')
    assert action(api, uuid, {'resize': {'flavorRef': 'medium'}},
                  token=ADMIN).status_code == 202
    wait_migration(uuid, 'error')
    wait_status(api, uuid, 'ACTIVE')
    wait_for(lambda: _bindings(uuid) == [(source, 'ACTIVE')], timeout=30,
             message='bound to the source alone')
    _wait_plugged(plane, uuid, source)


def test_live_migration_activates_the_destination_at_the_switch(
        api, plane, conf):
    uuid, source = _booted(api, plane)
    dest = _other(source)
    conf.set_override('live_migration_seconds', 3, group='fake_driver')
    assert action(api, uuid, {'os-migrateLive': {
        'host': dest, 'block_migration': 'auto'}}, version='2.25',
        token=ADMIN).status_code == 202
    wait_migration(uuid, 'running')
    assert _bindings(uuid) == sorted([(source, 'ACTIVE'),
                                      (dest, 'INACTIVE')])
    assert _port(plane, uuid)['binding:host_id'] == source
    wait_status(api, uuid, 'ACTIVE')
    wait_migration(uuid, 'completed')
    assert _bindings(uuid) == [(dest, 'ACTIVE')]
    _wait_plugged(plane, uuid, dest)


def test_evacuation_binds_plugs_and_waits(api, plane, conf):
    uuid, source = _booted(api, plane)
    dest = _other(source)
    _stop(plane, source)
    _forced_down(api, source, True)
    try:
        conf.set_override('vif_plugged_event_delay', 1.5,
                          group='local_services')
        assert action(api, uuid, {'evacuate': {}}, version='2.29',
                      token=ADMIN).status_code == 200
        # Bound and plugged on the destination, the event not in yet:
        # the rebuild waits in rebuild_spawning.
        wait_for(lambda: _port(plane, uuid)['binding:host_id'] == dest
                 and _port(plane, uuid)['status'] == 'ACTIVE', timeout=30,
                 message='plugged on the destination')
        assert _task(api, uuid) == 'rebuild_spawning'
        server = wait_status(api, uuid, 'ACTIVE')
        assert server[HOST] == dest
        assert _bindings(uuid) == [(dest, 'ACTIVE')]
        # Back the other way with the event missing (fatal): the
        # evacuation fails, the server in ERROR on its source.
        _start(plane, source)
        _forced_down(api, source, False)
        _stop(plane, dest)
        _forced_down(api, dest, True)
        conf.set_override('vif_plugged_event_delay', 600,
                          group='local_services')
        conf.set_override('vif_plugging_timeout', 1)
        assert action(api, uuid, {'evacuate': {}}, version='2.29',
                      token=ADMIN).status_code == 200
        server = wait_status(api, uuid, 'ERROR')
        assert server[HOST] == dest
        assert wait_migration(uuid, 'error')
        assert 'Virtual Interface creation failed' in show(
            api, uuid)['fault']['message']
    finally:
        for host in HOSTS:
            if getattr(next(s for s in plane.services if s.host == host),
                       '_evac_stopped', False):
                _start(plane, host)
            _forced_down(api, host, False)
