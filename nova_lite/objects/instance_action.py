"""InstanceAction and InstanceActionEvent: the record of what was done
to a server (GET /servers/{id}/os-instance-actions).

The API (or the super conductor, for create) starts an action in the
instance's cell under the request's id; services then add events to it
(computes through object indirection: these are remotable, so a compute
never opens the database). The request id travels with the context over
RPC, which is how a compute finds the action its event belongs to. Use
nova_lite.compute.instance_events to record events, not these methods
directly.
"""
import datetime
import traceback as tb_module

from oslo_utils import timeutils
from oslo_versionedobjects import fields

from nova_lite.db.main import instance_actions as db
from nova_lite import exception
from nova_lite.objects import base

# Action names, as the Compute API shows them.
CREATE = 'create'
DELETE = 'delete'
STOP = 'stop'
START = 'start'
REBOOT = 'reboot'
PAUSE = 'pause'
UNPAUSE = 'unpause'
SUSPEND = 'suspend'
RESUME = 'resume'
LOCK = 'lock'
UNLOCK = 'unlock'
RESET_STATE = 'resetState'
RESET_NETWORK = 'resetNetwork'
REBUILD = 'rebuild'
CREATE_IMAGE = 'createImage'
RESIZE = 'resize'
MIGRATE = 'migrate'
CONFIRM_RESIZE = 'confirmResize'
REVERT_RESIZE = 'revertResize'
ATTACH_VOLUME = 'attach_volume'
DETACH_VOLUME = 'detach_volume'
SHARE_ATTACH = 'share_attach'
SHARE_DETACH = 'share_detach'
ATTACH_INTERFACE = 'attach_interface'
ADD_FIXED_IP = 'addFixedIp'
REMOVE_FIXED_IP = 'removeFixedIp'
DETACH_INTERFACE = 'detach_interface'
SWAP_VOLUME = 'swap_volume'
TRIGGER_CRASH_DUMP = 'trigger_crash_dump'
INJECT_NETWORK_INFO = 'inject_network_info'

SHELVE = 'shelve'
SHELVE_OFFLOAD = 'shelveOffload'
UNSHELVE = 'unshelve'
RESCUE = 'rescue'
UNRESCUE = 'unrescue'
BACKUP = 'createBackup'
CHANGE_PASSWORD = 'changePassword'
RESTORE = 'restore'
FORCE_DELETE = 'forceDelete'
EVACUATE = 'evacuate'
LIVE_MIGRATION = 'live-migration'
LIVE_MIGRATION_CANCEL = 'live_migration_cancel'
LIVE_MIGRATION_FORCE_COMPLETE = 'live_migration_force_complete'

SUCCESS = db.RESULT_SUCCESS
ERROR = db.RESULT_ERROR


def start_time_value(start_time):
    """A start_time argument as the database takes it (naive UTC): it
    arrives as sent in-process (a datetime) or over a broker (its ISO
    string)."""
    if start_time is None:
        return None
    if not isinstance(start_time, datetime.datetime):
        start_time = timeutils.parse_isotime(start_time)
    return timeutils.normalize_time(start_time)


def start_time_kwargs(start_time):
    """{'start_time': start_time}, or {} for None: a call without it
    still goes to a conductor older than 1.3 (nova_lite.conductor.rpcapi
    sends a call passing start_time as 1.3)."""
    return {} if start_time is None else {'start_time': start_time}


def _set(obj, rec, context):
    for name in obj.fields:
        if name == 'deleted':
            obj.deleted = False
        elif name == 'deleted_at':
            obj.deleted_at = None
        else:
            setattr(obj, name, rec.get(name))
    obj.context = context
    obj.obj_reset_changes()
    return obj


def _list(list_cls, item_cls, recs, context):
    result = list_cls(objects=[_set(item_cls(), r, context) for r in recs])
    result.context = context
    result.obj_reset_changes()
    return result


@base.NovaLiteObjectRegistry.register
class InstanceAction(base.NovaLiteObject, base.NovaLitePersistentObject):
    # 1.0: initial
    VERSION = '1.0'

    fields = dict(base.NovaLitePersistentObject.fields, **{
        'id': fields.IntegerField(),
        'action': fields.StringField(nullable=True),
        'instance_uuid': fields.UUIDField(nullable=True),
        'request_id': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'start_time': fields.DateTimeField(nullable=True),
        'finish_time': fields.DateTimeField(nullable=True),
        'message': fields.StringField(nullable=True),
    })

    @base.remotable_classmethod
    def action_start(cls, context, instance_uuid, action_name,
                     want_result=True):
        """Start action_name on the instance under context's request id,
        user and project."""
        rec = db.action_start(context, {
            'action': action_name, 'instance_uuid': instance_uuid,
            'request_id': context.request_id, 'user_id': context.user_id,
            'project_id': context.project_id}, want_result=want_result)
        return _set(cls(), rec, context) if want_result else None

    @base.remotable_classmethod
    def action_finish(cls, context, instance_uuid, message=None,
                      want_result=True):
        """Finish context's request's action on the instance."""
        rec = db.action_finish(context, instance_uuid, context.request_id,
                               message=message)
        return _set(cls(), rec, context) if want_result else None

    @base.remotable_classmethod
    def get_by_request_id(cls, context, instance_uuid, request_id):
        return _set(cls(), db.get_action(context, instance_uuid,
                                         request_id), context)


@base.NovaLiteObjectRegistry.register
class InstanceActionList(base.ObjectListBase, base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'
    fields = {'objects': fields.ListOfObjectsField('InstanceAction')}

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid, limit=None,
                             marker=None):
        return _list(cls, InstanceAction, db.list_actions(
            context, instance_uuid, limit=limit, marker=marker), context)


@base.NovaLiteObjectRegistry.register
class InstanceActionEvent(base.NovaLiteObject,
                          base.NovaLitePersistentObject):
    # 1.0: initial
    # 1.1: event_start, event_finish and event_finish_with_failure take
    #      start_time (a start recorded late, or with the finish)
    VERSION = '1.1'

    fields = dict(base.NovaLitePersistentObject.fields, **{
        'id': fields.IntegerField(),
        'event': fields.StringField(nullable=True),
        'action_id': fields.IntegerField(nullable=True),
        'start_time': fields.DateTimeField(nullable=True),
        'finish_time': fields.DateTimeField(nullable=True),
        'result': fields.StringField(nullable=True),
        'traceback': fields.StringField(nullable=True),
        'host': fields.StringField(nullable=True),
        'details': fields.StringField(nullable=True),
    })

    @base.remotable_classmethod
    def event_start(cls, context, instance_uuid, event_name, host=None,
                    want_result=True, start_time=None):
        """Start event_name (at start_time, default now) in context's
        request's action on the instance (InstanceActionNotFound when
        there is none)."""
        rec = db.event_start(context, instance_uuid, context.request_id,
                             event_name, host=host,
                             start_time=start_time_value(start_time),
                             want_result=want_result)
        return _set(cls(), rec, context) if want_result else None

    @base.remotable_classmethod
    def event_finish(cls, context, instance_uuid, event_name, result=SUCCESS,
                     traceback=None, details=None, host=None,
                     want_result=True, start_time=None):
        """Finish event_name with result ('Success' or 'Error'); an
        error marks the action's message 'Error'. An event that was
        never started is recorded as started at start_time (default
        now)."""
        rec = db.event_finish(context, instance_uuid, context.request_id,
                              event_name, result, traceback=traceback,
                              details=details, host=host,
                              want_result=want_result,
                              start_time=start_time_value(start_time))
        return _set(cls(), rec, context) if want_result else None

    @classmethod
    def event_finish_with_failure(cls, context, instance_uuid, event_name,
                                  exc_val, exc_tb=None, host=None,
                                  want_result=True, start_time=None):
        """Finish event_name as 'Error': the traceback (shown to
        administrators) and the failure's details (its message for our
        own exceptions, else the exception's class name)."""
        details = (exc_val.format_message()
                   if isinstance(exc_val, exception.NovaLiteException)
                   else type(exc_val).__name__)
        traceback = ''.join(tb_module.format_exception(
            type(exc_val), exc_val, exc_tb)) if exc_tb is not None else None
        return cls.event_finish(context, instance_uuid, event_name,
                                result=ERROR, traceback=traceback,
                                details=details, host=host,
                                want_result=want_result,
                                **start_time_kwargs(start_time))


@base.NovaLiteObjectRegistry.register
class InstanceActionEventList(base.ObjectListBase, base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'
    fields = {'objects': fields.ListOfObjectsField('InstanceActionEvent')}

    @base.remotable_classmethod
    def get_by_action(cls, context, action_id):
        return _list(cls, InstanceActionEvent,
                     db.list_events(context, action_id), context)


# --- reads for the REST API (rows, no objects) ---------------------------

def list_records(context, instance_uuid, limit=None, marker=None,
                 changes_since=None, changes_before=None):
    """The instance's actions as rows, newest first, without events
    (nova_lite.db.main.instance_actions.list_actions)."""
    return db.list_actions(context, instance_uuid, limit=limit,
                           marker=marker, changes_since=changes_since,
                           changes_before=changes_before)


def get_record_with_events(context, instance_uuid, request_id):
    """The row of request_id's action on the instance with its events
    (InstanceActionNotFound)."""
    return db.get_action_with_events(context, instance_uuid, request_id)
