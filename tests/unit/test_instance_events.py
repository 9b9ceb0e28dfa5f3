"""The instance-action event helper: names, results, and that recording
never makes the work fail."""
import pytest

from nova_lite.compute import instance_events
from nova_lite import exception


class _Recorder(object):
    """Stands in for InstanceActionEvent's remotable methods."""

    def __init__(self, fail_with=None):
        self.calls = []
        self.fail_with = fail_with

    def _call(self, kind, context, uuid, name, *args, **kwargs):
        self.calls.append((kind, uuid, name, kwargs.get('host'), args))
        if self.fail_with is not None:
            raise self.fail_with

    def event_start(self, *args, **kwargs):
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

    def save(self, expected_task_state=None):
        self.saves.append(('save', expected_task_state))

    def save_and_finish_event(self, event_name, host=None,
                              expected_task_state=None):
        if self.fail_with is not None:
            raise self.fail_with
        self.saves.append(('save_and_finish', event_name, host,
                           expected_task_state))


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
