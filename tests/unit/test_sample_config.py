"""etc/nova_lite/nova_lite.conf.sample is what oslo-config-generator
makes of today's options (tox -e genconfig refreshes it): an option
added or changed without the sample fails here."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
GENERATOR = os.path.join(os.path.dirname(sys.executable),
                         'oslo-config-generator')


def test_the_sample_config_is_current(tmp_path):
    made = tmp_path / 'nova_lite.conf.sample'
    subprocess.run(
        [GENERATOR, '--config-file',
         os.path.join(ROOT, 'etc/nova_lite/nova_lite-config-generator.conf'),
         '--output-file', str(made)],
        cwd=ROOT, check=True, capture_output=True)
    with open(os.path.join(ROOT, 'etc/nova_lite/nova_lite.conf.sample')) as f:
        assert made.read_text() == f.read(), (
            'etc/nova_lite/nova_lite.conf.sample is stale: run tox -e '
            'genconfig')
