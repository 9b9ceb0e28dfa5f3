"""Heartbeats survive a broker restart: a compute's heartbeat waits for
its conductor's reply at most one report interval, a lost reply is one
skipped beat (logged, not fatal), and beats never stack up behind a
slow one."""
import logging
import time

from oslo_db import exception as db_exc
import oslo_messaging as messaging

from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite import rpc
from nova_lite import service
from tests.conftest import set_override


def _compute(url):
    """A compute's Service whose conductor never answers (nothing
    consumes the conductor topic on url: every reply is lost)."""
    ctxt = nova_context.get_admin_context()
    ctxt.indirection_api = conductor_rpcapi.ConductorAPI(
        transport=rpc.get_transport(url))
    svc = service.Service('hb-host', constants.COMPUTE_BINARY, None, [],
                          base_context=ctxt)
    svc.service_ref = objects.Service(ctxt, id=1, host='hb-host',
                                      binary=constants.COMPUTE_BINARY)
    svc._heartbeat_ref = svc._heartbeat_record()
    return svc


def test_lost_reply_costs_one_interval_not_rpc_timeout(conf, caplog):
    set_override('report_interval', 1)
    set_override('rpc_response_timeout', 60)
    svc = _compute('fake://heartbeat-lost/')
    # Only the heartbeat's calls are bounded by the interval.
    beat_api = svc._heartbeat_ref._context.indirection_api
    assert (beat_api.timeout, beat_api.retry) == (1, 1)
    own_api = svc.service_ref._context.indirection_api
    assert (own_api.timeout, own_api.retry) == (None, None)
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger='nova_lite.service'):
        svc.report_state()   # logged, not raised
    assert time.monotonic() - started < 5
    assert 'got no reply within 1 s' in caplog.text


def test_heartbeat_timeout_is_at_most_the_interval(conf):
    set_override('report_interval', 10)
    set_override('rpc_response_timeout', 60)
    assert service.heartbeat_timeout() == 10
    set_override('rpc_response_timeout', 4)
    assert service.heartbeat_timeout() == 4


def test_a_slow_beat_is_skipped_not_stacked(conf, monkeypatch):
    """A beat that outlasts the interval is followed by the next one at
    the next interval boundary, never at once."""
    set_override('report_interval', 10)
    clock = [100.0]
    svc = service.Service('h', constants.COMPUTE_BINARY, None, [],
                          base_context=nova_context.get_admin_context())
    monkeypatch.setattr(service.time, 'monotonic', lambda: clock[0])

    def beat_taking(seconds):
        def report_state():
            clock[0] += seconds
        monkeypatch.setattr(svc, 'report_state', report_state)
        return svc._beat()

    assert beat_taking(0.5) == 9.5
    assert beat_taking(10.0) == 10.0
    assert beat_taking(13.0) == 7.0
    assert beat_taking(0.0) == 10.0


def test_database_blip_is_not_fatal(conf, caplog):
    class Broken(object):
        def report_state(self):
            raise db_exc.DBConnectionError('db gone')
    svc = service.Service('h', constants.CONDUCTOR_BINARY, None, [],
                          base_context=nova_context.get_admin_context())
    svc.service_ref = Broken()
    with caplog.at_level(logging.WARNING, logger='nova_lite.service'):
        svc.report_state()
    assert 'failed: DBConnectionError: db gone' in caplog.text


def test_a_beat_the_broker_cannot_take_is_logged(conf, caplog):
    class Unsent(object):
        def report_state(self):
            raise messaging.MessageDeliveryFailure('broker gone')
    svc = service.Service('h', constants.COMPUTE_BINARY, None, [],
                          base_context=nova_context.get_admin_context())
    svc.service_ref = Unsent()
    with caplog.at_level(logging.WARNING, logger='nova_lite.service'):
        svc.report_state()
    assert 'could not be sent (MessageDeliveryFailure)' in caplog.text


def test_warns_when_down_time_is_under_two_and_a_half_intervals(
        conf, caplog):
    set_override('report_interval', 10)
    set_override('service_down_time', 20)
    with caplog.at_level(logging.WARNING, logger='nova_lite.service'):
        service.check_down_time()
    assert 'services count as down after 25.0 s' in caplog.text
    caplog.clear()
    set_override('service_down_time', 60)
    with caplog.at_level(logging.WARNING, logger='nova_lite.service'):
        service.check_down_time()
    assert caplog.text == ''


def test_defaults_are_novas(conf):
    assert conf.report_interval == 10
    assert conf.service_down_time == 60
