"""nova-lite-status upgrade check: outcomes and exit codes."""
import json
import os
import subprocess
import sys

import pytest

from tests.functional.test_manage_helpers import Deployment

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
