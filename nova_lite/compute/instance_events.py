"""Recording what a service does to an instance as events of the user's
action (GET /servers/{id}/os-instance-actions).

The API starts the action (``record_action`` below, or
``objects.InstanceAction.action_start``) in the instance's cell before it
casts; the service that does the work records its steps as events of
that action. The request id travels with the context, so the event
lands in the right action. Two ways, pick the one that reads best:

    class PowerTasks(object):     # a part of the ComputeManager
        # recorded as event 'compute_stop_instance'
        @instance_events.wrap_instance_event(prefix='compute')
        def stop_instance(self, context, instance):
            ...

    with instance_events.EventReporter(context, 'compute_rebuild_image',
                                       self.host, instance.uuid):
        ...   # one step of a longer method

An exception leaving the block finishes the event as 'Error' (with the
traceback, shown to administrators only, and details) and marks the
action's message 'Error'; the exception goes on (a BaseException that
is no Exception -- the process or green thread going away -- leaves the
event unfinished, as a kill would). Recording never makes
the work fail: a missing action (work not started by a user request,
e.g. a restart's recovery) or a database hiccup is logged and ignored.
Adding a new action: call record_action() in the API-side function
before its cast, and wrap the compute service's method as above.

A quick action's start is recorded with its finish (defer_start=True,
wrap_instance_event(..., pass_event=True)): the server actions end in
one save of the state they reach (save_and_finish), and the event's
start goes into that same call to the cell conductor, with the time the
work started, instead of a call of its own before the work. An action
still running after START_DEFERRAL seconds has its start recorded then,
so `openstack server event show` shows a long stop in progress as Nova
does, half a second late; a process killed within that half second
leaves no event (a kill after it leaves it unfinished, as in Nova).
Moves, builds and the other long work record their start first.
"""
import functools
import threading

import eventlet
from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import exception
from nova_lite.objects import base as obj_base
from nova_lite.objects import instance_action

LOG = logging.getLogger(__name__)
Event = instance_action.InstanceActionEvent
# Seconds a deferred start waits for its finish before it is recorded on
# its own.
START_DEFERRAL = 0.5


def record_action(context, instance, action):
    """Start ``action`` (an instance_action name) on ``instance``, whose
    context is targeted at its cell, under context's request id."""
    instance_action.InstanceAction.action_start(
        context, instance.uuid, action, want_result=False)


class EventReporter(object):
    """Context manager: event ``event_name`` of the current request's
    action on each of ``instance_uuids``, started on entry and finished
    on exit (Success, or Error with the exception)."""

    def __init__(self, context, event_name, host, *instance_uuids,
                 defer_start=False):
        self.context = context
        self.event_name = event_name
        self.host = host
        self.instance_uuids = instance_uuids
        self._failure = None
        self._finished = False
        self._defer = defer_start and len(instance_uuids) == 1
        # While the start is deferred: the time the work started (None
        # once recorded or taken by the finish), the timer that records
        # it late, and the lock that orders the two.
        self._start_time = None
        self._timer = None
        self._lock = None

    def save_and_finish(self, instance, expected_task_state=None):
        """instance.save(expected_task_state=...) as the block's last
        write, with this event finished (Success) in the same cell
        transaction: one call to the cell conductor instead of two,
        where it runs Instance.save_and_finish_event (conductor RPC 1.2;
        else the event finishes on exit as usual). Raises what save
        raises; then nothing was written and the event finishes on exit.
        """
        if (self._finished or self.instance_uuids != (instance.uuid,)
                or not _runs_save_and_finish(instance)):
            instance.save(expected_task_state=expected_task_state)
            return
        start_time = self._take_start_time()
        kwargs = instance_action.start_time_kwargs(start_time)
        try:
            instance.save_and_finish_event(
                self.event_name, host=self.host,
                expected_task_state=expected_task_state, **kwargs)
        except exception.InstanceActionNotFound:
            # Work no user request started: no event to finish.
            instance.save(expected_task_state=expected_task_state)
            return
        except Exception:
            # Nothing written: the exit finishes the event, from then.
            self._start_time = start_time
            raise
        self._finished = True

    def _record(self, method, uuid, *args, **kwargs):
        try:
            method(self.context, uuid, self.event_name, *args,
                   host=self.host, want_result=False, **kwargs)
        except exception.InstanceActionNotFound:
            LOG.debug('No action of request %s on %s: event %s not '
                      'recorded', getattr(self.context, 'request_id', None),
                      uuid, self.event_name)
        except Exception:
            LOG.exception('Could not record event %s of %s',
                          self.event_name, uuid)

    def __enter__(self):
        if self._defer and _takes_start_time(self.context):
            self._start_time = timeutils.utcnow()
            self._lock = threading.Lock()
            self._timer = eventlet.spawn_after(START_DEFERRAL,
                                               self._start_late)
            return self
        for uuid in self.instance_uuids:
            self._record(Event.event_start, uuid)
        return self

    def _start_late(self):
        """The timer: the work still runs; record its start now."""
        with self._lock:
            if self._start_time is None:
                return
            self._record(Event.event_start, self.instance_uuids[0],
                         start_time=self._start_time)
            self._start_time = None

    def _take_start_time(self):
        """Stop the deferred start: the time the finish must record as
        the start, or None when it was recorded (or never deferred)."""
        if self._lock is None:
            return None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        # Waits for a late start being recorded right now.
        with self._lock:
            start_time, self._start_time = self._start_time, None
        return start_time

    def failed(self, exc_val, exc_tb=None):
        """Finish as 'Error' with exc_val on exit, for a block that
        handles the error itself (e.g. a build that reschedules)."""
        self._failure = (exc_val, exc_tb)

    def __exit__(self, exc_type, exc_val, exc_tb):
        if exc_val is not None and not isinstance(exc_val, Exception):
            # The process or thread is going away (a BaseException: a
            # kill, a stop, the tests' simulated crash): the event stays
            # unfinished, as a SIGKILL leaves it -- what a super
            # conductor's restart reads (conductor.tasks.move_recovery);
            # a deferred start not yet recorded stays unrecorded.
            self._take_start_time()
            return False
        if exc_val is None and self._failure is not None:
            exc_val, exc_tb = self._failure
        if self._finished:
            # Finished with the block's last save; a failure after it
            # (none is expected) is logged, not recorded as a new event.
            if exc_val is not None:
                LOG.warning('Event %s of %s failed after it was recorded '
                            'finished: %s', self.event_name,
                            self.instance_uuids[0], exc_val)
            return False
        kwargs = instance_action.start_time_kwargs(self._take_start_time())
        for uuid in self.instance_uuids:
            if exc_val is None:
                self._record(Event.event_finish, uuid, **kwargs)
            else:
                self._record(Event.event_finish_with_failure, uuid,
                             exc_val, exc_tb=exc_tb, **kwargs)
        return False


def wrap_instance_event(prefix, pass_event=False):
    """Decorate a service method ``fn(self, context, instance, ...)`` so
    that it runs as event ``<prefix>_<fn name>`` on ``self.host``;
    pass_event: fn also gets the EventReporter as ``event=`` (to end
    with event.save_and_finish), which defers the event's start to it
    (see the module's docstring)."""
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(self, context, instance, *args, **kwargs):
            name = '%s_%s' % (prefix, fn.__name__)
            with EventReporter(context, name, getattr(self, 'host', None),
                               instance.uuid,
                               defer_start=pass_event) as event:
                if pass_event:
                    kwargs['event'] = event
                return fn(self, context, instance, *args, **kwargs)
        return wrapper
    return decorator


def _here_or_at(api, version):
    """Whether methods going through api (None: they run here) run
    where conductor RPC version is spoken."""
    return api is None or api.can_send_version(version)


def _runs_save_and_finish(instance):
    return _here_or_at(obj_base.indirection_api_for(instance),
                       conductor_rpcapi.SAVE_AND_FINISH_EVENT_VERSION)


def _takes_start_time(context):
    """Whether the event methods (and save_and_finish_event) take
    start_time where they run: here, or on a conductor at 1.3."""
    return _here_or_at(obj_base.indirection_api_of(Event, context),
                       conductor_rpcapi.EVENT_START_TIME_VERSION)
