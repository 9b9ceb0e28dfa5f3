"""The instance-action event helper: names, results, and that recording
never makes the work fail."""
import datetime

import eventlet
import pytest

from nova_lite.compute import instance_events
from nova_lite import exception


class _Recorder(object):
    """Stands in for InstanceActionEvent's remotable methods (run here:
    no indirection API)."""
    indirection_api = None

    def __init__(self, fail_with=None):
        self.calls = []
        self.fail_with = fail_with
        self.start_times = []
        self.start_delay = 0

    def _call(self, kind, context, uuid, name, *args, **kwargs):
        self.calls.append((kind, uuid, name, kwargs.get('host'), args))
        self.start_times.append(kwargs.get('start_time'))
        if self.fail_with is not None:
            raise self.fail_with

    def event_start(self, *args, **kwargs):
        if self.start_delay:
            eventlet.sleep(self.start_delay)    # a call on its way
        self._call('start', *args, **kwargs)

    def event_finish(self, *args, **kwargs):
        self._call('finish', *args, **kwargs)

    def event_finish_with_failure(self, *args, **kwargs):
        self._call('failure', *args, **kwargs)


class _Instance(object):
    uuid = 'uuid-1'


class _Manager(object):
    host = 'host-1'

    @instance_events.wrap_instance_event(prefix='compute')
    def stop_instance(self, context, instance):
        return 'stopped'

    @instance_events.wrap_instance_event(prefix='compute')
    def pause_instance(self, context, instance):
        raise ValueError('no')


@pytest.fixture
def recorder(monkeypatch):
    rec = _Recorder()
    monkeypatch.setattr(instance_events, 'Event', rec)
    return rec


def test_wrapped_method_is_one_event_named_after_it(recorder):
    assert _Manager().stop_instance(None, _Instance()) == 'stopped'
    assert [c[:4] for c in recorder.calls] == [
        ('start', 'uuid-1', 'compute_stop_instance', 'host-1'),
        ('finish', 'uuid-1', 'compute_stop_instance', 'host-1')]


def test_a_failure_is_recorded_and_raised(recorder):
    with pytest.raises(ValueError):
        _Manager().pause_instance(None, _Instance())
    kind, _uuid, name, _host, args = recorder.calls[-1]
    assert (kind, name) == ('failure', 'compute_pause_instance')
    assert isinstance(args[0], ValueError)


def test_failed_marks_a_handled_error(recorder):
    with instance_events.EventReporter(None, 'build', 'h', 'u') as event:
        event.failed(RuntimeError('spawn'))
    assert [c[0] for c in recorder.calls] == ['start', 'failure']


@pytest.mark.parametrize('error', [
    exception.InstanceActionNotFound(request_id='r'), RuntimeError('db')])
def test_recording_never_fails_the_work(monkeypatch, error):
    monkeypatch.setattr(instance_events, 'Event', _Recorder(error))
    assert _Manager().stop_instance(None, _Instance()) == 'stopped'


class _Crash(BaseException):
    pass


def test_a_process_going_away_leaves_the_event_unfinished(recorder):
    """As a SIGKILL would: a restart's recovery reads the unfinished
    event (conductor.tasks.move_recovery)."""
    with pytest.raises(_Crash):
        with instance_events.EventReporter(None, 'migrate', 'h', 'u'):
            raise _Crash()
    assert [c[0] for c in recorder.calls] == ['start']


class _Saving(object):
    """An instance whose saves are recorded; its remotable methods run
    here (no indirection API), or fail with fail_with."""
    uuid = 'uuid-1'
    _context = None
    indirection_api = None

    def __init__(self, fail_with=None):
        self.saves = []
        self.fail_with = fail_with
        self.start_times = []

    def save(self, expected_task_state=None):
        self.saves.append(('save', expected_task_state))

    def save_and_finish_event(self, event_name, host=None,
                              expected_task_state=None, start_time=None):
        if self.fail_with is not None:
            raise self.fail_with
        self.saves.append(('save_and_finish', event_name, host,
                           expected_task_state))
        self.start_times.append(start_time)


def test_save_and_finish_is_one_call_and_the_exit_adds_none(recorder):
    instance = _Saving()
    with instance_events.EventReporter(None, 'stop', 'h', 'uuid-1') as ev:
        ev.save_and_finish(instance, expected_task_state=['powering-off'])
    assert instance.saves == [('save_and_finish', 'stop', 'h',
                               ['powering-off'])]
    assert [c[0] for c in recorder.calls] == ['start']


def test_without_an_action_it_saves_and_the_exit_finishes(recorder):
    instance = _Saving(exception.InstanceActionNotFound(request_id='r'))
    with instance_events.EventReporter(None, 'stop', 'h', 'uuid-1') as ev:
        ev.save_and_finish(instance, expected_task_state=[None])
    assert instance.saves == [('save', [None])]
    assert [c[0] for c in recorder.calls] == ['start', 'finish']


def test_a_refused_save_raises_and_the_exit_finishes(recorder):
    instance = _Saving(exception.UnexpectedTaskStateError(
        instance_uuid='uuid-1', expected=[None], actual='deleting'))
    with instance_events.EventReporter(None, 'stop', 'h', 'uuid-1') as ev:
        with pytest.raises(exception.UnexpectedTaskStateError):
            ev.save_and_finish(instance)
    assert [c[0] for c in recorder.calls] == ['start', 'finish']


def test_a_conductor_pinned_below_1_2_gets_a_save(recorder):
    class Pinned(object):
        def can_send_version(self, version):
            return version <= '1.1'
    instance = _Saving()
    instance.indirection_api = Pinned()
    with instance_events.EventReporter(None, 'stop', 'h', 'uuid-1') as ev:
        ev.save_and_finish(instance)
    assert instance.saves == [('save', None)]
    assert [c[0] for c in recorder.calls] == ['start', 'finish']


def test_a_failure_after_the_finish_records_no_second_event(recorder):
    instance = _Saving()
    with pytest.raises(ValueError):
        with instance_events.EventReporter(None, 'stop', 'h',
                                           'uuid-1') as ev:
            ev.save_and_finish(instance)
            raise ValueError('after')
    assert [c[0] for c in recorder.calls] == ['start']


# A quick action's start goes with its finish (defer_start).

class _Acting(object):
    host = 'host-1'

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def stop_instance(self, context, instance, event, work=0, fail=False):
        if work:
            eventlet.sleep(work)
        if fail:
            raise ValueError('driver')
        event.save_and_finish(instance, expected_task_state=['powering-off'])

    @instance_events.wrap_instance_event(prefix='compute', pass_event=True)
    def reboot_instance(self, context, instance, event):
        return 'moved on: nothing saved'


@pytest.fixture
def quick(monkeypatch, recorder):
    monkeypatch.setattr(instance_events, 'START_DEFERRAL', 0.02)
    return recorder


def test_a_quick_action_is_one_call_with_its_start_time(quick):
    instance = _Saving()
    before = instance_events.timeutils.utcnow()
    _Acting().stop_instance(None, instance)
    assert instance.saves == [('save_and_finish', 'compute_stop_instance',
                               'host-1', ['powering-off'])]
    assert before <= instance.start_times[0] <= \
        instance_events.timeutils.utcnow()
    eventlet.sleep(0.05)        # past the deferral: nothing more
    assert quick.calls == []


def test_a_long_action_has_its_start_recorded_when_the_deferral_ends(quick):
    instance = _Saving()
    before = instance_events.timeutils.utcnow()
    _Acting().stop_instance(None, instance, work=0.06)
    assert [c[0] for c in quick.calls] == ['start']
    # Recorded late, with the time the work started.
    assert before <= quick.start_times[0] < before + \
        datetime.timedelta(seconds=0.02)
    assert instance.saves[0][0] == 'save_and_finish'
    assert instance.start_times == [None]


def test_a_finish_waits_for_a_late_start_on_its_way(quick):
    quick.start_delay = 0.05
    instance = _Saving()
    order = []
    instance.save_and_finish_event = (
        lambda *a, **k: order.append(('finish', k.get('start_time'))))
    real_start = quick.event_start

    def start(*args, **kwargs):
        real_start(*args, **kwargs)
        order.append(('start', kwargs.get('start_time') is not None))
    quick.event_start = start
    _Acting().stop_instance(None, instance, work=0.03)
    assert order == [('start', True), ('finish', None)]


def test_a_quick_failure_records_start_and_failure_together(quick):
    with pytest.raises(ValueError):
        _Acting().stop_instance(None, _Saving(), fail=True)
    assert [c[0] for c in quick.calls] == ['failure']
    assert quick.start_times[0] is not None
    eventlet.sleep(0.05)
    assert [c[0] for c in quick.calls] == ['failure']


def test_an_action_that_saves_nothing_finishes_with_its_start(quick):
    assert _Acting().reboot_instance(None, _Saving()) == \
        'moved on: nothing saved'
    assert [c[0] for c in quick.calls] == ['finish']
    assert quick.start_times[0] is not None


def test_a_refused_save_fails_the_event_on_exit_with_its_start(quick):
    instance = _Saving(exception.UnexpectedTaskStateError(
        instance_uuid='uuid-1', expected=[None], actual='deleting'))
    with pytest.raises(exception.UnexpectedTaskStateError):
        _Acting().stop_instance(None, instance)
    assert [c[0] for c in quick.calls] == ['failure']
    assert quick.start_times[0] is not None


def test_a_kill_within_the_deferral_records_nothing(quick):
    with pytest.raises(_Crash):
        with instance_events.EventReporter(None, 'stop', 'h', 'uuid-1',
                                           defer_start=True):
            raise _Crash()
    eventlet.sleep(0.05)
    assert quick.calls == []


def test_a_conductor_below_1_3_gets_the_start_first(quick):
    class Pinned(object):
        def can_send_version(self, version):
            return version <= '1.2'
    quick.indirection_api = Pinned()
    instance = _Saving()
    _Acting().stop_instance(None, instance)
    assert [c[0] for c in quick.calls] == ['start']
    assert quick.start_times == [None]
    assert instance.saves[0][0] == 'save_and_finish'
    assert instance.start_times == [None]
