"""A rolling restart under load (issue 18, item 4): every service of a
real deployment (MariaDB + RabbitMQ, two API processes) restarted once,
one at a time, while clients boot, show, list and delete servers through
the REST API -- and not one failed request, stuck server or leaked
allocation. The workload and the checks are tools/bench/rolling_restart.py
(the benchmark runs the same with more clients)."""
import importlib.util
import os
import threading
import time

import oslo_messaging as messaging
import pytest

from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite import rpc
from tests.functional.conftest import wait_for
from tests.real import conftest as real

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _load(path, name):
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(ROOT, *path.split('/')))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def deployment(tmp_path):
    real.require_service('MariaDB')
    real.require_service('RabbitMQ')
    tool = _load('tools/deployment.py', 'nova_lite_deployment')
    # Two cells (so two cell conductors), one compute each (the bench
    # runs two): every kind of process, each restarted once.
    dep = tool.Deployment(str(tmp_path / 'rolling'), cells=2,
                          computes_per_cell=1, apis=2,
                          prefix=real.unique_name())
    try:
        dep.start()
    except Exception:
        dep.stop()
        raise
    yield dep
    dep.stop()


def test_rolling_restart_under_load_fails_no_request(deployment):
    bench = _load('tools/bench/rolling_restart.py', 'rolling_restart')
    report = bench.run(deployment, clients=2, warmup=1.0, settle=60,
                       log=print)
    print(report.text())
    assert [r['name'] for r in report.restarts] == bench.restart_order(
        deployment)
    assert report.booted > 0 and report.deleted == report.booted
    assert report.failures() == {}, report.text()


class _Worker(object):
    target = messaging.Target(version='1.0')

    def __init__(self):
        self.started = threading.Event()
        self.handled = []

    def work(self, context, number, seconds):
        self.started.set()
        time.sleep(seconds)
        self.handled.append(number)


def test_casts_arriving_while_a_server_drains_are_handled_after_restart(
        rabbit_transport_url):
    """A cast the broker delivers while a stopped RPC server finishes its
    in-flight work (its heartbeat still reads the connection) is not
    acknowledged and lost: the next server of the topic handles it."""
    transport = messaging.get_rpc_transport(CONF, url=rabbit_transport_url)
    # The heartbeat thread reads the connection every fraction of this.
    CONF.set_override('heartbeat_timeout_threshold', 2,
                      group='oslo_messaging_rabbit')
    target = messaging.Target(topic='drain', server='h')
    client = rpc.get_client(messaging.Target(topic='drain', version='1.0'),
                            transport=transport)
    ctxt = nova_context.get_admin_context()
    worker = _Worker()
    try:
        server = rpc.get_server(target, [worker], transport=transport)
        server.start()
        client.cast(ctxt, 'work', number=0, seconds=3)
        assert worker.started.wait(10)
        server.stop()
        for number in range(1, 6):
            client.cast(ctxt, 'work', number=number, seconds=0)
        server.wait()
        assert worker.handled == [0]   # the in-flight cast finished

        again = rpc.get_server(target, [worker], transport=transport)
        again.start()
        try:
            wait_for(lambda: len(worker.handled) == 6, 20,
                     message='every cast handled: %s' % worker.handled)
        finally:
            again.stop()
            again.wait()
        assert sorted(worker.handled) == list(range(6))
    finally:
        transport.cleanup()
        CONF.clear_override('heartbeat_timeout_threshold',
                            group='oslo_messaging_rabbit')
