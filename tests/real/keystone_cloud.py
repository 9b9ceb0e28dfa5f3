"""OpenStack Keystone itself beside a nova_lite API (tools/keystone.py).

``keystone_tool()`` loads tools/keystone.py (under another module name:
``keystone`` is Keystone's own package); ``running_keystone(workdir,
compute_url)`` bootstraps, serves and fills one Keystone, stops it on
exit; ``all_in_one_with_keystone`` runs nova-lite-all-in-one with
``[api] auth_strategy = keystone`` against it. ``call`` is one Compute API
request with a Keystone token; errors come back as (status, body).
"""
import contextlib
import importlib.util
import json
import os
import subprocess
import urllib.error
import urllib.request

import pytest

from tests import clients
from tests.real import conftest as real

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def keystone_tool():
    spec = importlib.util.spec_from_file_location(
        'nova_lite_keystone_tool', os.path.join(ROOT, 'tools', 'keystone.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def require_keystone(tool):
    """Skip (or with NOVA_LITE_REQUIRE_SERVICES=1 fail) when Keystone's
    venv cannot be built (no package index)."""
    try:
        tool.ensure_venv()
    except (subprocess.CalledProcessError, OSError) as exc:
        message = 'OpenStack Keystone could not be installed (%s)' % exc
        if real.REQUIRE:
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


@contextlib.contextmanager
def running_keystone(workdir, compute_url):
    """A bootstrapped, served and filled Keystone (tools/keystone.py)."""
    tool = keystone_tool()
    require_keystone(tool)
    ks = tool.Keystone(workdir, compute_url=compute_url)
    try:
        ks.setup()
        ks.serve()
        ks.populate()
        yield ks
    finally:
        ks.stop()


def write_nova_conf(path, ks, token_cache_time=300, extra=''):
    """A config file putting nova_lite's API behind ks."""
    lines = ['[api]', 'auth_strategy = keystone', '', '[keystone_authtoken]']
    lines += ['%s = %s' % item for item in sorted(
        ks.authtoken_options(token_cache_time).items())]
    with open(path, 'w') as f:
        f.write('\n'.join(lines) + '\n' + extra)
    return path


@contextlib.contextmanager
def all_in_one_with_keystone(state_dir, port, conf):
    """nova-lite-all-in-one on port with conf (auth_strategy keystone)."""
    with open(os.path.join(state_dir, 'all-in-one.log'), 'w') as log:
        proc = clients.start_all_in_one(state_dir, port, log,
                                        '--config-file', conf)
        try:
            clients.wait_until_up(proc, 'http://127.0.0.1:%d/' % port)
            yield proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except Exception:
                proc.kill()
                proc.wait()


def call(endpoint, token, method, path, body=None, version=None):
    """(status, JSON body) of one Compute API request with token."""
    headers = {'X-Auth-Token': token, 'Content-Type': 'application/json'}
    if version:
        headers['OpenStack-API-Version'] = 'compute %s' % version
    req = urllib.request.Request(
        endpoint + '/v2.1' + path, method=method, headers=headers,
        data=None if body is None else json.dumps(body).encode())
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            raw = resp.read()
            return resp.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        return exc.code, json.loads(raw) if raw else None
