"""nova-lite-status upgrade check: outcomes and exit codes."""
import json
import os
import subprocess
import sys

import pytest

from tests.functional.manage_helpers import Deployment

SUCCESS, WARNING, FAILURE = 0, 1, 2


@pytest.fixture
def dep(tmp_path, capsys, conf):
    return Deployment(tmp_path, capsys)


def _check(dep):
    """(exit code, {check name: (result code, details)})."""
    code, out, err = dep.status('upgrade', 'check', '--json')
    checks = {c['check']: (c['result'], c['details'])
              for c in json.loads(out)['checks']}
    return code, checks


def test_cells_v2_fails_without_api_database(tmp_path, capsys, conf):
    dep = Deployment(tmp_path, capsys, api=False)
    code, checks = _check(dep)
    assert code == FAILURE
    assert '[api_database]' in checks['Cells v2'][1]


def test_cells_v2_fails_without_cell0(dep):
    dep.ok('api_db', 'sync')
    code, checks = _check(dep)
    assert code == FAILURE
    assert 'map_cell0' in checks['Cells v2'][1]


def test_cells_v2_fails_with_only_cell0(dep):
    dep.ok('api_db', 'sync')
    dep.ok('cell_v2', 'map_cell0')
    code, checks = _check(dep)
    assert code == FAILURE
    assert 'create_cell' in checks['Cells v2'][1]


def test_cells_v2_passes_without_computes_and_says_so(dep):
    dep.setup_cells()
    code, checks = _check(dep)
    assert code == SUCCESS
    assert 'discover_hosts' in checks['Cells v2'][1]


def test_cells_v2_fails_until_every_compute_is_mapped(dep):
    dep.setup_cells()
    dep.add_compute('cell1', 'c1-host1')
    dep.add_compute('cell2', 'c2-host1')
    code, checks = _check(dep)
    assert code == FAILURE
    details = checks['Cells v2'][1]
    assert 'c1-host1' in details and 'c2-host1' in details
    dep.ok('cell_v2', 'discover_hosts')
    code, checks = _check(dep)
    assert code == SUCCESS
    assert checks['Cells v2'] == (SUCCESS, None)


def test_cells_v2_fails_when_a_cell_cannot_be_read(dep):
    uuids = dep.setup_cells()
    dep.sql('api', 'UPDATE cell_mappings SET database_connection = ? '
            'WHERE uuid = ?', 'sqlite:////nonexistent/dir/x.sqlite',
            uuids['cell2'])
    code, checks = _check(dep)
    assert code == FAILURE
    assert 'cell2' in checks['Cells v2'][1]


def test_status_prints_a_table(dep):
    dep.setup_cells()
    code, out, _ = dep.status()
    assert code == SUCCESS
    assert 'Upgrade Check Results' in out and 'Check: Cells v2' in out


def test_status_usage_error(dep):
    code, _, _ = dep.status('upgrade')
    assert code == 2


def test_status_console_script(dep):
    script = os.path.join(os.path.dirname(sys.executable), 'nova-lite-status')
    if not os.path.exists(script):
        pytest.skip('nova-lite-status is not installed next to %s'
                    % sys.executable)
    dep.ok('api_db', 'sync')
    result = subprocess.run([script, '--config-file', dep.config_file,
                             'upgrade', 'check'], capture_output=True,
                            text=True, timeout=120, cwd=dep.path)
    assert result.returncode == FAILURE, result.stderr
    assert 'Result: Failure' in result.stdout


def test_status_without_a_config_file_fails_cleanly(tmp_path):
    """No configuration at all: every check says to pass --config-file,
    exit 2, and no traceback."""
    script = os.path.join(os.path.dirname(sys.executable), 'nova-lite-status')
    if not os.path.exists(script):
        pytest.skip('nova-lite-status is not installed next to %s'
                    % sys.executable)
    result = subprocess.run([script, 'upgrade', 'check', '--json'],
                            capture_output=True, text=True, timeout=120,
                            cwd=str(tmp_path))
    assert result.returncode == FAILURE, result.stderr
    assert 'Traceback' not in result.stdout + result.stderr
    checks = json.loads(result.stdout)['checks']
    assert checks and all(c['result'] == FAILURE and '--config-file' in
                          c['details'] for c in checks)


# --- Service Versions ----------------------------------------------------

def _record(dep, cell, host, binary, version):
    dep.add_compute(cell, host, binary=binary)
    dep.sql(cell, 'UPDATE services SET version = ? WHERE host = ?',
            version, host)


def test_service_versions_pass_when_everyone_runs_this_code(dep):
    from nova_lite.objects import service_version
    dep.setup_cells()
    _record(dep, 'cell1', 'ctl1', 'nova-conductor',
            service_version.SERVICE_VERSION)
    _record(dep, 'cell2', 'c2-host1', 'nova-compute',
            service_version.SERVICE_VERSION)
    dep.ok('cell_v2', 'discover_hosts')
    code, checks = _check(dep)
    assert checks['Service Versions'] == (SUCCESS, None)


def test_service_versions_warn_on_a_mixed_deployment(dep):
    from nova_lite.objects import service_version
    dep.setup_cells()
    new = service_version.SERVICE_VERSION
    _record(dep, 'cell1', 'ctl1', 'nova-conductor', new)
    _record(dep, 'cell2', 'ctl2', 'nova-conductor', new - 1)
    code, checks = _check(dep)
    assert code == WARNING
    result, details = checks['Service Versions']
    assert result == WARNING
    assert 'nova-conductor on ctl2 (version %d)' % (new - 1) in details
    assert 'ctl1' not in details


def test_service_versions_null_counts_as_version_1(dep, monkeypatch):
    from nova_lite.objects import service_version
    monkeypatch.setattr(service_version, 'SERVICE_VERSION', 2)
    dep.setup_cells()
    _record(dep, 'cell1', 'ctl1', 'nova-conductor', 2)
    _record(dep, 'cell2', 'ctl2', 'nova-conductor', None)
    code, checks = _check(dep)
    assert 'ctl2 (version 1)' in checks['Service Versions'][1]


def test_service_versions_fail_on_too_old_services(dep, monkeypatch):
    from nova_lite.objects import service_version
    dep.setup_cells()
    _record(dep, 'cell1', 'ctl1', 'nova-conductor', 5)
    _record(dep, 'cell2', 'ctl2', 'nova-conductor', 3)  # 2 behind
    _record(dep, 'cell2', 'c2-host1', 'nova-compute', 1)
    monkeypatch.setattr(service_version, 'SERVICE_VERSION', 5)
    monkeypatch.setattr(service_version, 'SERVICE_VERSION_SKEW', 1)
    monkeypatch.setattr(service_version, 'OLDEST_SUPPORTED_SERVICE_VERSION', 2)
    code, checks = _check(dep)
    assert code == FAILURE
    result, details = checks['Service Versions']
    assert result == FAILURE
    assert 'nova-conductor on ctl2 (version 3)' in details
    assert 'nova-compute on c2-host1 (version 1)' in details
    assert 'ctl1' not in details


def test_service_versions_read_a_schema_without_the_version_column(dep):
    """Run before `db sync` of the release that added services.version."""
    dep.setup_cells()
    _record(dep, 'cell2', 'ctl2', 'nova-conductor', 1)
    dep.sql('cell2', 'ALTER TABLE services DROP COLUMN version')
    code, checks = _check(dep)
    assert checks['Service Versions'][0] in (SUCCESS, WARNING)
    assert 'Traceback' not in (checks['Service Versions'][1] or '')


# --- Online Data Migrations ------------------------------------------------

def test_pending_online_migrations_warn_with_the_command(dep):
    dep.setup_cells()
    for i in range(2):
        dep.sql('cell1', 'INSERT INTO instance_types (name, flavorid, '
                'memory_mb, vcpus, swap, root_gb, ephemeral_gb, disabled, '
                'is_public, rxtx_factor, deleted) VALUES '
                '(?, ?, 512, 1, 0, 1, 0, 0, 1, 1.0, 0)',
                'legacy%d' % i, 'l%d' % i)
    code, checks = _check(dep)
    assert code == WARNING
    result, details = checks['Online Data Migrations']
    assert result == WARNING
    assert 'migrate_flavors: 2' in details
    assert 'nova-lite-manage db online_data_migrations' in details
    dep.ok('db', 'online_data_migrations')
    code, checks = _check(dep)
    assert checks['Online Data Migrations'] == (SUCCESS, None)
