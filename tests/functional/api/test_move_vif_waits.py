"""network-vif-plugged waits at the end of moves, through the REST API
(one cell of two computes), as Nova waits with Neutron:

- live migration: the destination plugs the VIFs for the ports'
  bindings there while it prepares, the network service sends
  network-vif-plugged of each and the source waits for them before the
  copy ([compute] live_migration_wait_for_vif_plug, default true); a
  missing event (fatal) rolls the migration back (error, its event in
  error, the server ACTIVE on its source, bound there alone); not
  fatal, or not waiting, it goes on;
- resize revert: the source, the old guest running again with its
  ports bound back there, waits for their network-vif-plugged (routed
  to it though the server's host is still the destination: the move's
  other host gets the event too); missing (fatal) the revert fails
  (ERROR with the fault, migration error); not fatal it goes on.
"""
from tests.functional.api.resize_helpers import action
from tests.functional.api.resize_helpers import show
from tests.functional.api.resize_helpers import wait_migration
from tests.functional.api.resize_helpers import wait_status
from tests.functional.api.test_move_port_bindings import _bindings
from tests.functional.api.test_move_port_bindings import _booted
from tests.functional.api.test_move_port_bindings import _other
from tests.functional.api.test_move_port_bindings import _wait_plugged
from tests.functional.api.test_move_port_bindings import api  # noqa: F401
from tests.functional.api.test_move_port_bindings import HOST
from tests.functional.api.test_move_port_bindings import plane  # noqa: F401
from tests.functional.api.test_servers_boot import ADMIN

# A delay no test waits for: the event comes after the timeout.
NEVER = 600


def _live_migration_results(api, uuid):  # noqa: F811
    """The results of the compute_live_migration events of uuid's
    live-migration actions, oldest first."""
    actions = api('GET', '/servers/%s/os-instance-actions' % uuid,
                  token=ADMIN).json()['instanceActions']
    results = []
    for act in reversed(actions):
        if act['action'] != 'live-migration':
            continue
        events = api('GET', '/servers/%s/os-instance-actions/%s' % (
            uuid, act['request_id']), token=ADMIN,
            version='2.51').json()['instanceAction']['events']
        results += [e['result'] for e in events
                    if e['event'] == 'compute_live_migration']
    return results


def _live_migrate(api, uuid, dest):  # noqa: F811
    assert action(api, uuid, {'os-migrateLive': {
        'host': dest, 'block_migration': 'auto'}}, version='2.25',
        token=ADMIN).status_code == 202


def test_live_migration_waits_for_the_destination_plug(api, plane, conf):  # noqa
    uuid, source = _booted(api, plane)
    dest = _other(source)
    # The events do not come (fatal): rolled back, error, as Nova.
    conf.set_override('vif_plugged_event_delay', NEVER,
                      group='local_services')
    conf.set_override('vif_plugging_timeout', 1)
    _live_migrate(api, uuid, dest)
    wait_migration(uuid, 'error')
    server = wait_status(api, uuid, 'ACTIVE')
    assert server[HOST] == source
    assert _live_migration_results(api, uuid) == ['Error']
    assert _bindings(uuid) == [(source, 'ACTIVE')]
    # Not fatal: it goes on.
    conf.set_override('vif_plugging_is_fatal', False)
    _live_migrate(api, uuid, dest)
    wait_migration(uuid, 'completed')
    assert wait_status(api, uuid, 'ACTIVE')[HOST] == dest
    # Not waiting ([compute] live_migration_wait_for_vif_plug false),
    # fatal, a timeout no test would wait for: it goes on at once.
    conf.set_override('vif_plugging_is_fatal', True)
    conf.set_override('vif_plugging_timeout', NEVER)
    conf.set_override('live_migration_wait_for_vif_plug', False,
                      group='compute')
    _live_migrate(api, uuid, source)
    wait_migration(uuid, 'completed')
    assert wait_status(api, uuid, 'ACTIVE')[HOST] == source
    # Waiting, the events come (after a delay) and reach the source: it
    # goes on long before this timeout. (Last: an event still on its
    # way from an earlier move would wake the wait.)
    conf.set_override('live_migration_wait_for_vif_plug', True,
                      group='compute')
    conf.set_override('vif_plugged_event_delay', 1,
                      group='local_services')
    conf.set_override('vif_plugging_timeout', 60)
    _live_migrate(api, uuid, dest)
    wait_migration(uuid, 'completed')
    assert wait_status(api, uuid, 'ACTIVE')[HOST] == dest
    _wait_plugged(plane, uuid, dest)


def _resized(api, plane):  # noqa: F811
    uuid, source = _booted(api, plane)
    dest = _other(source)
    assert action(api, uuid, {'resize': {'flavorRef': 'medium'}},
                  token=ADMIN).status_code == 202
    assert wait_status(api, uuid, 'VERIFY_RESIZE')[HOST] == dest
    _wait_plugged(plane, uuid, dest)
    return uuid, source, dest


def test_resize_revert_waits_for_the_source_plug(api, plane, conf):  # noqa
    uuid, source, dest = _resized(api, plane)
    conf.set_override('vif_plugged_event_delay', 1,
                      group='local_services')
    conf.set_override('vif_plugging_timeout', 60)
    assert action(api, uuid, {'revertResize': None},
                  token=ADMIN).status_code == 202
    wait_migration(uuid, 'reverted')
    assert wait_status(api, uuid, 'ACTIVE')[HOST] == source
    _wait_plugged(plane, uuid, source)


def test_resize_revert_missing_the_plug_fails_when_fatal(api, plane, conf):  # noqa
    uuid, source, dest = _resized(api, plane)
    conf.set_override('vif_plugged_event_delay', NEVER,
                      group='local_services')
    conf.set_override('vif_plugging_timeout', 1)
    assert action(api, uuid, {'revertResize': None},
                  token=ADMIN).status_code == 202
    wait_migration(uuid, 'error')
    server = wait_status(api, uuid, 'ERROR')
    assert server['fault']['message'] == 'Virtual Interface creation failed'
    assert _bindings(uuid) == [(source, 'ACTIVE')]


def test_resize_revert_missing_the_plug_goes_on_when_not_fatal(
        api, plane, conf):  # noqa: F811
    uuid, source, dest = _resized(api, plane)
    conf.set_override('vif_plugged_event_delay', NEVER,
                      group='local_services')
    conf.set_override('vif_plugging_timeout', 1)
    conf.set_override('vif_plugging_is_fatal', False)
    assert action(api, uuid, {'revertResize': None},
                  token=ADMIN).status_code == 202
    wait_migration(uuid, 'reverted')
    assert wait_status(api, uuid, 'ACTIVE')[HOST] == source
    assert show(api, uuid)['OS-EXT-STS:vm_state'] == 'active'
