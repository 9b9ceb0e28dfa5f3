#!/usr/bin/env python3
"""The previous release (N-1), built from the repository's history.

    python tools/upgrade/release.py [--dest DIR]

reads tools/upgrade/PREVIOUS_RELEASE (``version``, ``commit``), exports
that commit's tree with ``git archive`` into DIR/src (default
``.upgrade/<version>`` under the project) and installs it into a venv
of its own, DIR/venv, whose ``bin/`` holds the release's commands
(``nova-lite-api``, ``-conductor``, ``-scheduler``, ``-compute``,
``-manage``...). Built once: a stamp (the commit) says it is done.

The release's dependencies: when its ``install_requires`` are the same
as this tree's, its venv borrows them from the venv running this script
(a ``.pth`` line adding that venv's site-packages after its own, so
that the release's nova_lite is found first) and nova_lite N-1 is
installed with ``--no-deps``: seconds instead of a download of every
pin. When they differ, everything is installed
from the release's own pins. A repository without the commit (a
shallow clone) is an error, never a skip: the upgrade test needs it.

As a library (tools/bench/upgrade.py, tests/real/test_upgrade.py)::

    release = build()          # {'version', 'commit', 'bindir', ...}
"""
import argparse
import configparser
import io
import os
import subprocess
import sys
import sysconfig
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
RECORD = os.path.join(ROOT, 'tools', 'upgrade', 'PREVIOUS_RELEASE')
STAMP = '.nova-lite-release-stamp'


class ReleaseError(Exception):
    """The previous release cannot be built from this repository."""


def previous_release(path=RECORD):
    """{'version': ..., 'commit': ...} as PREVIOUS_RELEASE records it."""
    found = {}
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if '=' in line:
                key, value = (part.strip() for part in line.split('=', 1))
                found[key] = value
    if set(found) != {'version', 'commit'}:
        raise ReleaseError('%s: expected version and commit, found %s'
                           % (path, sorted(found)))
    return found


def _git(*args, **kwargs):
    return subprocess.run(('git', '-C', ROOT) + args, check=True,
                          capture_output=True, **kwargs).stdout


def _requires(setup_cfg_text):
    parser = configparser.ConfigParser()
    parser.read_string(setup_cfg_text)
    lines = parser.get('options', 'install_requires', fallback='')
    return sorted(line.strip() for line in lines.splitlines()
                  if line.strip())


def _export(commit, src):
    """The commit's tree into ``src``: ReleaseError when the repository
    does not have it."""
    try:
        _git('cat-file', '-e', '%s^{commit}' % commit)
    except subprocess.CalledProcessError:
        raise ReleaseError(
            'commit %s (tools/upgrade/PREVIOUS_RELEASE) is not in this '
            'repository\'s history: the upgrade needs a full clone '
            '(git fetch --unshallow)' % commit)
    archive = _git('archive', '--format=tar', commit)
    os.makedirs(src, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(src, filter='data')


def build(dest=None, python=None, log=None):
    """Build (once) and describe the previous release: {'version',
    'commit', 'src', 'venv', 'bindir', 'borrowed'}."""
    log = log or (lambda message: None)
    release = previous_release()
    dest = dest or os.path.join(ROOT, '.upgrade', release['version'])
    src = os.path.join(dest, 'src')
    venv = os.path.join(dest, 'venv')
    release.update(src=src, venv=venv, bindir=os.path.join(venv, 'bin'))
    stamp = os.path.join(venv, STAMP)
    try:
        with open(stamp) as f:
            done = f.read().strip()
    except FileNotFoundError:
        done = None
    ours = _git('show', 'HEAD:setup.cfg', text=True)
    theirs = _git('show', '%s:setup.cfg' % release['commit'], text=True) \
        if _has(release['commit']) else None
    release['borrowed'] = theirs is not None and (
        _requires(theirs) == _requires(ours))
    if done == release['commit']:
        return release
    log('building release %(version)s (%(commit)s) in %(venv)s' % release)
    _export(release['commit'], src)
    python = python or sys.executable
    subprocess.run([python, '-m', 'venv', '--clear', venv], check=True,
                   capture_output=True)
    pip = [os.path.join(venv, 'bin', 'python'), '-m', 'pip', 'install',
           '-q', '--disable-pip-version-check']
    if release['borrowed']:
        site = sysconfig.get_paths()['purelib']
        theirs_site = subprocess.run(
            [os.path.join(venv, 'bin', 'python'), '-c',
             'import sysconfig; print(sysconfig.get_paths()["purelib"])'],
            check=True, capture_output=True, text=True).stdout.strip()
        with open(os.path.join(theirs_site, 'nova-lite-borrowed.pth'),
                  'w') as f:
            # addsitedir: that venv's own .pth files run too (namespace
            # packages, the test-hooks plugin its tests give every
            # process); its site comes after ours, so the release's
            # nova_lite is the one imported.
            f.write('import site; site.addsitedir(%r)\n' % site)
        cmd = pip + ['--no-deps', '--no-build-isolation', src]
    else:
        cmd = pip + [src]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ReleaseError('installing release %s failed:\n%s%s' % (
            release['version'], proc.stdout[-2000:], proc.stderr[-3000:]))
    with open(stamp, 'w') as f:
        f.write(release['commit'] + '\n')
    return release


def _has(commit):
    try:
        _git('cat-file', '-e', '%s^{commit}' % commit)
        return True
    except subprocess.CalledProcessError:
        return False


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--dest', help='where to build (default: '
                        '.upgrade/<version> under the project)')
    args = parser.parse_args(argv)
    try:
        release = build(args.dest, log=print)
    except ReleaseError as exc:
        print(exc, file=sys.stderr)
        return 1
    print('release %(version)s (%(commit)s): %(bindir)s' % release)
    return 0


if __name__ == '__main__':
    sys.exit(main())
