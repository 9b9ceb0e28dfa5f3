"""`tox -e genconfig` / `tox -e genpolicy`: the oslo generators find our
options and policies through the package's entry points."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)


def _generate(tool, config, tmp_path):
    out = tmp_path / 'out'
    result = subprocess.run(
        [os.path.join(BIN, tool), '--config-file',
         os.path.join(ROOT, 'etc', 'nova_lite', config),
         '--output-file', str(out)],
        capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return out.read_text()


def test_genconfig_writes_every_group(tmp_path):
    sample = _generate('oslo-config-generator',
                       'nova_lite-config-generator.conf', tmp_path)
    for section in ('[DEFAULT]', '[api]', '[api_database]', '[database]',
                    '[upgrade_levels]', '[workarounds]', '[fake_driver]',
                    '[keystone_authtoken]', '[oslo_messaging_rabbit]',
                    '[filter_scheduler]'):
        assert section in sample, section
    for option in ('#transport_url', '#report_interval', '#my_ip',
                   '#disable_compute_service_check_for_ffu',
                   '#cross_cell_move_weight_multiplier = 1000000.0'):
        assert option in sample, option


def test_genpolicy_writes_every_rule(tmp_path):
    from nova_lite import policies
    sample = _generate('oslopolicy-sample-generator',
                       'nova_lite-policy-generator.conf', tmp_path)
    names = [rule.name for rule in policies.list_rules()]
    assert names
    for name in names:
        assert '"%s"' % name in sample, name
