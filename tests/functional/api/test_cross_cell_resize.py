"""Cross-cell resize through the REST API on one running two-cell plane
(policy compute:servers:resize:cross_cell opened): an image-backed and a
volume-backed server resized into the other cell keep their UUID,
addresses and volumes; VERIFY_RESIZE with the mapping in the target
cell and exactly one visible copy; confirm; revert (also when the
source host filled up meanwhile); delete in VERIFY_RESIZE; the gate
closed (policy '!', an old compute recorded); actions continuous."""
import time

from oslo_utils import timeutils
import requests
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models
from nova_lite.network import api as network_api
from nova_lite import objects
from nova_lite.objects import service_version
from tests.functional.api.cross_cell_helpers import HOST
from tests.functional.api.cross_cell_helpers import xplane  # noqa: F401
from tests.functional.api.resize_helpers import guests
from tests.functional.api.resize_helpers import held
from tests.functional.api.resize_helpers import migration_of
from tests.functional.api.resize_helpers import wait_migration
from tests.functional.api.test_servers_boot import _server
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_volumes import _image_to_volume
from tests.functional.api.test_volumes import Volumes
from tests.functional.conftest import wait_for
from tests.functional.notification_fixtures import Collector

SMALL = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 1}
MEDIUM = {'VCPU': 2, 'MEMORY_MB': 1024, 'DISK_GB': 2}


def _addresses(server):
    return sorted(a['addr'] for net in server['addresses'].values()
                  for a in net)


def _actions(xp, uuid):
    body = xp.api('GET', '/servers/%s/os-instance-actions' % uuid,
                  version='2.21', token=ADMIN).json()
    return sorted(a['action'] for a in body['instanceActions'])


def _events(xp, uuid, action):
    body = xp.api('GET', '/servers/%s/os-instance-actions' % uuid,
                  version='2.21', token=ADMIN).json()
    req = [a['request_id'] for a in body['instanceActions']
           if a['action'] == action][0]
    body = xp.api('GET', '/servers/%s/os-instance-actions/%s' % (uuid, req),
                  version='2.21', token=ADMIN).json()
    return sorted(e['event'] for e in body['instanceAction']['events'])


def test_image_backed_resize_to_the_other_cell_and_confirm(
        xplane):  # noqa: F811
    xp = xplane
    uuid = xp.boot(cell='cell1', networks='auto')
    before = xp.show(uuid)
    source = before[HOST]
    server = xp.resize_into(uuid, 'cell2')
    dest = server[HOST]
    assert dest.startswith('cell2-') and server['id'] == uuid
    assert server['flavor']['original_name'] == 'medium'
    assert _addresses(server) == _addresses(before) != []
    assert xp.mapped_cell(uuid) == 'cell2'
    assert xp.copies(uuid) == {'cell1': True, 'cell2': False}
    migration = migration_of(uuid)
    assert held(migration['uuid']) == {source: SMALL}
    assert held(uuid) == {dest: MEDIUM}
    assert guests(xp.plane, source) == [uuid + '_resize']
    assert guests(xp.plane, dest) == [uuid]
    # The ports are active at the destination, still bound (inactive)
    # at the source until the confirm.
    assert xp.bound(uuid) == sorted([(dest, 'ACTIVE'), (source, 'INACTIVE')])
    ports = network_api.API().get_ports(xp.ctxt, device_id=uuid)
    assert {p['binding:host_id'] for p in ports} == {dest}
    # Down while their binding moved, plugged again at the destination.
    assert [p['status'] for p in ports] == ['ACTIVE'] * len(ports) != []
    # No snapshot image is left behind.
    images = xp.api('GET', '/images', token=ADMIN).json()['images']
    assert not [i for i in images if 'resize-snapshot' in i['name']]
    assert _actions(xp, uuid) == ['create', 'resize']
    events = _events(xp, uuid, 'resize')
    for name in ('compute_prep_snapshot_based_resize_at_dest',
                 'compute_prep_snapshot_based_resize_at_source',
                 'compute_finish_snapshot_based_resize_at_dest',
                 'conductor_migrate_server'):
        assert name in events, events
    xp.act(uuid, {'confirmResize': None}, status=204)
    server = xp.wait_status(uuid, 'ACTIVE')
    assert server[HOST] == dest
    wait_for(lambda: xp.copies(uuid) == {'cell2': False}, timeout=30,
             message='source copy gone')
    assert wait_migration(uuid, 'confirmed')
    assert held(migration['uuid']) == {}
    assert held(uuid) == {dest: MEDIUM}
    assert guests(xp.plane, source) == []
    assert xp.bound(uuid) == [(dest, 'ACTIVE')]
    assert _actions(xp, uuid) == ['confirmResize', 'create', 'resize']
    xp.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    xp.gone(uuid)
    assert network_api.API().get_ports(xp.ctxt, device_id=uuid) == []


def _shown_hosts(xp, uuid):
    """binding:host_id of the server's ports as the read-only Neutron
    API at /networking shows them."""
    resp = requests.get(
        xp.plane.endpoint + '/networking/v2.0/ports?device_id=' + uuid,
        headers={'X-Auth-Token': ADMIN}, timeout=30)
    assert resp.status_code == 200, resp.text
    return {p['binding:host_id'] for p in resp.json()['ports']}


def _hold(method, host, seconds):
    """[fake_driver] delay_methods: method sleeps on host."""
    CONF.set_override('delay_methods', {'%s@%s' % (method, host): seconds},
                      group='fake_driver')


def _release():
    CONF.clear_override('delay_methods', group='fake_driver')


def test_port_bindings_at_each_stage_of_a_move_and_its_revert(
        xplane):  # noqa: F811
    """After prep at the destination the ports carry an INACTIVE
    binding there beside the source's ACTIVE one; finish activates the
    destination's; a revert deletes it and the source's is ACTIVE
    again."""
    xp = xplane
    uuid = xp.boot(cell='cell1', networks='auto')
    source = xp.host(uuid)
    assert xp.bound(uuid) == [(source, 'ACTIVE')]
    # Hold the move in prep at the source (after prep at the
    # destination): power_off of the source guest sleeps.
    _hold('power_off', source, 8)
    try:
        others = xp.hosts_of('cell1')
        xp._set_enabled(others, False)
        try:
            xp.act(uuid, {'resize': {'flavorRef': 'medium'}})
            wait_for(lambda: (migration_of(uuid) or {}).get('status') in
                     ('migrating', 'post-migrating', 'finished'),
                     timeout=30, message='prep at the source')
            during = xp.bound(uuid)
            shown_during = _shown_hosts(xp, uuid)
        finally:
            xp._set_enabled(others, True)
        server = xp.wait_status(uuid, 'VERIFY_RESIZE')
    finally:
        _release()
    dest = server[HOST]
    assert during == sorted([(dest, 'INACTIVE'), (source, 'ACTIVE')]), \
        during
    # The ACTIVE binding's host is the one the port shows.
    assert shown_during == {source}
    assert xp.bound(uuid) == sorted([(dest, 'ACTIVE'), (source, 'INACTIVE')])
    assert _shown_hosts(xp, uuid) == {dest}
    xp.act(uuid, {'revertResize': None})
    xp.wait_status(uuid, 'ACTIVE')
    assert wait_migration(uuid, 'reverted')
    assert xp.bound(uuid) == [(source, 'ACTIVE')]
    assert _shown_hosts(xp, uuid) == {source}
    xp.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    xp.gone(uuid)


def test_volume_backed_resize_keeps_its_volume_then_reverts(
        xplane):  # noqa: F811
    xp = xplane
    uuid = xp.boot(cell='cell2', imageRef='', flavorRef='small',
                   block_device_mapping_v2=[_image_to_volume()])
    source = xp.host(uuid)
    attached = xp.show(uuid, version='2.79')[
        'os-extended-volumes:volumes_attached']
    assert len(attached) == 1
    server = xp.resize_into(uuid, 'cell1')
    dest = server[HOST]
    assert dest.startswith('cell1-')
    assert xp.show(uuid, version='2.79')[
        'os-extended-volumes:volumes_attached'] == attached
    # A volume-backed server claims no root disk.
    assert held(uuid) == {dest: {'VCPU': 2, 'MEMORY_MB': 1024}}
    migration = migration_of(uuid)
    # A volume attached in VERIFY_RESIZE stays attached after a revert.
    volumes = Volumes(xp.plane.endpoint)
    data = volumes.create(size=1, name='data')
    path = '/servers/%s/os-volume_attachments' % uuid
    response = xp.api('POST', path, {'volumeAttachment': {
        'volumeId': data['id']}}, version='2.79')
    assert response.status_code == 200, response.text
    volumes.wait(data['id'], 'in-use')
    xp.act(uuid, {'revertResize': None})
    server = xp.wait_status(uuid, 'ACTIVE')
    assert server[HOST] == source
    assert server['flavor']['original_name'] == 'small'
    assert xp.mapped_cell(uuid) == 'cell2'
    assert sorted(a['volumeId'] for a in xp.api('GET', path).json()[
        'volumeAttachments']) == sorted([attached[0]['id'], data['id']])
    assert volumes.status(data['id']) == 'in-use'
    assert [a['server_id'] for a in volumes.get(data['id']).json()[
        'volume']['attachments']] == [uuid]
    wait_for(lambda: xp.copies(uuid) == {'cell2': False}, timeout=30,
             message='target copy gone')
    assert wait_migration(uuid, 'reverted')
    assert held(uuid) == {source: {'VCPU': 1, 'MEMORY_MB': 512}}
    assert held(migration['uuid']) == {}
    assert guests(xp.plane, source) == [uuid]
    assert guests(xp.plane, dest) == []
    assert _actions(xp, uuid) == ['attach_volume', 'create', 'resize',
                                  'revertResize']
    xp.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    xp.gone(uuid)


def _free_disk(xp, host):
    body = xp.api('GET', '/os-hypervisors/detail', token=ADMIN).json()
    node = [h for h in body['hypervisors']
            if h['hypervisor_hostname'] == host][0]
    return node['local_gb'] - node['local_gb_used']


def test_revert_succeeds_when_the_source_filled_up(xplane):  # noqa: F811
    xp = xplane
    uuid = xp.boot(cell='cell1')
    source = xp.host(uuid)
    dest = xp.resize_into(uuid, 'cell2')[HOST]
    # Fill the source: what is left after the migration's hold.
    free = _free_disk(xp, source)
    assert xp.api('POST', '/flavors', {'flavor': {
        'name': 'filler', 'id': 'filler', 'ram': 256, 'vcpus': 1,
        'disk': free}}, token=ADMIN).status_code == 200
    created = xp.api('POST', '/servers', _server(
        'filler', flavorRef='filler', availability_zone='nova:%s' % source),
        version='2.37', token=ADMIN)
    assert created.status_code == 202, created.text
    filler = created.json()['server']['id']
    xp.wait_status(filler, 'ACTIVE')
    assert xp.host(filler) == source and _free_disk(xp, source) == 0
    xp.act(uuid, {'revertResize': None})
    server = xp.wait_status(uuid, 'ACTIVE')
    assert server[HOST] == source
    assert held(uuid) == {source: SMALL}
    assert guests(xp.plane, dest) == []
    for server_id in (uuid, filler):
        xp.api('DELETE', '/servers/%s' % server_id, token=ADMIN)
        xp.gone(server_id)


def test_delete_in_verify_resize_cleans_both_cells(xplane):  # noqa: F811
    xp = xplane
    uuid = xp.boot(cell='cell2', networks='auto')
    source = xp.host(uuid)
    port_ids = [p['id'] for p in network_api.API().get_ports(
        xp.ctxt, device_id=uuid)]
    dest = xp.resize_into(uuid, 'cell1')[HOST]
    assert len(xp.binding_rows(port_ids)) == 2 * len(port_ids) > 0
    migration = migration_of(uuid)
    assert xp.api('DELETE', '/servers/%s' % uuid,
                  token=ADMIN).status_code == 204
    xp.gone(uuid)
    wait_for(lambda: xp.copies(uuid) == {} and held(uuid) == {} and
             held(migration['uuid']) == {} and
             guests(xp.plane, source) == [] and
             guests(xp.plane, dest) == [], timeout=30,
             message='nothing left of %s' % uuid)
    assert network_api.API().get_ports(xp.ctxt, device_id=uuid) == []
    assert xp.binding_rows(port_ids) == []


def _stays_in_cell(xp, uuid):
    """A resize with the source cell's other compute the only host
    there: it goes there (no error), not to the other cell."""
    source = xp.host(uuid)
    cell = source.split('-')[0]
    server = xp.resize_into(uuid, cell)
    assert server[HOST].startswith(cell + '-') and server[HOST] != source
    assert migration_of(uuid)['cross_cell_move'] is False or \
        not migration_of(uuid)['cross_cell_move']
    xp.act(uuid, {'revertResize': None})
    xp.wait_status(uuid, 'ACTIVE')


def test_the_gate_keeps_a_resize_in_its_cell(xplane):  # noqa: F811
    xp = xplane
    uuid = xp.boot(cell='cell1')
    # Policy closed (the default, '!').
    xp.set_policy({})
    try:
        _stays_in_cell(xp, uuid)
    finally:
        xp.set_policy({'compute:servers:resize:cross_cell': '@'})
    # A compute at service version 10 in some cell.
    cell = [c for c in objects.CellMappingList.get_all(xp.ctxt)
            if c.name == 'cell2'][0]
    table = models.Service.__table__
    with nova_context.target_cell(xp.ctxt, cell) as cctxt:
        engine = main_db.get_engine(cctxt)
    with engine.begin() as conn:
        conn.execute(sa.insert(table).values(
            host='cell2-old', binary='nova-compute', topic='compute',
            report_count=0, disabled=True, version=10, deleted=0,
            forced_down=False, created_at=timeutils.utcnow()))
    service_version.reset_min_version_cache()
    try:
        _stays_in_cell(xp, uuid)
    finally:
        with engine.begin() as conn:
            conn.execute(sa.delete(table).where(table.c.host == 'cell2-old'))
        service_version.reset_min_version_cache()
    xp.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    xp.gone(uuid)


def test_notifications_and_actions_follow_the_move(xplane):  # noqa: F811
    xp = xplane
    CONF.set_override('notify_on_state_change', 'vm_and_task_state',
                      group='notifications')
    notifications = Collector().start()
    try:
        uuid = xp.boot(cell='cell1')
        source = xp.host(uuid)
        dest = xp.resize_into(uuid, 'cell2')[HOST]
        xp.act(uuid, {'revertResize': None})
        xp.wait_status(uuid, 'ACTIVE')
        notifications.wait_for(uuid, 'instance.resize_revert.end')
    finally:
        notifications.stop()
        CONF.clear_override('notify_on_state_change',
                            group='notifications')
    names = [n['event_type'] for n in notifications.about(uuid)
             if n['event_type'] != 'instance.update']
    moved = names[names.index('instance.exists'):]
    assert moved == [
        'instance.exists', 'instance.resize_prep.start',
        'instance.resize_prep.end', 'instance.resize.start',
        'instance.resize.end', 'instance.resize_finish.start',
        'instance.resize_finish.end', 'instance.resize_revert.start',
        'instance.resize_revert.end']
    publishers = {n['event_type']: n['publisher_id']
                  for n in notifications.about(uuid)}
    # Each from the cell (the host) where its step runs.
    assert publishers['instance.resize_prep.start'] == \
        'nova-compute:%s' % dest
    assert publishers['instance.resize.start'] == \
        'nova-compute:%s' % source
    assert publishers['instance.resize_finish.end'] == \
        'nova-compute:%s' % dest
    assert publishers['instance.resize_revert.end'] == \
        'nova-compute:%s' % source
    # ... with the flavor the server has at that moment (as same-cell).
    flavors = {n['event_type']: n['payload']['nova_object.data']['flavor'][
        'nova_object.data']['name'] for n in notifications.about(uuid)
        if n['event_type'] != 'instance.update'}
    old, new = flavors['instance.resize.start'], \
        flavors['instance.resize_finish.start']
    assert old != new
    assert flavors['instance.resize_finish.end'] == new
    assert flavors['instance.resize_revert.end'] == old
    states = [(u['payload']['nova_object.data']['state_update'][
        'nova_object.data']['new_task_state'])
        for u in notifications.about(uuid, 'instance.update')]
    for task in ('resize_prep', 'resize_migrating', 'resize_migrated',
                 'resize_finish', 'resize_reverting'):
        assert task in states, states
    # The actions stayed continuous across both moves.
    assert _actions(xp, uuid) == ['create', 'resize', 'revertResize']
    assert _events(xp, uuid, 'resize') == [
        'compute_finish_snapshot_based_resize_at_dest',
        'compute_prep_snapshot_based_resize_at_dest',
        'compute_prep_snapshot_based_resize_at_source',
        'conductor_migrate_server']
    assert _events(xp, uuid, 'revertResize') == [
        'compute_finish_revert_snapshot_based_resize_at_source',
        'compute_revert_snapshot_based_resize_at_dest',
        'conductor_revert_snapshot_based_resize']
    xp.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    xp.gone(uuid)


def test_a_stopped_server_moves_shut_off_and_stays_so(xplane):  # noqa: F811
    xp = xplane
    uuid = xp.boot(cell='cell2')
    xp.reach(uuid, 'stopped')
    server = xp.resize_into(uuid, 'cell1')
    assert server['OS-EXT-STS:power_state'] == 4
    assert server[HOST].startswith('cell1-')
    xp.act(uuid, {'confirmResize': None}, status=204)
    server = xp.wait_status(uuid, 'SHUTOFF')
    assert server['flavor']['original_name'] == 'medium'
    xp.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    xp.gone(uuid)


def test_auto_confirm_of_a_cross_cell_resize_is_the_super_conductors(
        xplane):  # noqa: F811
    """[DEFAULT] resize_confirm_window: the target cell's conductor
    leaves a cross-cell move alone (its source is out of its transport's
    reach); the super conductor's periodic task confirms it."""
    from nova_lite.conductor import manager as conductor_manager
    from nova_lite.conductor import resize_confirm
    xp = xplane
    uuid = xp.boot(cell='cell1')
    xp.resize_into(uuid, 'cell2')
    migration = migration_of(uuid)
    CONF.set_override('resize_confirm_window', 1)
    try:
        ctxt = nova_context.get_admin_context()
        time.sleep(2.5)     # the window passes
        cell2 = [c for c in objects.CellMappingList.get_all(ctxt)
                 if c.name == 'cell2'][0]
        with nova_context.target_cell(ctxt, cell2) as cctxt:
            assert resize_confirm.confirm_old_resizes(cctxt) == []
        assert migration_of(uuid)['status'] == 'finished'
        tasks = conductor_manager.ComputeTaskManager()
        assert resize_confirm.confirm_old_cross_cell_resizes(
            ctxt, tasks.confirm_snapshot_based_resize) == [uuid]
    finally:
        CONF.clear_override('resize_confirm_window')
    server = xp.wait_status(uuid, 'ACTIVE')
    assert server[HOST].startswith('cell2-')
    assert wait_migration(uuid, 'confirmed')
    wait_for(lambda: xp.copies(uuid) == {'cell2': False}, timeout=30,
             message='source copy gone')
    assert held(migration['uuid']) == {}
    assert _actions(xp, uuid) == ['confirmResize', 'create', 'resize']
    xp.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    xp.gone(uuid)


def _member(xp, group, host, flavor='small'):
    """A server of the admin's project ACTIVE on host (forced), in
    group (None: in none)."""
    body = _server('m', flavorRef=flavor, availability_zone='nova:' + host)
    if group:
        body['os:scheduler_hints'] = {'group': group}
    created = xp.api('POST', '/servers', body, version='2.37', token=ADMIN)
    assert created.status_code == 202, created.text
    uuid = created.json()['server']['id']
    assert xp.wait_status(uuid, 'ACTIVE')[HOST] == host
    return uuid


def test_cross_cell_resize_keeps_anti_affinity(xplane):  # noqa: F811
    """A member of an anti-affinity group resized into the other cell
    goes to the host of that cell without a member, though the weighers
    prefer the member's (more free); resized back into a cell whose
    every host has a member, it fails (no valid host) and stays."""
    xp = xplane
    group = xp.api('POST', '/os-server-groups', {'server_group': {
        'name': 'apart', 'policies': ['anti-affinity']}},
        token=ADMIN).json()['server_group']['id']
    mover = _member(xp, group, 'cell1-compute1')
    member = _member(xp, group, 'cell2-compute1')
    # Not a member: makes cell2-compute2 the weighers' second choice.
    filler = _member(xp, None, 'cell2-compute2', flavor='large')
    server = xp.resize_into(mover, 'cell2', token=ADMIN)
    assert server[HOST] == 'cell2-compute2'
    assert xp.mapped_cell(mover) == 'cell2'
    xp.act(mover, {'confirmResize': None}, token=ADMIN, status=204)
    assert xp.wait_status(mover, 'ACTIVE')[HOST] == 'cell2-compute2'
    # Every host of cell1 gets a member: no move into it keeps the
    # policy.
    others = [_member(xp, group, host)
              for host in ('cell1-compute1', 'cell1-compute2')]
    before = migration_of(mover)['uuid']
    cell2 = xp.hosts_of('cell2')
    xp._set_enabled(cell2, False)
    try:
        xp.act(mover, {'resize': {'flavorRef': 'large'}}, token=ADMIN)
        migration = wait_for(
            lambda: migration_of(mover)['uuid'] != before
            and migration_of(mover)['status'] == 'error'
            and migration_of(mover), timeout=60, message='resize refused')
    finally:
        xp._set_enabled(cell2, True)
    server = xp.wait_status(mover, 'ACTIVE')
    assert server[HOST] == 'cell2-compute2'
    assert server['flavor']['original_name'] == 'medium'
    assert xp.mapped_cell(mover) == 'cell2'
    assert xp.copies(mover) == {'cell2': False}
    assert held(mover) == {'cell2-compute2': MEDIUM}
    assert held(migration['uuid']) == {}
    # As a racing scheduler would: the group filters off, the scheduler
    # picks a member's host of cell1; each destination's late check
    # refuses it (the alternates too) and the server stays.
    CONF.set_override('enabled_filters', ['ComputeFilter'],
                      group='filter_scheduler')
    xp._set_enabled(cell2, False)
    try:
        xp.act(mover, {'resize': {'flavorRef': 'large'}}, token=ADMIN)
        late = wait_for(
            lambda: migration_of(mover)['uuid'] != migration['uuid']
            and migration_of(mover)['status'] == 'error'
            and migration_of(mover), timeout=60, message='late check')
    finally:
        xp._set_enabled(cell2, True)
        CONF.clear_override('enabled_filters', group='filter_scheduler')
    server = xp.wait_status(mover, 'ACTIVE')
    assert server[HOST] == 'cell2-compute2'
    assert xp.mapped_cell(mover) == 'cell2'
    assert xp.copies(mover) == {'cell2': False}
    assert held(mover) == {'cell2-compute2': MEDIUM}
    assert held(late['uuid']) == {}
    newest = xp.api('GET', '/servers/%s/os-instance-actions' % mover,
                    token=ADMIN).json()['instanceActions'][0]
    events = xp.api('GET', '/servers/%s/os-instance-actions/%s' % (
        mover, newest['request_id']), version='2.51',
        token=ADMIN).json()['instanceAction']['events']
    assert any('InstanceGroupPolicyViolated' in (e.get('traceback') or '')
               for e in events), events
    assert [list(held(u)) for u in others] == [['cell1-compute1'],
                                               ['cell1-compute2']]
    for uuid in [mover, member, filler] + others:
        xp.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
    for uuid in [mover, member, filler] + others:
        xp.gone(uuid)
