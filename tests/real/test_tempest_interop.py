"""Tempest against a real deployment with Keystone (tools/tempest.py).

One deployment (`tools/deployment.py start --keystone`: every service a
process of its own on MariaDB and RabbitMQ, OpenStack Keystone beside
them; one cell with two computes, so that resize has somewhere to go)
serves two checks:

* the 81 tests that the 2020.06 interoperability guideline requires for
  its compute capabilities (tools/tempest/interop-2020.06-compute.json),
  run by Tempest 47.0.0 with concurrency 2: any failure, any test that
  did not run, and any skip not listed in EXPECTED_SKIPS fails;
* nova_lite's response bodies, validated by Tempest's own compute
  response schemas at every microversion where one of them changes, up
  to the deployment's maximum (tools/tempest/response_schemas.py).

Tempest is installed in .tempest-venv from tools/tempest-requirements.txt
(once; as Keystone is in .keystone-venv).
"""
import importlib.util
import os
import subprocess
import sys
import time

import pytest

from tests.real import conftest as real
from tests.real import keystone_cloud

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, 'tools', 'deployment.py')

# Skipped by Tempest itself where the deployment's guests cannot answer
# SSH ([validation] run_validation off: tools/deployment.py could not
# listen on port 22 of a loopback address).
EXPECTED_SKIPS = {
    'tempest.api.compute.servers.test_create_server.ServersTestJSON.'
    'test_host_name_is_same_as_server_name':
        'Instance validation tests are disabled.',
    'tempest.api.compute.servers.test_create_server.ServersTestJSON.'
    'test_verify_created_server_vcpus':
        'Instance validation tests are disabled.',
}


def tempest_tool():
    spec = importlib.util.spec_from_file_location(
        'nova_lite_tempest_tool', os.path.join(ROOT, 'tools', 'tempest.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope='module')
def tool():
    module = tempest_tool()
    try:
        module.ensure_venv()
    except (subprocess.CalledProcessError, OSError) as exc:
        message = 'Tempest could not be installed (%s)' % exc
        if real.REQUIRE:
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return module


@pytest.fixture(scope='module')
def deployment(tool, tmp_path_factory):
    real.require_service('MariaDB')
    real.require_service('RabbitMQ')
    keystone_cloud.require_keystone(keystone_cloud.keystone_tool())
    workdir = str(tmp_path_factory.mktemp('deployment-tempest'))
    started = subprocess.run(
        [sys.executable, TOOL, 'start', '--keystone', '--workdir', workdir,
         '--cells', '1', '--computes-per-cell', '2'],
        capture_output=True, text=True, timeout=600)
    try:
        assert started.returncode == 0, started.stderr[-3000:]
        yield workdir
    finally:
        stopped = subprocess.run([sys.executable, TOOL, 'stop', '--workdir',
                                  workdir], capture_output=True, text=True,
                                 timeout=120)
        assert stopped.returncode == 0, stopped.stderr[-3000:]


def _name(test_id):
    return test_id.split('[', 1)[0]


def test_interop_compute_tests_pass(tool, deployment, capsys):
    began = time.monotonic()
    results = tool.run(deployment, 'interop', concurrency=2)
    with capsys.disabled():
        print('\ntempest --interop (%.0f s):' % (time.monotonic() - began))
        tool.report(results)
    by_name = {_name(r['id']): r for r in results}
    # Guests that answer SSH (tools/deployment.py's default where it can
    # listen on port 22): Tempest logs into them, nothing is skipped.
    expected_skips = {} if tool.Cloud(deployment).dep.guest_ssh else \
        EXPECTED_SKIPS
    failed = sorted(n for n, r in by_name.items() if r['status'] == 'fail')
    unexpected = sorted(
        '%s: %s' % (n, r['reason']) for n, r in by_name.items()
        if r['status'] == 'skip'
        and expected_skips.get(n) != (r['reason'] or '').strip())
    missing = sorted(set(tool.interop_tests()) - set(by_name))
    assert not failed, 'failed: %s' % failed
    assert not unexpected, 'unexpected skips: %s' % unexpected
    assert not missing, 'did not run: %s' % missing
    passed = [n for n, r in by_name.items() if r['status'] == 'success']
    assert len(passed) == len(tool.interop_tests()) - len(expected_skips)


def test_bodies_match_tempest_response_schemas(tool, deployment, capsys):
    began = time.monotonic()
    with capsys.disabled():
        print('\ntempest response schemas:')
        status, failures, summary = tool.check_schemas(deployment)
        print('(%.0f s)' % (time.monotonic() - began))
    assert not failures
    assert status == 0
    # Every band of the servers client up to the maximum was reached.
    assert '2.1' in summary['versions'] and summary['calls'] > 100
