"""Instance actions and their events in a cell database, as plain dicts.

An *action* is one user request on an instance (create, delete, stop,
...): who asked (request_id, user_id, project_id), when (start_time,
finish_time, updated_at) and how it ended (message 'Error' once one of
its events failed). An *event* is one step of an action run by a
service (compute_stop_instance on a host): start/finish, result
('Success' / 'Error'), traceback and details of a failure.

Invariants: an action is found by (instance_uuid, request_id); an event
is written against the newest action of its request on the instance;
listing actions with their events is two statements whatever their
number (actions, then every event of them with one IN query).
"""
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.db.main import api as main_db
from nova_lite.db.main import models
from nova_lite import exception

ACTIONS = models.InstanceAction.__table__
EVENTS = models.InstanceActionEvent.__table__

ACTION_COLUMNS = ('id', 'action', 'instance_uuid', 'request_id', 'user_id',
                  'project_id', 'start_time', 'finish_time', 'message',
                  'created_at', 'updated_at')
EVENT_COLUMNS = ('id', 'event', 'action_id', 'start_time', 'finish_time',
                 'result', 'traceback', 'host', 'details', 'created_at',
                 'updated_at')
RESULT_SUCCESS = 'Success'
RESULT_ERROR = 'Error'


def _now():
    return timeutils.utcnow().replace(tzinfo=None)


def _row(row, columns):
    return dict(zip(columns, row))


def _select_actions():
    return sa.select(*[ACTIONS.c[c] for c in ACTION_COLUMNS])


def _newest_of_request(query, instance_uuid, request_id):
    """query narrowed to the newest action of request_id on the
    instance."""
    return (query.where(ACTIONS.c.instance_uuid == instance_uuid,
                        ACTIONS.c.request_id == request_id,
                        ACTIONS.c.deleted == 0)
            .order_by(ACTIONS.c.id.desc()).limit(1))


# The statements every server action runs (start, events, finish),
# built once with bound parameters: building a statement and its cache
# key costs SQLAlchemy several times what running the cached one does.
_REQUEST = {'instance_uuid': sa.bindparam('instance_uuid'),
            'request_id': sa.bindparam('request_id')}
_ACTION_OF_REQUEST = _newest_of_request(_select_actions(), **_REQUEST)
_ACTION_ID_OF_REQUEST = _newest_of_request(sa.select(ACTIONS.c.id),
                                           **_REQUEST)
# The request's newest action and its newest unfinished event of a name
# (None when it has none), in one statement.
_ACTION_AND_OPEN_EVENT = _newest_of_request(
    sa.select(ACTIONS.c.id, EVENTS.c.id).select_from(ACTIONS.outerjoin(
        EVENTS, sa.and_(EVENTS.c.action_id == ACTIONS.c.id,
                        EVENTS.c.event == sa.bindparam('event'),
                        EVENTS.c.finish_time.is_(None),
                        EVENTS.c.deleted == 0))),
    **_REQUEST).order_by(EVENTS.c.id.desc())
# Executed with {'action_id': .., column: value, ...} (and event_id):
# the columns given are the ones set.
_UPDATE_ACTION = ACTIONS.update().where(
    ACTIONS.c.id == sa.bindparam('action_id'))
_UPDATE_EVENT = EVENTS.update().where(
    EVENTS.c.id == sa.bindparam('event_id'))


def _request(instance_uuid, request_id):
    return {'instance_uuid': instance_uuid, 'request_id': request_id}


def _action_for_request(session, instance_uuid, request_id):
    row = session.execute(_ACTION_OF_REQUEST,
                          _request(instance_uuid, request_id)).first()
    if row is None:
        raise exception.InstanceActionNotFound(request_id=request_id,
                                               instance_uuid=instance_uuid)
    return _row(row, ACTION_COLUMNS)


@main_db.connection_writer
def action_start(context, values, want_result=True):
    """Insert an action (values: action, instance_uuid, request_id,
    user_id, project_id, start_time optional); returns it (None without
    want_result: one statement)."""
    session = context.connection
    now = _now()
    values = dict(values, start_time=values.get('start_time') or now,
                  created_at=now, updated_at=now, deleted=0)
    new_id = session.execute(ACTIONS.insert(), values
                             ).inserted_primary_key[0]
    if not want_result:
        return None
    return _row(session.execute(_select_actions().where(
        ACTIONS.c.id == new_id)).first(), ACTION_COLUMNS)


@main_db.connection_writer
def action_finish(context, instance_uuid, request_id, message=None):
    """Set the finish time (and message) of the request's action."""
    session = context.connection
    action = _action_for_request(session, instance_uuid, request_id)
    now = _now()
    values = {'finish_time': now, 'updated_at': now}
    if message is not None:
        values['message'] = message
    session.execute(_UPDATE_ACTION, dict(values, action_id=action['id']))
    action.update(values)
    return action


@main_db.reader
def get_action(context, instance_uuid, request_id):
    """The newest action of request_id on the instance
    (InstanceActionNotFound if none)."""
    return _action_for_request(context.session, instance_uuid, request_id)


def _action_id(session, instance_uuid, request_id):
    action_id = session.execute(_ACTION_ID_OF_REQUEST,
                                _request(instance_uuid, request_id)).scalar()
    if action_id is None:
        raise exception.InstanceActionNotFound(request_id=request_id,
                                               instance_uuid=instance_uuid)
    return action_id


@main_db.connection_writer
def event_start(context, instance_uuid, request_id, event, host=None,
                start_time=None, want_result=True):
    """Start an event of the request's action; returns it (None
    without want_result: three statements)."""
    session = context.connection
    action_id = _action_id(session, instance_uuid, request_id)
    now = _now()
    new_id = session.execute(EVENTS.insert(), dict(
        event=event, action_id=action_id, start_time=start_time or now,
        host=host, created_at=now, updated_at=now, deleted=0)
    ).inserted_primary_key[0]
    session.execute(_UPDATE_ACTION, {'action_id': action_id,
                                     'updated_at': now})
    return _get_event(session, new_id) if want_result else None


def _get_event(session, event_id):
    return _row(session.execute(sa.select(
        *[EVENTS.c[c] for c in EVENT_COLUMNS]).where(
            EVENTS.c.id == event_id)).first(), EVENT_COLUMNS)


@main_db.connection_writer
def event_finish(context, instance_uuid, request_id, event, result,
                 traceback=None, details=None, host=None, want_result=True,
                 start_time=None):
    """Finish the newest unfinished event named so of the request's
    action (starting it if it never started: at start_time, default
    now); an 'Error' result marks the action's message 'Error'. Returns
    the event (None without want_result: three statements)."""
    session = context.connection
    row = session.execute(_ACTION_AND_OPEN_EVENT, dict(
        _request(instance_uuid, request_id), event=event)).first()
    if row is None:
        raise exception.InstanceActionNotFound(request_id=request_id,
                                               instance_uuid=instance_uuid)
    action_id, event_id = row
    now = _now()
    values = dict(finish_time=now, result=result, traceback=traceback,
                  details=details, updated_at=now)
    if event_id is None:
        event_id = session.execute(EVENTS.insert(), dict(
            event=event, action_id=action_id, start_time=start_time or now,
            host=host, created_at=now, deleted=0,
            **values)).inserted_primary_key[0]
    else:
        session.execute(_UPDATE_EVENT, dict(values, event_id=event_id))
    action_values = {'updated_at': now, 'finish_time': now}
    if result.lower() == RESULT_ERROR.lower():
        action_values['message'] = RESULT_ERROR
    session.execute(_UPDATE_ACTION, dict(action_values, action_id=action_id))
    return _get_event(session, event_id) if want_result else None


@main_db.reader
def list_actions(context, instance_uuid, limit=None, marker=None,
                 changes_since=None, changes_before=None, with_events=False):
    """Actions of an instance, newest first (created_at, id); marker: the
    request_id of the action to start after (MarkerNotFound if none).
    changes_since / changes_before filter on updated_at (inclusive).
    with_events: each action carries 'events' (newest first), read with
    ONE more statement. At most two statements plus one for a marker."""
    session = context.session
    query = _select_actions().where(ACTIONS.c.instance_uuid == instance_uuid,
                                    ACTIONS.c.deleted == 0)
    if changes_since is not None:
        query = query.where(ACTIONS.c.updated_at >= changes_since)
    if changes_before is not None:
        query = query.where(ACTIONS.c.updated_at <= changes_before)
    if marker is not None:
        row = session.execute(_newest_of_request(sa.select(
            ACTIONS.c.created_at, ACTIONS.c.id), instance_uuid,
            marker)).first()
        if row is None:
            raise exception.MarkerNotFound(marker=marker)
        created, row_id = row
        query = query.where(sa.or_(
            ACTIONS.c.created_at < created,
            sa.and_(ACTIONS.c.created_at == created,
                    ACTIONS.c.id < row_id)))
    query = query.order_by(ACTIONS.c.created_at.desc(), ACTIONS.c.id.desc())
    if limit is not None:
        query = query.limit(limit)
    actions = [_row(r, ACTION_COLUMNS) for r in session.execute(query)]
    if with_events:
        attach_events(session, actions)
    return actions


def attach_events(session, actions):
    """Fill each action's 'events' (newest first) in one statement."""
    by_id = {a['id']: a for a in actions}
    for action in actions:
        action['events'] = []
    if not by_id:
        return actions
    for row in session.execute(sa.select(
            *[EVENTS.c[c] for c in EVENT_COLUMNS]).where(
                EVENTS.c.action_id.in_(list(by_id)), EVENTS.c.deleted == 0)
            .order_by(EVENTS.c.start_time.desc(), EVENTS.c.id.desc())):
        event = _row(row, EVENT_COLUMNS)
        by_id[event['action_id']]['events'].append(event)
    return actions


@main_db.reader
def get_action_with_events(context, instance_uuid, request_id):
    """The request's action with its 'events'; two statements."""
    action = _action_for_request(context.session, instance_uuid, request_id)
    return attach_events(context.session, [action])[0]


@main_db.reader
def list_events(context, action_id):
    """The events of one action, newest first."""
    return [_row(r, EVENT_COLUMNS) for r in context.session.execute(
        sa.select(*[EVENTS.c[c] for c in EVENT_COLUMNS]).where(
            EVENTS.c.action_id == action_id, EVENTS.c.deleted == 0)
        .order_by(EVENTS.c.start_time.desc(), EVENTS.c.id.desc()))]
