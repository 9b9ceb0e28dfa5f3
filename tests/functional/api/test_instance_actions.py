"""GET /servers/{id}/os-instance-actions[/{request_id}] at the
microversions that change it, by persona, on actions written into the
cells (the record the services write is tested on the running plane in
test_instance_actions_flow.py)."""
import pytest

from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.main import api as main_db
from nova_lite.db.main import instances as cell_rows
from nova_lite.objects import instance_action
from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import MEMBER
from tests.functional.api import server_fixtures as sf
from tests.functional.db.flavor_helpers import QueryCounter

OTHER = {'X-Auth-Token': 'eve:project-b'}


@pytest.fixture
def env(seeded):
    return seeded.env


@pytest.fixture
def server(env):
    return sf.add_server(env, 'cell1', sf.flavor(env.ctxt, 'small'),
                         host='c1-host1')


def record(env, uuid, request_id, action, events=(), cell='cell1',
           user='bob', project='project-a'):
    """An action of request_id with events [(name, ok)], as the API and
    a compute would write them.

    seeded: the checks need failed events with tracebacks (no API call
    makes the fake driver fail), chosen request ids, and 30 actions for
    the statement count; the records the running services write are
    checked in test_instance_actions_flow.py."""
    ctxt = nova_context.RequestContext(user_id=user, project_id=project,
                                       request_id=request_id)
    with nova_context.target_cell(ctxt, env.cells[cell]) as cctxt:
        instance_action.InstanceAction.action_start(cctxt, uuid, action)
        for name, ok in events:
            event = instance_action.InstanceActionEvent
            event.event_start(cctxt, uuid, name, host='c1-host1')
            if ok:
                event.event_finish(cctxt, uuid, name, host='c1-host1')
            else:
                try:
                    raise ValueError('the disk fell off')
                except ValueError as exc:
                    event.event_finish_with_failure(
                        cctxt, uuid, name, exc, exc.__traceback__,
                        host='c1-host1')


def get(app, path, version='2.1', token=ADMIN, status=200):
    return app.get('/v2.1' + path, headers=headers(version, token),
                   status=status)


def test_list_and_show_at_21(app, env, server):
    record(env, server, 'req-1', 'create',
           [('compute__do_build_and_run_instance', True)])
    record(env, server, 'req-2', 'stop', [('compute_stop_instance', False)])
    listed = get(app, '/servers/%s/os-instance-actions' % server,
                 token=MEMBER).json['instanceActions']
    assert [a['request_id'] for a in listed] == ['req-2', 'req-1']
    assert set(listed[0]) == {'action', 'instance_uuid', 'request_id',
                              'user_id', 'project_id', 'start_time',
                              'message'}
    assert listed[0]['message'] == 'Error' and listed[1]['message'] is None
    # Before 2.51 only the events policy (administrators) shows events.
    shown = get(app, '/servers/%s/os-instance-actions/req-2' % server,
                token=MEMBER).json['instanceAction']
    assert 'events' not in shown
    shown = get(app, '/servers/%s/os-instance-actions/req-2' % server,
                version='2.50').json['instanceAction']
    [event] = shown['events']
    assert event['event'] == 'compute_stop_instance'
    assert event['result'] == 'Error'
    assert 'the disk fell off' in event['traceback']
    assert set(event) == {'event', 'start_time', 'finish_time', 'result',
                          'traceback'}


def test_events_by_version_and_persona(app, env, server):
    record(env, server, 'req-1', 'stop', [('compute_stop_instance', False)])
    path = '/servers/%s/os-instance-actions/req-1' % server

    def event(version, token):
        return get(app, path, version, token).json['instanceAction'][
            'events'][0]
    assert set(event('2.51', MEMBER)) == {'event', 'start_time',
                                          'finish_time', 'result'}
    assert set(event('2.62', MEMBER)) == {'event', 'start_time',
                                          'finish_time', 'result', 'hostId'}
    admin = event('2.62', ADMIN)
    assert admin['host'] == 'c1-host1' and admin['hostId']
    assert admin['hostId'] == event('2.62', MEMBER)['hostId']
    assert 'details' not in event('2.84', MEMBER)
    assert event('2.84', ADMIN)['details'] == 'ValueError'
    assert 'details' not in event('2.83', ADMIN)
    # Another project may not look.
    get(app, path, token=OTHER, status=404)
    get(app, '/servers/%s/os-instance-actions' % server, token=OTHER,
        status=404)
    get(app, '/servers/%s/os-instance-actions/nosuch' % server, status=404)


def test_updated_at_and_paging_from_258(app, env, server):
    for i in range(5):
        record(env, server, 'req-%d' % i, 'reboot')
    path = '/servers/%s/os-instance-actions' % server
    assert 'updated_at' not in get(app, path, '2.57').json[
        'instanceActions'][0]
    # Before 2.58 the query string is not read.
    assert len(get(app, path + '?limit=1&foo=1', '2.57').json[
        'instanceActions']) == 5
    page = get(app, path + '?limit=2', '2.58').json
    assert [a['request_id'] for a in page['instanceActions']] == [
        'req-4', 'req-3']
    assert page['links'][0]['rel'] == 'next'
    assert page['links'][0]['href'].endswith(
        '/servers/%s/os-instance-actions?limit=2&marker=req-3' % server)
    page = get(app, path + '?limit=2&marker=req-3', '2.58').json
    assert [a['request_id'] for a in page['instanceActions']] == [
        'req-2', 'req-1']
    last = get(app, path + '?marker=req-1', '2.58').json
    assert [a['request_id'] for a in last['instanceActions']] == ['req-0']
    assert 'links' not in last
    assert 'Marker' in get(app, path + '?marker=nosuch', '2.58',
                           status=400).json['badRequest']['message']
    get(app, path + '?foo=1', '2.58', status=400)
    get(app, path + '?limit=-1', '2.58', status=400)
    get(app, path + '?changes-since=yesterday', '2.58', status=400)
    # changes-before only from 2.66.
    get(app, path + '?changes-before=2026-01-01T00:00:00Z', '2.65',
        status=400)


def test_changes_since_and_before(app, env, server):
    record(env, server, 'req-old', 'stop')
    path = '/servers/%s/os-instance-actions' % server
    old = get(app, path, '2.66').json['instanceActions'][0]['updated_at']
    record(env, server, 'req-new', 'start')
    new = [a for a in get(app, path, '2.66').json['instanceActions']
           if a['request_id'] == 'req-new'][0]['updated_at']
    assert new > old

    def ids(query, version='2.66'):
        return [a['request_id'] for a in get(
            app, path + query, version).json['instanceActions']]
    assert ids('?changes-since=%s' % new, '2.58') == ['req-new']
    assert ids('?changes-before=%s' % old) == ['req-old']
    assert ids('?changes-since=%s&changes-before=%s' % (old, new)) == [
        'req-new', 'req-old']
    get(app, path + '?changes-since=%s&changes-before=%s' % (new, old),
        '2.66', status=400)


def test_deleted_servers_actions_from_221(app, env, server):
    record(env, server, 'req-1', 'create')
    record(env, server, 'req-2', 'delete')
    with nova_context.target_cell(env.ctxt, env.cells['cell1']) as cctxt:
        cell_rows.soft_delete(cctxt, server)
    path = '/servers/%s/os-instance-actions' % server
    get(app, path, '2.20', token=MEMBER, status=404)
    listed = get(app, path, '2.21', token=MEMBER).json['instanceActions']
    assert [a['action'] for a in listed] == ['delete', 'create']
    get(app, path + '/req-2', '2.21', token=MEMBER)


def test_list_and_show_statements_do_not_grow(app, env, server):
    def statements(path):
        engines = api_db.get_engines()
        with nova_context.target_cell(env.ctxt, env.cells['cell1']) as cc:
            engines.extend(main_db.get_engines(cc))
        with QueryCounter(*engines) as counter:
            get(app, path, '2.84')
        return counter.count

    path = '/servers/%s/os-instance-actions' % server
    record(env, server, 'req-0', 'reboot', [('compute_reboot_instance',
                                             True)])
    few = statements(path), statements(path + '/req-0')
    for i in range(1, 30):
        record(env, server, 'req-%d' % i, 'reboot',
               [('compute_reboot_instance', True), ('other', False)])
    many = statements(path), statements(path + '/req-7')
    assert few == many, (few, many)
    assert len(get(app, path).json['instanceActions']) == 30
