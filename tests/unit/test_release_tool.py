"""tools/upgrade/release.py: what it reads and what it refuses."""
import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


@pytest.fixture
def release():
    spec = importlib.util.spec_from_file_location(
        'nova_lite_release', os.path.join(ROOT, 'tools', 'upgrade',
                                          'release.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_previous_release_reads_version_and_commit(release, tmp_path):
    record = tmp_path / 'PREVIOUS_RELEASE'
    record.write_text('# comment\nversion = 1.2.3\ncommit = abc  # c\n')
    assert release.previous_release(str(record)) == {
        'version': '1.2.3', 'commit': 'abc'}
    record.write_text('version = 1.2.3\n')
    with pytest.raises(release.ReleaseError):
        release.previous_release(str(record))


def test_requires_compares_install_requires(release):
    cfg = '[options]\ninstall_requires =\n    b>=1\n    a\n'
    assert release._requires(cfg) == ['a', 'b>=1']
    assert release._requires('[metadata]\nname = x\n') == []


def test_missing_commit_is_an_error_not_a_skip(release, tmp_path):
    with pytest.raises(release.ReleaseError, match='not in this'):
        release._export('0' * 40, str(tmp_path / 'src'))
