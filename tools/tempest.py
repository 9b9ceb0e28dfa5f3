#!/usr/bin/env python3
"""Run Tempest's compute API tests against a running nova_lite deployment.

    tools/tempest.py venv
    tools/tempest.py run --workdir DIR [--interop | --full | --regex RE]
                         [--concurrency 2]
    tools/tempest.py schemas --workdir DIR

DIR is a deployment started with ``tools/deployment.py start --workdir DIR
--keystone`` (and ``--novncproxy`` for the noVNC console tests: without a
console proxy Tempest is told VNC consoles are off). ``run`` installs
Tempest (tools/tempest-requirements.txt) into a venv of its own
(.tempest-venv) if needed, writes a Tempest workspace in DIR/tempest
whose tempest.conf describes the deployment
(Keystone v3 and its catalog, two images and two flavors, the
microversions the API advertises, the features nova_lite serves, and
[validation]: on, over SSH to the guests' fixed IPs, when the
deployment's guests answer SSH -- tools/deployment.py's default), runs
the selection -- ``--interop``: the 81 tests the 2020.06 interoperability
guideline requires for compute (tools/tempest/interop-2020.06-compute.json);
``--full``: tempest.api.compute -- and prints how many passed, failed and
were skipped, each failure's name and each skip's reason. Exit status 0
when nothing failed.

``schemas`` validates the deployment's response bodies with Tempest's
own compute response schemas at every microversion where one of them
changes, up to the deployment's maximum (tools/tempest/response_schemas.py,
run in .tempest-venv); it prints each body that does not match and exits
1 if any did not.
"""
import argparse
import collections
import configparser
import fcntl
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, '.tempest-venv')
REQUIREMENTS = os.path.join(ROOT, 'tools', 'tempest-requirements.txt')
INTEROP = os.path.join(ROOT, 'tools', 'tempest',
                       'interop-2020.06-compute.json')
SCHEMAS = os.path.join(ROOT, 'tools', 'tempest', 'response_schemas.py')
STAMP = '.nova-lite-tempest-stamp'
# The user and password Tempest logs into guests with (a simulated
# guest takes any user name; the password is the adminPass Tempest
# boots its servers with).
GUEST_USER = 'cirros'
GUEST_PASSWORD = 'gocubsgo'

# Reads the subunit stream of the last run (stdin) in Tempest's venv:
# one JSON line per test with its status and, for a skip, the reason.
_RESULTS = r'''
import json, sys
import subunit, testtools
tests = {}
def on_test(test):
    details = test['details']
    reason = details.get('reason')
    tests[test['id']] = {
        'status': test['status'],
        'reason': reason.as_text() if reason is not None else None}
result = testtools.StreamToDict(on_test)
result.startTestRun()
subunit.ByteStreamToStreamResult(sys.stdin.buffer).run(result)
result.stopTestRun()
for name, test in sorted(tests.items()):
    print(json.dumps(dict(test, id=name)))
'''


def ensure_venv(venv=VENV):
    """The python of Tempest's venv, built (or brought up to
    tools/tempest-requirements.txt) if needed."""
    with open(REQUIREMENTS, 'rb') as f:
        want = hashlib.sha256(f.read()).hexdigest()
    python = os.path.join(venv, 'bin', 'python')
    stamp = os.path.join(venv, STAMP)
    with open(os.path.abspath(venv) + '.lock', 'a') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            with open(stamp) as f:
                if f.read().strip() == want and os.path.exists(python):
                    return python
        except FileNotFoundError:
            pass
        print('tempest: installing Tempest into %s' % venv, file=sys.stderr)
        if not os.path.exists(python):
            base = getattr(sys, '_base_executable', None) or sys.executable
            subprocess.run([base, '-m', 'venv', venv], check=True)
        subprocess.run([python, '-m', 'pip', 'install', '-q', '-r',
                        REQUIREMENTS], check=True)
        with open(stamp, 'w') as f:
            f.write(want + '\n')
    return python


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _http(method, url, token, body=None, headers=None):
    headers = dict(headers or {}, **{'X-Auth-Token': token,
                                     'Content-Type': 'application/json'})
    req = urllib.request.Request(
        url, method=method, headers=headers,
        data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(req, timeout=60) as resp:
        raw = resp.read()
    return json.loads(raw) if raw else None


class Cloud(object):
    """What tempest.conf needs to know about a running deployment."""

    def __init__(self, workdir):
        deployment = _load('nova_lite_deployment_tool',
                           os.path.join(ROOT, 'tools', 'deployment.py'))
        self.dep = deployment.Deployment.load(workdir)
        if self.dep.keystone is None:
            raise SystemExit('tempest: %s was not started with --keystone'
                             % workdir)
        self.keystone = self.dep.keystone
        self.url = self.dep.endpoint.rstrip('/')
        self.token = self.keystone.token()

    def compute(self, method, path, body=None, version='2.1'):
        return _http(method, self.url + '/v2.1' + path, self.token, body,
                     {'OpenStack-API-Version': 'compute %s' % version})

    def versions(self):
        doc = _http('GET', self.url + '/v2.1', self.token)['version']
        return doc['min_version'], doc['version']

    def images(self):
        """The two smallest active images of the embedded image service
        (by min_ram, then min_disk): [{'id', 'min_ram', 'min_disk'}]."""
        images = _http('GET', self.url + '/image/v2/images',
                       self.token)['images']
        active = sorted((i for i in images if i.get('status') == 'active'),
                        key=lambda i: (i.get('min_ram') or 0,
                                       i.get('min_disk') or 0, i['name']))
        if len(active) < 2:
            raise SystemExit('tempest: the image service has fewer than '
                             'two active images')
        return active[:2]

    def flavors(self, images):
        """Two flavor ids, created when missing: the smallest that boot
        both images (at least 128 MB, 1 GB), and one with twice the
        memory (the resize tests' flavor_ref_alt)."""
        ram = max([128] + [i.get('min_ram') or 0 for i in images])
        disk = max([1] + [i.get('min_disk') or 0 for i in images])
        have = {f['name']: f['id']
                for f in self.compute('GET', '/flavors')['flavors']}
        ids = []
        for memory in (ram, 2 * ram):
            name = 'tempest-%dm-%dg' % (memory, disk)
            if name not in have:
                have[name] = self.compute('POST', '/flavors', {'flavor': {
                    'name': name, 'ram': memory, 'vcpus': 1,
                    'disk': disk}})['flavor']['id']
            ids.append(have[name])
        return ids


def features():
    """[compute-feature-enabled] from the routes and actions nova_lite
    serves (its route table), so that a test of a feature nova_lite does
    not have is skipped by Tempest for that reason."""
    from nova_lite.api.openstack import api_version
    from nova_lite.api.openstack.compute import routes
    actions = {a.name for r in routes.ROUTES for a in r.actions}

    def has(*names):
        return str(all(n in actions for n in names)).lower()

    def serves(fragment, method=None):
        return str(any(fragment in r.path and method in (None, r.method)
                       for r in routes.ROUTES)).lower()

    return {
        'resize': has('resize', 'confirmResize', 'revertResize'),
        'cold_migration': has('migrate'),
        'live_migration': has('os-migrateLive'),
        'pause': has('pause', 'unpause'),
        'suspend': has('suspend', 'resume'),
        'shelve': has('shelve', 'unshelve'),
        'shelve_migrate': 'false',
        'rescue': has('rescue', 'unrescue'),
        'change_password': has('changePassword'),
        'console_output': has('os-getConsoleOutput'),
        'snapshot': has('createImage'),
        'interface_attach': serves('os-interface'),
        'lock': has('lock', 'unlock'),
        'personality': 'true',
        'config_drive': 'false',
        'metadata_service': 'false',
        'vnc_console': serves('remote-consoles'),
        'spice_console': 'false',
        'serial_console': 'false',
        'rdp_console': 'false',
        'attach_encrypted_volume': 'false',
        # The simulated hypervisor copies a guest's local disk with it
        # (block migration) and moves volume-backed guests too.
        'block_migration_for_live_migration': has('os-migrateLive'),
        'volume_multiattach': 'false',
        'disk_config': 'true',
        'hostname_fqdn_sanitization': 'false',
        # Rescue of volume-backed servers, with the image's
        # hw_rescue_device/bus (2.87).
        'stable_rescue': str(has('rescue', 'unrescue') == 'true' and hasattr(
            api_version, 'RESCUE_VOLUME_BACKED')).lower(),
        # PUT /servers/{id}/os-volume_attachments/{volume_id} with
        # another volume (the service role's).
        'swap_volume': serves('/os-volume_attachments/{volume_id}', 'PUT'),
        'volume_backed_live_migration': has('os-migrateLive'),
        'can_lock_and_unlock': 'true',
        'cold_migrate_rpc': 'true',
    }


def scheduler_filters(conf_path):
    """Tempest's scheduler_enabled_filters: the host filters the
    deployment's scheduler runs (its [filter_scheduler] enabled_filters,
    else nova_lite's default), those nova_lite has (it ignores the
    others), so that Tempest runs the tests of a filter that is on
    (same_host, different_host...) and skips the others'."""
    from nova_lite.conf import scheduler
    from nova_lite.scheduler import filters
    parser = configparser.RawConfigParser(strict=False)
    parser.read(conf_path)
    names = [o.default for o in scheduler.filter_opts
             if o.name == 'enabled_filters'][0]
    if parser.has_option('filter_scheduler', 'enabled_filters'):
        names = parser.get('filter_scheduler', 'enabled_filters').split(',')
    names = [n.strip() for n in names]
    return ','.join(n for n in names if n in filters.FILTER_MODULES)


def min_compute_nodes(dep):
    """Tempest's [compute] min_compute_nodes: the computes of a one-cell
    deployment (its migration and multi-node tests run when there are
    two); 1 with several cells, because Tempest's migration tests pick
    "another host" among every cell's computes and a server moves only
    within its cell (as in Nova: live migration and a cold migration to
    a named host stay in the cell)."""
    return dep.computes_per_cell if dep.cells == 1 else 1


def write_config(cloud, workspace, concurrency):
    min_version, max_version = cloud.versions()
    images = cloud.images()
    image, image_alt = (i['id'] for i in images)
    flavor, flavor_alt = cloud.flavors(images)
    ks = cloud.keystone
    conf = configparser.ConfigParser()
    conf.optionxform = str
    conf.read_dict({
        'DEFAULT': {'log_dir': os.path.join(workspace, 'logs'),
                    'log_file': 'tempest.log'},
        'auth': {'admin_username': 'admin',
                 'admin_password': _keystone_password(),
                 'admin_project_name': 'admin',
                 'admin_domain_name': 'Default',
                 'use_dynamic_credentials': 'true',
                 'create_isolated_networks': 'false'},
        'identity': {'uri_v3': ks.auth_url, 'auth_version': 'v3',
                     'region': _keystone_region(),
                     'v3_endpoint_type': 'public'},
        'identity-feature-enabled': {'api_v2': 'false',
                                     'api_v3': 'true'},
        'compute': {'image_ref': image, 'image_ref_alt': image_alt,
                    'flavor_ref': flavor, 'flavor_ref_alt': flavor_alt,
                    'min_microversion': min_version,
                    'max_microversion': max_version,
                    'region': _keystone_region(),
                    'build_timeout': '120', 'build_interval': '1',
                    'fixed_network_name': 'private',
                    'min_compute_nodes': str(min_compute_nodes(cloud.dep))},
        'compute-feature-enabled': dict(
            features(), scheduler_enabled_filters=scheduler_filters(
                os.path.join(cloud.dep.workdir, 'top.conf')),
            # Tempest connects to the console proxy: only where one runs
            # (tools/deployment.py start --novncproxy).
            vnc_console=str(bool(
                features()['vnc_console'] == 'true'
                and cloud.dep.novncproxy_port)).lower()),
        'image': {'region': _keystone_region(), 'build_timeout': '60',
                  'build_interval': '1'},
        'network': {'region': _keystone_region(),
                    'shared_physical_network': 'false',
                    # The embedded network service's external network
                    # (the floating IP pool; [local_services]
                    # public_network_*).
                    'public_network_id': _public_network_id(),
                    'floating_network_name': 'public'},
        'volume': {'region': _keystone_region(), 'catalog_type': 'volumev3',
                   'build_timeout': '60', 'build_interval': '1',
                   # The embedded volume service's microversions (a
                   # volume-backed rebuild, 2.93, needs Cinder's 3.68).
                   'min_microversion': '3.0',
                   'max_microversion': _volume_max_microversion()},
        'validation': validation(cloud.dep),
        'service_available': {'nova': 'true', 'glance': 'true',
                              'neutron': 'true', 'cinder': 'true',
                              'swift': 'false', 'heat': 'false',
                              'placement': 'false'},
        'oslo_concurrency': {'lock_path': os.path.join(workspace, 'locks')},
    })
    os.makedirs(os.path.join(workspace, 'etc'), exist_ok=True)
    os.makedirs(os.path.join(workspace, 'logs'), exist_ok=True)
    path = os.path.join(workspace, 'etc', 'tempest.conf')
    with open(path, 'w') as f:
        conf.write(f)
    with open(os.path.join(workspace, '.stestr.conf'), 'w') as f:
        f.write('[DEFAULT]\ntest_path=%s\ntop_dir=%s\n' % (
            os.path.join(_tempest_dir(), 'test_discover'),
            os.path.dirname(_tempest_dir())))
    return path


def validation(dep):
    """[validation]: Tempest logs into the servers it boots (SSH to
    their fixed IP on the "private" network, with the key pair it
    makes -- an ECDSA key it generates and imports, as the API makes
    no keys from 2.92 on -- or the admin password) where
    the deployment's guests answer SSH (tools/deployment.py: its
    computes' [fake_driver] guest_ssh, its private network in
    127.0.0.0/8); else validation is off."""
    if not getattr(dep, 'guest_ssh', False):
        return {'run_validation': 'false'}
    return {'run_validation': 'true',
            'connect_method': 'fixed',
            'network_for_ssh': 'private',
            'ip_version_for_ssh': '4',
            'auth_method': 'keypair',
            'ssh_key_type': 'ecdsa',
            'image_ssh_user': GUEST_USER,
            'image_alt_ssh_user': GUEST_USER,
            'image_ssh_password': GUEST_PASSWORD,
            'image_alt_ssh_password': GUEST_PASSWORD,
            'connect_timeout': '60',
            'ssh_timeout': '60',
            'ping_timeout': '60'}


def _public_network_id():
    from nova_lite.network import api as network_api
    return network_api.PUBLIC_NETWORK_ID


def _volume_max_microversion():
    from nova_lite.api import volume_service
    return volume_service.MAX_MICROVERSION


def _keystone_tool():
    return _load('nova_lite_keystone_tool',
                 os.path.join(ROOT, 'tools', 'keystone.py'))


def _keystone_password():
    return _keystone_tool().PASSWORD


def _keystone_region():
    return _keystone_tool().REGION


def _tempest_dir():
    python = ensure_venv()
    return subprocess.run(
        [python, '-c', 'import os, tempest; '
         'print(os.path.dirname(tempest.__file__))'],
        capture_output=True, text=True, check=True).stdout.strip()


def interop_tests():
    with open(INTEROP) as f:
        return [t['test'] for t in json.load(f)['tests']]


def run(workdir, selection, concurrency=2, regex=None):
    python = ensure_venv()
    bindir = os.path.dirname(python)
    cloud = Cloud(workdir)
    workspace = os.path.join(os.path.abspath(workdir), 'tempest')
    conf = write_config(cloud, workspace, concurrency)
    env = dict(os.environ, TEMPEST_CONFIG_DIR=os.path.dirname(conf),
               TEMPEST_CONFIG='tempest.conf')
    command = [os.path.join(bindir, 'tempest'), 'run',
               '--concurrency', str(concurrency)]
    if selection == 'interop':
        include = os.path.join(workspace, 'interop-include.txt')
        with open(include, 'w') as f:
            # (stestr's ids end with [id-...,tags].)
            f.write(''.join('^%s\\[\n' % t.replace('.', r'\.')
                            for t in interop_tests()))
        command += ['--include-list', include]
    elif selection == 'full':
        command += ['--regex', r'^tempest\.api\.compute\.']
    else:
        command += ['--regex', regex]
    with open(os.path.join(workspace, 'run.log'), 'wb') as log:
        subprocess.run(command, cwd=workspace, env=env, stdout=log,
                       stderr=subprocess.STDOUT)
    stream = subprocess.run(
        [os.path.join(bindir, 'stestr'), 'last', '--subunit'],
        cwd=workspace, env=env, capture_output=True, check=True).stdout
    lines = subprocess.run([python, '-c', _RESULTS], input=stream,
                           capture_output=True, check=True).stdout
    return [json.loads(line) for line in lines.splitlines() if line]


def check_schemas(workdir, out=sys.stdout):
    """Run tools/tempest/response_schemas.py against the deployment;
    (exit status, [failure dicts], summary dict)."""
    python = ensure_venv()
    cloud = Cloud(workdir)
    images = cloud.images()
    flavor = cloud.flavors(images)[0]
    cloud_info = {
        'auth_url': cloud.keystone.auth_url, 'username': 'admin',
        'password': _keystone_password(), 'project': 'admin',
        'region': _keystone_region(), 'image': images[0]['id'],
        'flavor': flavor, 'network': 'private',
        'max_version': cloud.versions()[1]}
    proc = subprocess.run([python, SCHEMAS], input=json.dumps(cloud_info),
                          capture_output=True, text=True)
    failures, summary = [], {}
    for line in proc.stdout.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if 'versions' in item:
            summary = item
        else:
            failures.append(item)
    for item in failures:
        print('SCHEMA FAIL %s %s: %s' % (item['version'], item['call'],
                                         item['error']), file=out)
    if proc.returncode and not failures:
        print(proc.stderr[-3000:], file=out)
    print('checked %s calls at %d microversions (%s), %d failed, %s '
          'accepted where Tempest\'s schemas lag Nova 34' % (
              summary.get('calls'), len(summary.get('versions', [])),
              ' '.join(summary.get('versions', [])), len(failures),
              summary.get('tempest_gaps')), file=out)
    return proc.returncode, failures, summary


def report(results, out=sys.stdout):
    counts = collections.Counter(r['status'] for r in results)
    for r in results:
        if r['status'] == 'fail':
            print('FAIL %s' % r['id'], file=out)
    reasons = collections.Counter(
        (r['reason'] or '').strip() for r in results
        if r['status'] == 'skip')
    for reason, n in reasons.most_common():
        print('SKIP x%d: %s' % (n, reason), file=out)
    print('passed %d, failed %d, skipped %d' % (
        counts['success'], counts['fail'], counts['skip']), file=out)
    return 1 if counts['fail'] else 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('action', choices=['venv', 'run', 'schemas'])
    parser.add_argument('--workdir')
    group = parser.add_mutually_exclusive_group()
    group.add_argument('--interop', action='store_true')
    group.add_argument('--full', action='store_true')
    group.add_argument('--regex')
    parser.add_argument('--concurrency', type=int, default=2)
    args = parser.parse_args(argv)
    if args.action == 'venv':
        print(ensure_venv())
        return 0
    if not args.workdir:
        parser.error('run needs --workdir (a deployment started with '
                     '--keystone)')
    if args.action == 'schemas':
        return check_schemas(args.workdir)[0]
    selection = ('full' if args.full else 'regex' if args.regex
                 else 'interop')
    return report(run(args.workdir, selection, args.concurrency,
                      args.regex))


if __name__ == '__main__':
    sys.exit(main())
