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
