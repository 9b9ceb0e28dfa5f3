"""A non-editable `pip install .` gives working console scripts.

The checkout is copied away and installed (no deps, no build isolation)
into a fresh venv, which then syncs SQLite databases from another
directory: the alembic trees must come from the installed package, not
from a source tree on the path.
"""
import os
import shutil
import subprocess
import sys
import sysconfig

import pytest

from nova_lite.db import migration

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
_NOT_SOURCE = shutil.ignore_patterns(
    '.git', '.venv', '.tox', 'build', 'dist', '*.egg-info', '__pycache__',
    '*.pyc', 'nova-lite-state', '.pytest_cache')


def _run(cmd, cwd, timeout=300):
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                            timeout=timeout,
                            env=dict(os.environ, PYTHONWARNINGS='ignore'))
    assert result.returncode == 0, (cmd, result.stdout, result.stderr)
    return result.stdout


@pytest.fixture(scope='module')
def installed(tmp_path_factory):
    """(venv bin dir, a working directory away from any source tree)."""
    root = tmp_path_factory.mktemp('pip-install')
    source = root / 'src'
    shutil.copytree(REPO, source, ignore=_NOT_SOURCE)
    venv = root / 'venv'
    _run([sys.executable, '-m', 'venv', '--system-site-packages',
          str(venv)], cwd=root)
    # The test interpreter may itself be a venv, whose packages
    # --system-site-packages does not reach: point at them explicitly (a
    # plain path entry, so its .pth files, e.g. an editable nova_lite, are
    # not processed).
    venv_python = str(venv / 'bin' / 'python')
    venv_site = _run([venv_python, '-c', 'import sysconfig; '
                      'print(sysconfig.get_paths()["purelib"])'],
                     cwd=root).strip()
    with open(os.path.join(venv_site, 'test-deps.pth'), 'w') as f:
        f.write(sysconfig.get_paths()['purelib'] + '\n')
    _run([venv_python, '-m', 'pip', 'install', '-q', '--no-deps',
          '--no-build-isolation', str(source)], cwd=root)
    shutil.rmtree(source)  # nothing may come from the copied tree
    workdir = root / 'elsewhere'
    workdir.mkdir()
    return venv / 'bin', workdir


def test_installed_package_is_used_not_the_checkout(installed):
    bin_dir, workdir = installed
    location = _run([str(bin_dir / 'python'), '-c',
                     'import nova_lite.migrations as m; print(m.__file__)'],
                    cwd=workdir).strip()
    assert location.startswith(str(bin_dir.parent)), location
    assert not location.startswith(REPO)


def test_console_scripts_sync_databases_with_shipped_trees(installed):
    bin_dir, workdir = installed
    config = workdir / 'nova_lite.conf'
    config.write_text('[api_database]\nconnection = sqlite:///%s/api.sqlite\n'
                      '[database]\nconnection = sqlite:///%s/cell.sqlite\n'
                      '[local_services]\n'
                      'connection = sqlite:///%s/local_services.sqlite\n'
                      % (workdir, workdir, workdir))
    manage = [str(bin_dir / 'nova-lite-manage'), '--config-file',
              str(config)]
    _run(manage + ['api_db', 'sync'], cwd=workdir)
    _run(manage + ['db', 'sync', '--local_cell'], cwd=workdir)
    assert _run(manage + ['api_db', 'version'], cwd=workdir).strip() == \
        migration.head('api')
    assert _run(manage + ['db', 'version'], cwd=workdir).strip() == \
        migration.head('main')
    _run(manage + ['local_services', 'sync'], cwd=workdir)
    assert _run(manage + ['local_services', 'version'],
                cwd=workdir).strip() == migration.head('local_services')
    for script in ('nova-lite-status', 'nova-lite-api', 'nova-lite-conductor',
                   'nova-lite-scheduler', 'nova-lite-compute',
                   'nova-lite-all-in-one'):
        assert (bin_dir / script).exists(), script
