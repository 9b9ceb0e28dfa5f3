"""The rolling upgrade from the previous release (issue 39): a loaded
multi-cell deployment (MariaDB + RabbitMQ, every service its own
process, two cells of two computes, per-cell conductors without the API
DB, two APIs) built from the commit tools/upgrade/PREVIOUS_RELEASE
records, upgraded service by service in doc/upgrade.rst's order to this
tree while clients boot, list, reboot and delete servers -- and not one
failed request, every seeded server usable afterwards, no leaked
allocation, every service at this release's version, every process
having handled the SIGHUP that lifts the RPC caps. The scenario and its
checks are tools/bench/upgrade.py (the benchmark runs the same and
prints the upgrade's figures).

A repository without the previous release's commit fails the test
(release.ReleaseError): the upgrade cannot be shown without it."""
import importlib.util
import os
import sys

import pytest

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
def bench():
    return _load('tools/bench/upgrade.py', 'nova_lite_upgrade_bench')


@pytest.fixture
def previous(bench, tmp_path):
    """The previous release's deployment, started."""
    real.require_service('MariaDB')
    real.require_service('RabbitMQ')
    release = bench.release_tool.build(log=print)
    assert release['version'] != bench.current_version()
    dep = bench.start_previous(str(tmp_path / 'upgrade'), release,
                               prefix=real.unique_name())
    try:
        dep.start()
    except Exception:
        dep.stop()
        raise
    yield dep
    dep.stop()


def _gated_on_computes():
    """The online migrations a previous-release compute blocks."""
    from nova_lite import constants
    from nova_lite.objects import service_version
    from nova_lite.online_migrations import registry
    previous = service_version.RELEASES[service_version.PREVIOUS_RELEASE]
    return sorted(m.name for m in registry.migrations()
                  if m.needs.get(constants.COMPUTE_BINARY, 0) > previous)


def test_upgrade_under_load_fails_no_request(bench, previous):
    """The upgrade, and in the same run the second pass: the compute of
    a seeded server stays on the previous release through a first round
    of online migrations (those it blocks are reported blocked; it keeps
    serving its server, and the API refuses it shelve), then is
    upgraded and everything completes."""
    report = bench.run(previous, os.path.dirname(sys.executable),
                       clients=2, leave_old=True, log=print)
    print(report.text())
    [old] = report.left_old
    assert [s['name'] for s in report.steps] == (
        ['expand schemas'] +
        ['upgrade %s' % name
         for name in bench.upgrade_order(previous, [old])] +
        ['online data migrations', 'upgrade %s' % old,
         'online data migrations again', 'SIGHUP'])
    assert sorted(report.blocked) == _gated_on_computes()
    assert report.booted > 0
    assert report.migrations['exit_code'] == 0
    assert report.failures() == {}, report.text()
