"""Faults under load lose nothing (issue 32, item 6).

On a MariaDB server and a RabbitMQ node of its own (tests/real/
private_services.py: started by this test on other ports, stopped
after it; the machine's shared ones are never touched), a
tools/deployment.py deployment (two cells, each service its own
process, builds and deletes slowed by the fake driver) is loaded by two
clients that boot, show, list, stop, start and delete servers, while
one fault after the other hits it: the broker restarted, the database
restarted, and kill -9 of a cell conductor, the scheduler, a compute and
the API, each while a boot and a delete are in flight, then started
again. After each the test waits for recovery and asserts: every
service up, no server outside a final state and no accepted delete
left undone, no guest without a live server and none missing
(`placement check_guests`), no leaked or missing allocation
(`placement check_allocations`, `placement audit`), no 5xx but 503s
during an outage, no unanswered request but while the API itself was
down, and a boot the killed API left unanswered either built or -- its
build request written, its cast never sent -- buried by the super
conductors ([conductor] build_request_timeout): ERROR with a fault,
never BUILD; each scenario's recovery time is printed. The workload, the
faults and the checks are tools/bench/faults.py (the benchmark runs the
same with more clients).
"""
import importlib.util
import os
import shutil

import pytest

from tests.real import conftest as real

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _faults():
    spec = importlib.util.spec_from_file_location(
        'nova_lite_bench_faults',
        os.path.join(ROOT, 'tools', 'bench', 'faults.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _require_binaries():
    missing = [name for name in ('mariadb-install-db', 'mariadbd',
                                 'rabbitmq-server', 'rabbitmqctl')
               if not (shutil.which(name) or os.path.exists(
                   os.path.join('/usr/sbin', name)))]
    if not missing:
        return
    message = 'cannot start a private MariaDB/RabbitMQ: no %s' % (
        ', '.join(missing))
    if real.REQUIRE:
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def test_faults_under_load_lose_nothing(tmp_path):
    _require_binaries()
    faults = _faults()
    dep, db, mq = faults.start(str(tmp_path), prefix=real.unique_name(),
                               log=print)
    try:
        report = faults.run(dep, db, mq, clients=2, down=2.0, warmup=2.0,
                            log=print)
    finally:
        faults.stop(dep, db, mq)
    print(report.text())
    assert [s.name for s in report.scenarios] == list(faults.SCENARIOS)
    assert report.failures() == {}, report.text()
    for scenario in report.scenarios:
        # under load: every scenario saw boots and reads
        assert scenario.requests['boot'] > 0, report.text()
        assert scenario.recovery_s is not None, report.text()
        for name, (status, fault) in scenario.unanswered_boots.items():
            assert status == 'ACTIVE' or (
                status == 'ERROR' and 'not picked up' in (fault or '')), (
                name, status, fault, report.text())
