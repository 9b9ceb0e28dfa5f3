"""A real nova-lite-conductor process refuses to start when too old."""
import os
import subprocess
import sys

from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite.objects import service_version


def _conf(tmp_path, cells_env, **extra):
    path = tmp_path / 'conductor.conf'
    lines = ['[DEFAULT]', 'host = me', 'transport_url = inproc://',
             '[database]', 'connection = %s' % cells_env.cell_urls['cell1'],
             '[api_database]', 'connection = %s' % cells_env.api_url]
    for group, values in extra.items():
        lines.append('[%s]' % group)
        lines.extend('%s = %s' % kv for kv in values.items())
    path.write_text('\n'.join(lines) + '\n')
    return str(path)


def _run_conductor(conf_file):
    bindir = os.path.dirname(sys.executable)
    return subprocess.run([os.path.join(bindir, 'nova-lite-conductor'),
                           '--config-file', conf_file],
                          capture_output=True, text=True, timeout=60)


def test_conductor_far_behind_its_peers_exits_with_clear_error(
        tmp_path, cells_env):
    newer = (service_version.SERVICE_VERSION +
             service_version.SERVICE_VERSION_SKEW + 1)
    with nova_context.target_cell(cells_env.ctxt,
                                  cells_env.cells['cell1']) as c1:
        objects.Service(c1, host='peer', binary='nova-conductor',
                        topic='conductor', version=newer).create()
    result = _run_conductor(_conf(tmp_path, cells_env))
    assert result.returncode == 3, result.stderr[-2000:]
    assert ('older (v%d) than the minimum (v%d)'
            % (service_version.SERVICE_VERSION, newer)) in result.stderr


def test_conductor_refuses_while_ancient_compute_recorded(tmp_path,
                                                           cells_env):
    with nova_context.target_cell(cells_env.ctxt,
                                  cells_env.cells['cell2']) as c2:
        objects.Service(c2, host='ancient', binary='nova-compute',
                        topic='compute', version=0).create()
    result = _run_conductor(_conf(tmp_path, cells_env))
    assert result.returncode == 3
    assert 'ancient (v0)' in result.stderr
