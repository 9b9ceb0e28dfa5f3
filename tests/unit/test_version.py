"""Every command reports the release, and the previous release is
recorded where the upgrade test and doc/upgrade.rst find it."""
import ast
import configparser
import os
import subprocess
import sys


from nova_lite.objects import service_version
from nova_lite import version

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _setup_cfg_version(text):
    parser = configparser.ConfigParser()
    parser.read_string(text)
    return parser['metadata']['version']


def previous_release():
    """{'version': ..., 'commit': ...} from tools/upgrade/PREVIOUS_RELEASE."""
    found = {}
    with open(os.path.join(ROOT, 'tools', 'upgrade',
                           'PREVIOUS_RELEASE')) as f:
        for line in f:
            if line.strip() and not line.startswith('#'):
                key, _, value = line.partition('=')
                found[key.strip()] = value.strip()
    return found


def test_release_is_the_packages_version():
    with open(os.path.join(ROOT, 'setup.cfg')) as f:
        assert version.release_string() == _setup_cfg_version(f.read())


# One process (the imports cost more than the commands): each command's
# main with --version; nova-lite-conductor, -scheduler and -compute parse
# their arguments as nova-lite-api does (config.parse_args, cmd/_run.py).
_COMMANDS = """
import contextlib, io, sys
from nova_lite.cmd import all_in_one, api, manage, status
def api_main(argv):
    sys.argv = ['nova-lite-api'] + argv
    return api.main()
for name, main in (('nova-lite-api', api_main),
                   ('nova-lite-manage', manage.main),
                   ('nova-lite-status', status.main),
                   ('nova-lite-all-in-one', all_in_one.main)):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            code = main(['--version'])
        except SystemExit as exc:
            code = exc.code
    print(name, code, out.getvalue().strip())
"""


def test_every_command_reports_the_release():
    out = subprocess.run([sys.executable, '-c', _COMMANDS],
                         capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    release = version.release_string()
    assert out.stdout.splitlines() == [
        '%s 0 %s' % (name, release) for name in (
            'nova-lite-api', 'nova-lite-manage', 'nova-lite-status',
            'nova-lite-all-in-one')]


def test_previous_release_is_in_history_and_older():
    previous = previous_release()
    # No skip: the upgrade test needs this commit's tree.
    text = subprocess.run(
        ['git', '-C', ROOT, 'show', previous['commit'] + ':setup.cfg'],
        capture_output=True, text=True, check=True).stdout
    assert _setup_cfg_version(text) == previous['version']
    assert (tuple(map(int, previous['version'].split('.')))
            < tuple(map(int, version.release_string().split('.'))))


def test_previous_release_service_version_is_its_codes():
    """service_version.RELEASES names the previous release's last
    service version: the entries of its SERVICE_VERSION_HISTORY."""
    previous = previous_release()
    assert service_version.PREVIOUS_RELEASE == previous['version']
    source = subprocess.run(
        ['git', '-C', ROOT, 'show', previous['commit'] +
         ':nova_lite/objects/service_version.py'],
        capture_output=True, text=True, check=True).stdout
    calls = [node for node in ast.walk(ast.parse(source))
             if isinstance(node, ast.Call)
             and getattr(node.func, 'id', None) == '_history']
    assert len(calls) == 1
    assert (service_version.RELEASES[previous['version']]
            == len(calls[0].args))
    # Its services may run beside this code's during a rolling upgrade.
    oldest_peer = (service_version.SERVICE_VERSION -
                   service_version.SERVICE_VERSION_SKEW)
    assert oldest_peer <= len(calls[0].args)


def test_release_notes_lint():
    reno = os.path.join(os.path.dirname(sys.executable), 'reno')
    out = subprocess.run([reno, '-q', 'lint'], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
