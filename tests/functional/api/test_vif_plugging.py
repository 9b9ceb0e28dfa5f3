"""network-vif-plugged waits at boot, as Nova does with Neutron: the
compute plugs a new server's VIFs, the embedded network service marks
the ports ACTIVE and (after [local_services] vif_plugged_event_delay)
sends network-vif-plugged through /os-server-external-events, which
routes it to the compute; the build goes on only then. A missing event
after [DEFAULT] vif_plugging_timeout fails the build on that host when
vif_plugging_is_fatal (ports and claim there freed) and reschedules it
to an alternate host (ERROR with a fault, claims freed, once every
alternate failed so), else the build goes on; an event that comes
'failed' fails it at once when fatal (ERROR with Nova's fault, not
rescheduled)."""
import requests

from tests.functional.api.plane_fixtures import override  # noqa: F401
from tests.functional.api.plane_fixtures import running  # noqa: F401
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import _wait_status
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.conftest import wait_for

# A delay no test waits for: the event comes after the timeout.
NEVER = 600


def _ports(plane, uuid):
    resp = requests.get(
        plane.plane.endpoint + '/networking/v2.0/ports?device_id=' + uuid,
        headers={'X-Auth-Token': ADMIN}, timeout=30)
    assert resp.status_code == 200, resp.text
    return resp.json()['ports']


def _show(plane, uuid):
    return plane.api('GET', '/servers/%s' % uuid, token=ADMIN,
                     version='2.37').json()['server']


def _vcpus_used(plane):
    body = plane.api('GET', '/os-hypervisors/detail', token=ADMIN,
                     version='2.1').json()
    return sum(h['vcpus_used'] for h in body['hypervisors'])


def _boot(plane, networks='auto'):
    created = plane.api('POST', '/servers', _server(networks=networks),
                        version='2.37')
    assert created.status_code == 202, created.text
    return created.json()['server']['id']


def _delete(plane, uuid):
    plane.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    plane.gone(uuid)


def test_boot_waits_for_vif_plugged(running, override):  # noqa: F811
    override('vif_plugged_event_delay', 1.5, group='local_services')
    uuid = _boot(running)
    # Plugged (the port is ACTIVE) but the event not in yet: the build
    # waits in spawning.
    wait_for(lambda: [p['status'] for p in _ports(running, uuid)]
             == ['ACTIVE'], timeout=30, message='port plugged')
    shown = _show(running, uuid)
    assert (shown['status'], shown['OS-EXT-STS:task_state']) == (
        'BUILD', 'spawning')
    _wait_status(running.api, uuid, 'ACTIVE')
    assert list(_show(running, uuid)['addresses']) == ['private']
    _delete(running, uuid)


def test_boot_without_ports_waits_for_nothing(running, override):  # noqa
    override('vif_plugged_event_delay', NEVER, group='local_services')
    uuid = _boot(running, networks='none')
    _wait_status(running.api, uuid, 'ACTIVE')
    _delete(running, uuid)


def _build_events(plane, uuid):
    """[(host, result)] of the compute__do_build_and_run_instance
    events of uuid's create action."""
    actions = plane.api('GET', '/servers/%s/os-instance-actions' % uuid,
                        token=ADMIN).json()['instanceActions']
    assert [a['action'] for a in actions] == ['create']
    events = plane.api('GET', '/servers/%s/os-instance-actions/%s' % (
        uuid, actions[0]['request_id']), token=ADMIN,
        version='2.62').json()['instanceAction']['events']
    return sorted((e['host'], e['result']) for e in events
                  if e['event'] == 'compute__do_build_and_run_instance')


def test_fatal_timeout_reschedules_then_ends_in_error_with_claims_freed(
        running, override):  # noqa: F811
    """The event missing on every host of the cell: the build fails on
    each in turn (rescheduled to the alternate), then ERROR with the
    retries' fault, no host, no port, no claim."""
    override('vif_plugged_event_delay', NEVER, group='local_services')
    override('vif_plugging_timeout', 1)
    used = _vcpus_used(running)
    uuid = _boot(running)
    _wait_status(running.api, uuid, 'ERROR')
    shown = _show(running, uuid)
    assert shown['fault']['message'].startswith(
        'Exceeded maximum number of retries.'), shown['fault']
    assert shown['OS-EXT-STS:task_state'] is None
    assert shown['OS-EXT-SRV-ATTR:host'] is None
    assert _ports(running, uuid) == []
    wait_for(lambda: _vcpus_used(running) == used, timeout=30,
             message='claims freed')
    # Tried on both computes of its cell, failed on each.
    events = _build_events(running, uuid)
    assert [r for _h, r in events] == ['Error', 'Error'], events
    assert len({h for h, _r in events}) == 2, events
    _delete(running, uuid)


def test_fatal_timeout_on_one_host_builds_on_the_alternate(
        running, override):  # noqa: F811
    """The event missing on the first host (its network agent, say),
    sent for the port bound on the second: the server is ACTIVE there,
    its first host's port and claim freed."""
    override('vif_plugged_event_delay', NEVER, group='local_services')
    override('vif_plugging_timeout', 5)
    used = _vcpus_used(running)
    uuid = _boot(running)

    def plugged(but=None):
        ports = _ports(running, uuid)
        if (ports and ports[0]['status'] == 'ACTIVE'
                and ports[0]['binding:host_id'] not in ('', None, but)):
            return ports[0]
    first = wait_for(plugged, timeout=30,
                     message='plugged on the first host')['binding:host_id']
    port = wait_for(lambda: plugged(but=first), timeout=60,
                    message='rescheduled and plugged on the alternate')
    sent = running.api('POST', '/os-server-external-events', {'events': [
        {'name': 'network-vif-plugged', 'server_uuid': uuid,
         'tag': port['id'], 'status': 'completed'}]}, token=ADMIN)
    assert sent.status_code == 200, sent.text
    _wait_status(running.api, uuid, 'ACTIVE')
    second = running.host(uuid)
    assert second == port['binding:host_id'] != first
    assert len(_ports(running, uuid)) == 1
    assert _vcpus_used(running) == used + 1
    assert _build_events(running, uuid) == sorted(
        [(first, 'Error'), (second, 'Success')])
    _delete(running, uuid)


def test_timeout_not_fatal_goes_on(running, override):  # noqa: F811
    override('vif_plugged_event_delay', NEVER, group='local_services')
    override('vif_plugging_timeout', 1)
    override('vif_plugging_is_fatal', False)
    uuid = _boot(running)
    _wait_status(running.api, uuid, 'ACTIVE')
    assert [p['status'] for p in _ports(running, uuid)] == ['ACTIVE']
    _delete(running, uuid)


def test_failed_event_fails_the_build_at_once(
        running, override):  # noqa: F811
    override('vif_plugged_event_delay', NEVER, group='local_services')
    override('vif_plugging_timeout', 120)
    uuid = _boot(running)
    wait_for(lambda: [p['status'] for p in _ports(running, uuid)]
             == ['ACTIVE'], timeout=30, message='port plugged')
    port_id = _ports(running, uuid)[0]['id']
    sent = running.api('POST', '/os-server-external-events', {'events': [
        {'name': 'network-vif-plugged', 'server_uuid': uuid,
         'tag': port_id, 'status': 'failed'}]}, token=ADMIN)
    assert sent.status_code == 200, sent.text
    # Long before the 120 s timeout.
    _wait_status(running.api, uuid, 'ERROR')
    assert 'Failed to allocate the network(s)' in _show(
        running, uuid)['fault']['message']
    _delete(running, uuid)


def _unshelve_elsewhere(running, uuid, disabled):  # noqa: F811
    """Shelve (offload) uuid, unshelve it with only its host disabled
    (an unshelve stays in the server's cell)."""
    running._set_enabled(disabled, True)
    disabled[:] = [running.host(uuid)]
    running.act(uuid, {'shelve': None})
    _wait_status(running.api, uuid, 'SHELVED_OFFLOADED')
    running._set_enabled(disabled, False)
    running.act(uuid, {'unshelve': None})


def test_unshelve_to_another_host_waits_for_vif_plugged(
        running, override):  # noqa: F811
    """An offloaded server unshelved on another host: its ports are
    bound there (DOWN until plugged) and the spawn waits for their
    network-vif-plugged; missing (fatal), the unshelve fails (its event
    in error) and the server stays SHELVED_OFFLOADED."""
    uuid = running.boot(networks='auto')
    disabled = []
    try:
        override('vif_plugged_event_delay', 1.5, group='local_services')
        _unshelve_elsewhere(running, uuid, disabled)
        wait_for(lambda: _show(running, uuid)['OS-EXT-STS:task_state']
                 == 'spawning' and [p['status'] for p in _ports(
                     running, uuid)] == ['ACTIVE'], timeout=30,
                 message='plugged, event awaited')
        _wait_status(running.api, uuid, 'ACTIVE')
        assert running.host(uuid) != disabled[0]
        override('vif_plugged_event_delay', NEVER, group='local_services')
        override('vif_plugging_timeout', 1)
        _unshelve_elsewhere(running, uuid, disabled)
        wait_for(lambda: _show(running, uuid)['OS-EXT-STS:task_state']
                 is None and _show(running, uuid)['status']
                 == 'SHELVED_OFFLOADED', timeout=30,
                 message='unshelve failed')
        actions = running.api(
            'GET', '/servers/%s/os-instance-actions' % uuid,
            token=ADMIN).json()['instanceActions']
        results = []
        for action in actions:
            if action['action'] != 'unshelve':
                continue
            events = running.api(
                'GET', '/servers/%s/os-instance-actions/%s' % (
                    uuid, action['request_id']), token=ADMIN,
                version='2.84').json()['instanceAction']['events']
            results += [e['result'] for e in events
                        if e['event'] == 'compute_unshelve_instance']
        # The first unshelve succeeded, the second failed.
        assert sorted(results) == ['Error', 'Success']
    finally:
        running._set_enabled(disabled, True)
    _delete(running, uuid)


def _hard_reboot(plane, uuid):
    resp = plane.act(uuid, {'reboot': {'type': 'HARD'}})
    assert resp.status_code == 202, resp.text


def test_hard_reboot_waits_only_for_the_vnic_types_named(
        running, override):  # noqa: F811
    """As Nova's [workarounds] wait_for_vif_plugged_event_during_hard_
    reboot: empty (the default), a hard reboot waits for nothing; with
    'normal' (the embedded network service's ports), the VIFs are
    unplugged (the port DOWN), plugged again (ACTIVE) and the reboot
    waits for their network-vif-plugged."""
    uuid = running.boot(networks='auto')
    override('vif_plugged_event_delay', NEVER, group='local_services')
    _hard_reboot(running, uuid)
    running.settle(uuid, 'active')
    override('vif_plugged_event_delay', 1.5, group='local_services')
    override('wait_for_vif_plugged_event_during_hard_reboot', ['normal'],
             group='workarounds')
    _hard_reboot(running, uuid)
    wait_for(lambda: _show(running, uuid)['OS-EXT-STS:task_state']
             == 'reboot_started_hard' and [p['status'] for p in _ports(
                 running, uuid)] == ['ACTIVE'], timeout=30,
             message='plugged again, event awaited')
    running.settle(uuid, 'active')
    _delete(running, uuid)
