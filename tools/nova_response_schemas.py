"""Check nova_lite's response bodies against Nova's own response schemas.

How to run (Nova must be importable, so use the interpreter of a Nova
virtualenv; nova_lite is started from its own)::

    /tmp/nova-venv/bin/python tools/nova_response_schemas.py \
        [--nova-lite /work/main/.venv/bin/nova-lite-all-in-one] \
        [--versions 2.1,2.47,2.88] [--roles admin,member] [--verbose]

What it checks: Nova (from 34.0.0) declares a JSON schema for the
response body of most API methods, per microversion range
(``@validation.response_body_schema(schema, min, max)``); the decorator
keeps the ranges on the method as ``response_body_schemas``
(``nova.api.validation.Schemas``). This tool reads them from the
imported controller classes, computes every microversion between 2.1
and 2.88 at which any of them changes, starts nova_lite's all-in-one in
a fresh state directory and, at each of those microversions, as an
administrator and as a project member, calls every endpoint nova_lite
implements (versions, flavors and their extra specs and access,
keypairs, servers and all their actions, ips, metadata, tags, instance
actions, server migrations, volume attachments, availability zones,
services, hypervisors, migrations, images and image metadata). Each 2xx
body is validated with Nova's own validator class
(``nova.api.validation.validators._SchemaValidator``: Draft 2020-12
with Nova's format checker: date-time, uuid, ...) against the schema of
the Nova controller method that serves that request at that
microversion; an empty body is validated as JSON null. Each failure is
reported with the method, the path, the role, the microversions at
which it happens and the validation error (the body path and the
message). Where Nova declares the success code (``@wsgi.response``,
kept as ``wsgi_codes``) or marks the method removed (410), a different
status is reported as a note. Exit status 1 when any body failed.

Besides the calls on fresh servers, long-lived servers are shown at
every microversion: one with a network, key pair, metadata, access
IPs, config drive, user data, description, tags, a volume attached and
a lock reason; one booted from a volume; a stopped one; one in ERROR
(no host could take its flavor: a fault, and its create action in
cell0); a deleted one (listed with deleted=true, its actions from
2.21). Lists are also asked with limit=1 (the *_links bodies).

What it found (48 microversions, 2.1 to 2.88, ~15,500 bodies, about 10
minutes):

- ``GET /servers/{id}/os-instance-actions/{request_id}`` as an
  administrator, from 2.62: the event of a create that no host could
  take (``conductor_schedule_and_build_instances``, recorded in cell0)
  has ``"host": null``; Nova's schema wants a string, and Nova records
  that event with the conductor's host (``host=self.host`` in
  ``ComputeTaskManager._create_instance_action_for_cell0``), hence a
  host name and a hashed ``hostId``. Fixed where the event is written
  (``nova_lite/conductor/build.py``, ``_bury_in_cell0``, now records
  ``[DEFAULT] host``); every body passed after that.
- ``resetNetwork`` answers 410 as Nova does (removed in 23.0.0); its
  fault body is compared like every other.

Not reachable here, so not validated: ``GET
/servers/{id}/migrations/{id}`` (only in-progress live migrations,
which nova_lite does not do), ``DELETE /os-services/{id}`` (it would
remove a service of the running plane) and ``PUT
/servers/{id}/os-volume_attachments/{id}`` before 2.85 (a swap, a 409
with the simulated driver).
"""
import argparse
import collections
import contextlib
import datetime
import importlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography import x509
from cryptography.x509.oid import NameOID
import jsonschema
import requests

from nova.api.openstack import api_version_request
from nova.api.validation import validators

FIRST, LAST = (2, 1), (2, 88)
IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
USER_DATA = 'IyEvYmluL3NoCg=='
TOKENS = {'admin': 'admin:admin', 'member': 'demo:demo'}
ALL_IN_ONE = '/work/main/.venv/bin/nova-lite-all-in-one'
SERVICES_UP = 8

# (Nova controller module, class, method) per name used below.
NOVA = {
    'versions.root': ('versions', 'Versions', 'index'),
    'versions.v21': ('versionsV21', 'VersionsController', 'show'),
    'flavors.index': ('flavors', 'FlavorsController', 'index'),
    'flavors.detail': ('flavors', 'FlavorsController', 'detail'),
    'flavors.show': ('flavors', 'FlavorsController', 'show'),
    'flavors.create': ('flavors', 'FlavorsController', 'create'),
    'flavors.update': ('flavors', 'FlavorsController', 'update'),
    'flavors.delete': ('flavors', 'FlavorsController', 'delete'),
    'extra_specs.index': ('flavors_extraspecs',
                          'FlavorExtraSpecsController', 'index'),
    'extra_specs.create': ('flavors_extraspecs',
                           'FlavorExtraSpecsController', 'create'),
    'extra_specs.show': ('flavors_extraspecs',
                         'FlavorExtraSpecsController', 'show'),
    'extra_specs.update': ('flavors_extraspecs',
                           'FlavorExtraSpecsController', 'update'),
    'extra_specs.delete': ('flavors_extraspecs',
                           'FlavorExtraSpecsController', 'delete'),
    'flavor_access.index': ('flavor_access', 'FlavorAccessController',
                            'index'),
    'flavor_access.add': ('flavor_access', 'FlavorActionController',
                          '_add_tenant_access'),
    'flavor_access.remove': ('flavor_access', 'FlavorActionController',
                             '_remove_tenant_access'),
    'keypairs.index': ('keypairs', 'KeypairController', 'index'),
    'keypairs.create': ('keypairs', 'KeypairController', 'create'),
    'keypairs.show': ('keypairs', 'KeypairController', 'show'),
    'keypairs.delete': ('keypairs', 'KeypairController', 'delete'),
    'servers.index': ('servers', 'ServersController', 'index'),
    'servers.detail': ('servers', 'ServersController', 'detail'),
    'servers.show': ('servers', 'ServersController', 'show'),
    'servers.create': ('servers', 'ServersController', 'create'),
    'servers.update': ('servers', 'ServersController', 'update'),
    'servers.delete': ('servers', 'ServersController', 'delete'),
    'action.os-stop': ('servers', 'ServersController', '_stop'),
    'action.os-start': ('servers', 'ServersController', '_start'),
    'action.reboot': ('servers', 'ServersController', '_reboot'),
    'action.rebuild': ('servers', 'ServersController', '_rebuild'),
    'action.createImage': ('servers', 'ServersController',
                           '_create_image'),
    'action.resize': ('servers', 'ServersController', '_resize'),
    'action.confirmResize': ('servers', 'ServersController',
                             '_confirm_resize'),
    'action.revertResize': ('servers', 'ServersController',
                            '_revert_resize'),
    'action.lock': ('lock_server', 'LockServerController', '_lock'),
    'action.unlock': ('lock_server', 'LockServerController', '_unlock'),
    'action.pause': ('pause_server', 'PauseServerController', '_pause'),
    'action.unpause': ('pause_server', 'PauseServerController',
                       '_unpause'),
    'action.suspend': ('suspend_server', 'SuspendServerController',
                       '_suspend'),
    'action.resume': ('suspend_server', 'SuspendServerController',
                      '_resume'),
    'action.os-resetState': ('admin_actions', 'AdminActionsController',
                             '_reset_state'),
    'action.resetNetwork': ('admin_actions', 'AdminActionsController',
                            '_reset_network'),
    'action.migrate': ('migrate_server', 'MigrateServerController',
                       '_migrate'),
    'ips.index': ('ips', 'IPsController', 'index'),
    'ips.show': ('ips', 'IPsController', 'show'),
    'instance_actions.index': ('instance_actions',
                               'InstanceActionsController', 'index'),
    'instance_actions.show': ('instance_actions',
                              'InstanceActionsController', 'show'),
    'metadata.index': ('server_metadata', 'ServerMetadataController',
                       'index'),
    'metadata.create': ('server_metadata', 'ServerMetadataController',
                        'create'),
    'metadata.update_all': ('server_metadata', 'ServerMetadataController',
                            'update_all'),
    'metadata.show': ('server_metadata', 'ServerMetadataController',
                      'show'),
    'metadata.update': ('server_metadata', 'ServerMetadataController',
                        'update'),
    'metadata.delete': ('server_metadata', 'ServerMetadataController',
                        'delete'),
    'tags.index': ('server_tags', 'ServerTagsController', 'index'),
    'tags.update_all': ('server_tags', 'ServerTagsController',
                        'update_all'),
    'tags.update': ('server_tags', 'ServerTagsController', 'update'),
    'tags.show': ('server_tags', 'ServerTagsController', 'show'),
    'tags.delete': ('server_tags', 'ServerTagsController', 'delete'),
    'tags.delete_all': ('server_tags', 'ServerTagsController',
                        'delete_all'),
    'server_migrations.index': ('server_migrations',
                                'ServerMigrationsController', 'index'),
    'server_migrations.show': ('server_migrations',
                               'ServerMigrationsController', 'show'),
    'volume_attachments.index': ('volume_attachments',
                                 'VolumeAttachmentController', 'index'),
    'volume_attachments.create': ('volume_attachments',
                                  'VolumeAttachmentController', 'create'),
    'volume_attachments.show': ('volume_attachments',
                                'VolumeAttachmentController', 'show'),
    'volume_attachments.update': ('volume_attachments',
                                  'VolumeAttachmentController', 'update'),
    'volume_attachments.delete': ('volume_attachments',
                                  'VolumeAttachmentController', 'delete'),
    'az.index': ('availability_zone', 'AvailabilityZoneController',
                 'index'),
    'az.detail': ('availability_zone', 'AvailabilityZoneController',
                  'detail'),
    'services.index': ('services', 'ServiceController', 'index'),
    'services.update': ('services', 'ServiceController', 'update'),
    'hypervisors.index': ('hypervisors', 'HypervisorsController', 'index'),
    'hypervisors.detail': ('hypervisors', 'HypervisorsController',
                           'detail'),
    'hypervisors.show': ('hypervisors', 'HypervisorsController', 'show'),
    'hypervisors.statistics': ('hypervisors', 'HypervisorsController',
                               'statistics'),
    'hypervisors.uptime': ('hypervisors', 'HypervisorsController',
                           'uptime'),
    'hypervisors.search': ('hypervisors', 'HypervisorsController',
                           'search'),
    'hypervisors.servers': ('hypervisors', 'HypervisorsController',
                            'servers'),
    'migrations.index': ('migrations', 'MigrationsController', 'index'),
    'images.index': ('images', 'ImagesController', 'index'),
    'images.detail': ('images', 'ImagesController', 'detail'),
    'images.show': ('images', 'ImagesController', 'show'),
    'images.delete': ('images', 'ImagesController', 'delete'),
    'image_metadata.index': ('image_metadata', 'ImageMetadataController',
                             'index'),
    'image_metadata.show': ('image_metadata', 'ImageMetadataController',
                            'show'),
    'image_metadata.create': ('image_metadata', 'ImageMetadataController',
                              'create'),
    'image_metadata.update': ('image_metadata', 'ImageMetadataController',
                              'update'),
    'image_metadata.update_all': ('image_metadata',
                                  'ImageMetadataController', 'update_all'),
    'image_metadata.delete': ('image_metadata', 'ImageMetadataController',
                              'delete'),
}


def _parse(version):
    major, minor = version.split('.')
    return int(major), int(minor)


def _fmt(version):
    return '%d.%d' % version


class Oracle(object):
    """Nova's response schemas and status codes, per method and
    microversion, read from the decorated controller methods."""

    def __init__(self):
        self._methods = {}
        for name, (module, cls, method) in NOVA.items():
            mod = importlib.import_module(
                'nova.api.openstack.compute.' + module)
            self._methods[name] = getattr(getattr(mod, cls), method)

    @staticmethod
    def _ranges(func):
        schemas = getattr(func, 'response_body_schemas', None)
        return list(schemas._schemas) if schemas is not None else []

    def schema(self, name, version):
        """(schema, 'min-max') for name at version, or (None, None)."""
        req = api_version_request.APIVersionRequest(version)
        for schema, low, high in self._ranges(self._methods[name]):
            if req.matches(low, high):
                label = '%s-%s' % (
                    low.get_string() if not low.is_null() else '',
                    high.get_string() if not high.is_null() else '')
                return schema, label
        return None, None

    def removed(self, name):
        """Nova answers 410 Gone (wsgi.removed)."""
        return getattr(self._methods[name], 'removed', False)

    def status(self, name, version):
        """Nova's declared success code, or None when the method sets
        its own (no wsgi.response decorator)."""
        codes = getattr(self._methods[name], 'wsgi_codes', None)
        if codes is None:
            return None
        req = api_version_request.APIVersionRequest(version)
        for code, low, high in codes._codes:
            if req.matches(api_version_request.APIVersionRequest(low),
                           api_version_request.APIVersionRequest(high)):
                return code
        return None

    @staticmethod
    def boundaries():
        """Every microversion in [2.1, 2.88] at which some response schema
        of a Nova controller starts or stops applying."""
        import nova.api.openstack.compute as compute_pkg
        import pkgutil
        found = {FIRST}
        for info in pkgutil.iter_modules(compute_pkg.__path__):
            if info.ispkg or info.name == 'routes':
                continue
            try:
                mod = importlib.import_module(
                    'nova.api.openstack.compute.' + info.name)
            except Exception:  # noqa: B902 - optional controllers
                continue
            for cls in vars(mod).values():
                if not isinstance(cls, type) or \
                        cls.__module__ != mod.__name__:
                    continue
                for func in vars(cls).values():
                    for _s, low, high in Oracle._ranges(func):
                        if not low.is_null():
                            found.add((low.ver_major, low.ver_minor))
                        if not high.is_null():
                            found.add((high.ver_major, high.ver_minor + 1))
        return sorted(v for v in found if FIRST <= v <= LAST)


def _errors(schema, body):
    """[(json path, message)] of body against schema, Nova's validator."""
    validator = validators._SchemaValidator(schema).validator
    found = []
    for error in validator.iter_errors(body):
        message = error.message
        if error.context:
            best = jsonschema.exceptions.best_match(error.context)
            message += ' [%s: %s]' % (
                '/'.join(str(p) for p in best.absolute_path) or '.',
                best.message)
        found.append(('/' + '/'.join(str(p) for p in error.absolute_path),
                      message[:400]))
    return found


class Report(object):
    """Failures grouped by (method, path, role, body path, message)."""

    def __init__(self):
        self.failures = collections.OrderedDict()
        self.notes = collections.OrderedDict()
        self.checked = 0
        self.coverage = collections.Counter()
        self.unchecked = collections.Counter()

    def _key_path(self, path):
        return re.sub(r'/\d+(?=/|$)', '/*', path)

    def fail(self, method, path, version, role, error_path, message,
             schema_range):
        key = (method, path, role, self._key_path(error_path),
               re.sub(r"'[^']*'", "'…'", message))
        entry = self.failures.setdefault(key, {'versions': [],
                                               'example': message,
                                               'schema': set()})
        entry['versions'].append(version)
        entry['schema'].add(schema_range)

    def note(self, text, version):
        self.notes.setdefault(text, []).append(version)

    @staticmethod
    def _ranges(versions):
        versions = sorted(set(versions), key=_parse)
        return ', '.join(versions) if len(versions) < 6 else '%s .. %s (%d)' \
            % (versions[0], versions[-1], len(versions))

    def render(self, out=sys.stdout):
        out.write('\n%d bodies validated; %d differences, %d notes\n'
                  % (self.checked, len(self.failures), len(self.notes)))
        for (method, path, role, error_path, _m), entry in \
                self.failures.items():
            out.write('\nFAIL %s %s as %s at %s (Nova schema %s)\n'
                      '     %s: %s\n'
                      % (method, path, role, self._ranges(entry['versions']),
                         ', '.join(sorted(entry['schema'])), error_path,
                         entry['example']))
        for text, versions in self.notes.items():
            out.write('\nNOTE %s at %s\n' % (text, self._ranges(versions)))
        out.write('\nvalidated per Nova method: %s\n' % ', '.join(
            '%s=%d' % kv for kv in sorted(self.coverage.items())))
        if self.unchecked:
            out.write('\nnot 2xx (not validated): %s\n' % ', '.join(
                '%s=%d' % kv for kv in sorted(self.unchecked.items())))


class Client(object):
    """Calls nova_lite at one microversion as one role, validating each
    2xx body against Nova's schema for the named method."""

    def __init__(self, base, oracle, report, version, role, verbose=False):
        self.base = base
        self.oracle = oracle
        self.report = report
        self.version = version
        self.role = role
        self.verbose = verbose
        self.session = requests.Session()

    def raw(self, method, path, body=None, version=None, token=None,
            root=False):
        version = version or self.version
        headers = {'X-Auth-Token': token or TOKENS[self.role],
                   'OpenStack-API-Version': 'compute %s' % version,
                   'X-OpenStack-Nova-API-Version': version}
        url = self.base + ('' if root else '/v2.1') + path
        kwargs = {'headers': headers, 'timeout': 60}
        if body is not None:
            kwargs['json'] = body
        return self.session.request(method, url, **kwargs)

    def __call__(self, name, method, template, body=None, root=False,
                 **params):
        path = template.format(**params)
        response = self.raw(method, path, body, root=root)
        shown = '/v2.1' + template if not root else template or '/'
        if name.startswith('action.'):
            shown += ' ' + name.split('.', 1)[1]
        if not 200 <= response.status_code < 300:
            self.report.unchecked['%s %s' % (name, response.status_code)] \
                += 1
            if response.status_code >= 500:
                self.report.note('%s %s as %s answered %s: %s' % (
                    method, shown, self.role, response.status_code,
                    response.text[:200]), self.version)
            if self.verbose:
                print('   %s %s %s -> %s' % (self.role, method, path,
                                             response.status_code))
            return response, None
        data = response.json() if response.content else None
        if self.oracle.removed(name):
            self.report.note('%s %s as %s: status %s, Nova 410 (removed)'
                             % (method, shown, self.role,
                                response.status_code), self.version)
        expected = self.oracle.status(name, self.version)
        if expected is not None and expected != response.status_code:
            self.report.note('%s %s as %s: status %s, Nova %s' % (
                method, shown, self.role, response.status_code, expected),
                self.version)
        schema, label = self.oracle.schema(name, self.version)
        if schema is None:
            self.report.note('%s %s: Nova has no response schema for %s'
                             % (method, shown, NOVA[name][2]), self.version)
            return response, data
        self.report.checked += 1
        self.report.coverage[name] += 1
        for error_path, message in _errors(schema, data):
            self.report.fail(method, shown, self.version, self.role,
                             error_path, message, label)
        if self.verbose:
            print('   %s %s %s -> %s' % (self.role, method, path,
                                         response.status_code))
        return response, data

    # helpers that do not validate

    def server(self, server_id):
        response = self.raw('GET', '/servers/%s' % server_id,
                            version='2.1', token=TOKENS['admin'])
        return response.json()['server'] if response.ok else None

    def wait(self, server_id, status, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            server = self.server(server_id)
            if status is None and server is None:
                return None
            if server and server['status'] == status and \
                    server.get('OS-EXT-STS:task_state') is None:
                return server
            if server and server['status'] == 'ERROR' and status != 'ERROR':
                raise RuntimeError('server %s went to ERROR' % server_id)
            time.sleep(0.1)
        raise RuntimeError('server %s not %s after %ss' % (
            server_id, status, timeout))

    def at_least(self, version):
        return _parse(self.version) >= _parse(version)

    def below(self, version):
        return _parse(self.version) < _parse(version)


# --------------------------------------------------------------- scenarios

def check_versions(c, _fx):
    c('versions.root', 'GET', '', root=True)
    c('versions.v21', 'GET', '')
    c('versions.v21', 'GET', '/')


def check_flavors(c, fx):
    c('flavors.index', 'GET', '/flavors')
    c('flavors.detail', 'GET', '/flavors/detail')
    c('flavors.show', 'GET', '/flavors/{f}', f=fx['flavor'])
    c('extra_specs.index', 'GET', '/flavors/{f}/os-extra_specs',
      f=fx['flavor'])
    c('extra_specs.show', 'GET', '/flavors/{f}/os-extra_specs/{k}',
      f=fx['flavor'], k='hw:cpu_policy')
    c('flavors.index', 'GET', '/flavors?limit=1')
    c('flavors.detail', 'GET', '/flavors/detail?limit=1')
    c('flavors.detail', 'GET', '/flavors/detail?is_public=None')
    body = {'flavor': {'name': 'check-%s-%s' % (c.version, c.role),
                       'ram': 64, 'vcpus': 1, 'disk': 1, 'swap': 512,
                       'OS-FLV-EXT-DATA:ephemeral': 1, 'rxtx_factor': 2.0,
                       'os-flavor-access:is_public': False}}
    if c.at_least('2.55'):
        body['flavor']['description'] = 'checked'
    _r, created = c('flavors.create', 'POST', '/flavors', body)
    if not created:
        return
    flavor = created['flavor']['id']
    if c.at_least('2.55'):
        c('flavors.update', 'PUT', '/flavors/{f}',
          {'flavor': {'description': 'updated'}}, f=flavor)
    c('extra_specs.create', 'POST', '/flavors/{f}/os-extra_specs',
      {'extra_specs': {'hw:cpu_policy': 'shared', 'k': 'v'}}, f=flavor)
    c('extra_specs.update', 'PUT', '/flavors/{f}/os-extra_specs/{k}',
      {'k': 'w'}, f=flavor, k='k')
    c('extra_specs.show', 'GET', '/flavors/{f}/os-extra_specs/{k}',
      f=flavor, k='k')
    c('flavors.show', 'GET', '/flavors/{f}', f=flavor)
    c('flavor_access.add', 'POST', '/flavors/{f}/action',
      {'addTenantAccess': {'tenant': 'demo'}}, f=flavor)
    c('flavor_access.index', 'GET', '/flavors/{f}/os-flavor-access',
      f=flavor)
    c('flavor_access.remove', 'POST', '/flavors/{f}/action',
      {'removeTenantAccess': {'tenant': 'demo'}}, f=flavor)
    c('extra_specs.delete', 'DELETE', '/flavors/{f}/os-extra_specs/{k}',
      f=flavor, k='k')
    c('flavors.delete', 'DELETE', '/flavors/{f}', f=flavor)


def check_keypairs(c, _fx):
    name = 'kp-%s-%s' % (c.version.replace('.', '-'), c.role)
    c('keypairs.create', 'POST', '/os-keypairs', {'keypair': {'name': name}})
    _r, generated = c('keypairs.show', 'GET', '/os-keypairs/{n}', n=name)
    c('keypairs.index', 'GET', '/os-keypairs')
    if c.at_least('2.35'):
        c('keypairs.index', 'GET', '/os-keypairs?limit=1')
    if c.at_least('2.2'):
        x509 = name + '-x509'
        c('keypairs.create', 'POST', '/os-keypairs', {'keypair': {
            'name': x509, 'type': 'x509', 'public_key': _certificate()}})
        c('keypairs.show', 'GET', '/os-keypairs/{n}', n=x509)
        c('keypairs.delete', 'DELETE', '/os-keypairs/{n}', n=x509)
    if generated:
        body = {'keypair': {'name': name + '-imported', 'public_key':
                            generated['keypair']['public_key']}}
        c('keypairs.create', 'POST', '/os-keypairs', body)
        c('keypairs.delete', 'DELETE', '/os-keypairs/{n}',
          n=name + '-imported')
    c('keypairs.delete', 'DELETE', '/os-keypairs/{n}', n=name)


_CERTIFICATE = []


def _certificate():
    """A self-signed PEM certificate, to import as an x509 key pair."""
    if not _CERTIFICATE:
        key = rsa.generate_private_key(public_exponent=65537,
                                       key_size=2048)
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, 'check')])
        now = datetime.datetime.now(datetime.timezone.utc)
        cert = (x509.CertificateBuilder().subject_name(name)
                .issuer_name(name).public_key(key.public_key())
                .serial_number(x509.random_serial_number())
                .not_valid_before(now)
                .not_valid_after(now + datetime.timedelta(days=30))
                .sign(key, hashes.SHA256()))
        _CERTIFICATE.append(cert.public_bytes(
            serialization.Encoding.PEM).decode())
    return _CERTIFICATE[0]


def check_zones(c, _fx):
    c('az.index', 'GET', '/os-availability-zone')
    c('az.detail', 'GET', '/os-availability-zone/detail')


def check_services(c, _fx):
    _r, listed = c('services.index', 'GET', '/os-services')
    if not listed:
        return
    compute = [s for s in listed['services']
               if s['binary'] == 'nova-compute'][0]
    if c.at_least('2.53'):
        path = '/os-services/{s}'
        for body in ({'status': 'disabled', 'disabled_reason': 'check'},
                     {'status': 'enabled'}, {'forced_down': True}):
            c('services.update', 'PUT', path, body, s=compute['id'])
        c('services.index', 'GET', '/os-services?binary=nova-compute')
        c('hypervisors.detail', 'GET', '/os-hypervisors/detail')
        c('services.update', 'PUT', path, {'forced_down': False},
          s=compute['id'])
        return
    who = {'host': compute['host'], 'binary': 'nova-compute'}
    c('services.update', 'PUT', '/os-services/disable', who)
    c('services.update', 'PUT', '/os-services/disable-log-reason',
      dict(who, disabled_reason='check'))
    c('services.update', 'PUT', '/os-services/enable', who)
    if c.at_least('2.11'):
        c('services.update', 'PUT', '/os-services/force-down',
          dict(who, forced_down=True))
        c('services.index', 'GET', '/os-services?binary=nova-compute')
        c('hypervisors.detail', 'GET', '/os-hypervisors/detail')
        c('services.update', 'PUT', '/os-services/force-down',
          dict(who, forced_down=False))


def check_hypervisors(c, _fx):
    _r, listed = c('hypervisors.index', 'GET', '/os-hypervisors')
    c('hypervisors.detail', 'GET', '/os-hypervisors/detail')
    if c.at_least('2.33'):
        c('hypervisors.index', 'GET', '/os-hypervisors?limit=1')
        c('hypervisors.detail', 'GET', '/os-hypervisors/detail?limit=1')
    if not listed:
        return
    first = listed['hypervisors'][0]
    c('hypervisors.show', 'GET', '/os-hypervisors/{h}', h=first['id'])
    if c.below('2.88'):
        c('hypervisors.statistics', 'GET', '/os-hypervisors/statistics')
        c('hypervisors.uptime', 'GET', '/os-hypervisors/{h}/uptime',
          h=first['id'])
    name = first['hypervisor_hostname']
    if c.below('2.53'):
        c('hypervisors.search', 'GET', '/os-hypervisors/{n}/search', n=name)
        c('hypervisors.servers', 'GET', '/os-hypervisors/{n}/servers',
          n=name)
    else:
        c('hypervisors.index', 'GET',
          '/os-hypervisors?hypervisor_hostname_pattern={n}'
          '&with_servers=true', n=name)
        c('hypervisors.detail', 'GET',
          '/os-hypervisors/detail?with_servers=true')
        c('hypervisors.show', 'GET', '/os-hypervisors/{h}?with_servers=true',
          h=first['id'])


def check_migrations(c, _fx):
    c('migrations.index', 'GET', '/os-migrations')
    if c.at_least('2.59'):
        c('migrations.index', 'GET', '/os-migrations?limit=1')


def check_images(c, fx):
    if not c.below('2.36'):
        return
    c('images.index', 'GET', '/images')
    c('images.detail', 'GET', '/images/detail')
    c('images.show', 'GET', '/images/{i}', i=IMAGE)
    snapshot = fx.get('snapshot', {}).get(c.role)
    if not snapshot or not c.below('2.39'):
        return
    c('image_metadata.index', 'GET', '/images/{i}/metadata', i=snapshot)
    c('image_metadata.create', 'POST', '/images/{i}/metadata',
      {'metadata': {'a': '1'}}, i=snapshot)
    c('image_metadata.update_all', 'PUT', '/images/{i}/metadata',
      {'metadata': {'a': '2', 'b': '3'}}, i=snapshot)
    c('image_metadata.show', 'GET', '/images/{i}/metadata/{k}',
      i=snapshot, k='a')
    c('image_metadata.update', 'PUT', '/images/{i}/metadata/{k}',
      {'meta': {'a': '4'}}, i=snapshot, k='a')
    c('image_metadata.delete', 'DELETE', '/images/{i}/metadata/{k}',
      i=snapshot, k='a')
    c('images.show', 'GET', '/images/{i}', i=snapshot)
    c('images.delete', 'DELETE', '/images/{i}', i=snapshot)


def _action(c, server, action, body, wait=None):
    response, _data = c('action.' + action, 'POST', '/servers/{s}/action',
                        {action: body}, s=server)
    if response.ok and wait:
        c.wait(server, wait)
        c('servers.show', 'GET', '/servers/{s}', s=server)
    return response


def _create_server(c, fx, name):
    body = {'server': {'name': name, 'imageRef': IMAGE,
                       'flavorRef': fx['flavor'], 'adminPass': 'checked',
                       'security_groups': [{'name': 'default'}]}}
    if c.at_least('2.37'):
        body['server']['networks'] = 'none'
    _r, created = c('servers.create', 'POST', '/servers', body)
    if not created:
        return None
    server = created['server']['id']
    # While it builds: no host, no launch time yet.
    c('servers.show', 'GET', '/servers/{s}', s=server)
    c('servers.detail', 'GET', '/servers/detail')
    c.wait(server, 'ACTIVE')
    return server


def check_reservation(c, fx):
    body = {'server': {'name': 'check-rid', 'imageRef': IMAGE,
                       'flavorRef': fx['flavor'], 'min_count': 2,
                       'return_reservation_id': True}}
    if c.at_least('2.37'):
        body['server']['networks'] = 'none'
    _r, created = c('servers.create', 'POST', '/servers', body)
    if not created:
        return
    listed = c.raw('GET', '/servers?reservation_id=%s'
                   % created['reservation_id']).json()['servers']
    for server in listed:
        c.wait(server['id'], 'ACTIVE')
        c.raw('DELETE', '/servers/%s' % server['id'])
    for server in listed:
        c.wait(server['id'], None)


def check_fixture_servers(c, fx):
    """Show the long-lived servers (rich, volume-backed, stopped, in
    error, deleted) and list with paging and filters."""
    mine = fx['servers'][c.role]
    for kind, server in sorted(mine.items()):
        if kind == 'deleted':
            continue
        _r, shown = c('servers.show', 'GET', '/servers/{s}', s=server)
        c('ips.index', 'GET', '/servers/{s}/ips', s=server)
        for label in (shown or {}).get('server', {}).get('addresses', {}):
            c('ips.show', 'GET', '/servers/{s}/ips/{n}', s=server, n=label)
        c('volume_attachments.index', 'GET',
          '/servers/{s}/os-volume_attachments', s=server)
        _r, listed = c('instance_actions.index', 'GET',
                       '/servers/{s}/os-instance-actions', s=server)
        for action in (listed or {}).get('instanceActions', []):
            c('instance_actions.show', 'GET',
              '/servers/{s}/os-instance-actions/{r}', s=server,
              r=action['request_id'])
    response, _data = c('action.createImage', 'POST', '/servers/{s}/action',
                        {'createImage': {'name': 'volume-snap'}},
                        s=mine['volume'])
    if response.ok:
        c.wait(mine['volume'], 'ACTIVE')
    for volume in fx['volumes'][c.role]:
        c('volume_attachments.show', 'GET',
          '/servers/{s}/os-volume_attachments/{v}', s=mine['rich'],
          v=volume)
    c('servers.index', 'GET', '/servers?limit=1')
    c('servers.detail', 'GET', '/servers/detail?limit=1')
    c('servers.detail', 'GET', '/servers/detail?status=ERROR')
    if c.at_least('2.58'):
        c('instance_actions.index', 'GET',
          '/servers/{s}/os-instance-actions?limit=1', s=mine['rich'])
    if c.at_least('2.21'):
        _r, listed = c('instance_actions.index', 'GET',
                       '/servers/{s}/os-instance-actions',
                       s=mine['deleted'])
        for action in (listed or {}).get('instanceActions', []):
            c('instance_actions.show', 'GET',
              '/servers/{s}/os-instance-actions/{r}', s=mine['deleted'],
              r=action['request_id'])
    if c.role == 'admin':
        c('servers.detail', 'GET', '/servers/detail?all_tenants=1')
        c('servers.index', 'GET', '/servers?all_tenants=1&deleted=true')
        c('servers.detail', 'GET',
          '/servers/detail?all_tenants=1&deleted=true')
        c('servers.detail', 'GET',
          '/servers/detail?changes-since=2000-01-01T00:00:00Z')


def check_server_basics(c, server):
    c('servers.index', 'GET', '/servers')
    c('servers.detail', 'GET', '/servers/detail')
    _r, shown = c('servers.show', 'GET', '/servers/{s}', s=server)
    update = {'name': 'renamed', 'accessIPv4': '192.0.2.30',
              'accessIPv6': '2001:db8::30'}
    if c.at_least('2.19'):
        update['description'] = 'checked'
    c('servers.update', 'PUT', '/servers/{s}', {'server': update}, s=server)
    c('ips.index', 'GET', '/servers/{s}/ips', s=server)
    for label in (shown or {}).get('server', {}).get('addresses', {}):
        c('ips.show', 'GET', '/servers/{s}/ips/{n}', s=server, n=label)


def check_server_metadata(c, server):
    path = '/servers/{s}/metadata'
    c('metadata.create', 'POST', path, {'metadata': {'a': '1'}}, s=server)
    c('metadata.index', 'GET', path, s=server)
    c('metadata.update_all', 'PUT', path, {'metadata': {'a': '2', 'b': '3'}},
      s=server)
    c('metadata.show', 'GET', path + '/{k}', s=server, k='a')
    c('metadata.update', 'PUT', path + '/{k}', {'meta': {'a': '4'}},
      s=server, k='a')
    c('metadata.delete', 'DELETE', path + '/{k}', s=server, k='a')


def check_server_tags(c, server):
    if c.below('2.26'):
        return
    path = '/servers/{s}/tags'
    c('tags.update_all', 'PUT', path, {'tags': ['a', 'b']}, s=server)
    c('tags.index', 'GET', path, s=server)
    c('tags.update', 'PUT', path + '/{t}', s=server, t='c')
    c('tags.show', 'GET', path + '/{t}', s=server, t='c')
    c('tags.delete', 'DELETE', path + '/{t}', s=server, t='c')
    c('tags.delete_all', 'DELETE', path, s=server)


def check_server_actions(c, fx, server):
    _action(c, server, 'os-stop', None, 'SHUTOFF')
    _action(c, server, 'os-start', None, 'ACTIVE')
    _action(c, server, 'reboot', {'type': 'SOFT'}, 'ACTIVE')
    _action(c, server, 'lock', {} if c.below('2.73')
            else {'locked_reason': 'checked'})
    c('servers.show', 'GET', '/servers/{s}', s=server)
    _action(c, server, 'unlock', None)
    _action(c, server, 'pause', None, 'PAUSED')
    _action(c, server, 'unpause', None, 'ACTIVE')
    _action(c, server, 'suspend', None, 'SUSPENDED')
    _action(c, server, 'resume', None, 'ACTIVE')
    rebuild = {'imageRef': IMAGE, 'name': 'rebuilt',
               'metadata': {'r': '1'}, 'accessIPv4': '192.0.2.20',
               'OS-DCF:diskConfig': 'AUTO'}
    if c.at_least('2.19'):
        rebuild['description'] = 'rebuilt'
    if c.at_least('2.54'):
        rebuild['key_name'] = fx['keypair'][c.role]
    if c.at_least('2.57'):
        rebuild['user_data'] = USER_DATA
    _action(c, server, 'rebuild', rebuild, 'ACTIVE')
    response = _action(c, server, 'createImage', {'name': 'snap'})
    if response.ok:
        if response.content:
            fx.setdefault('snapshot', {})[c.role] = response.json()[
                'image_id']
        elif response.headers.get('Location'):
            fx.setdefault('snapshot', {})[c.role] = response.headers[
                'Location'].rsplit('/', 1)[-1]
    c.wait(server, 'ACTIVE')
    _action(c, server, 'resize', {'flavorRef': fx['flavor2']},
            'VERIFY_RESIZE')
    c('servers.show', 'GET', '/servers/{s}', s=server)
    _action(c, server, 'confirmResize', None, 'ACTIVE')
    _action(c, server, 'resize', {'flavorRef': fx['flavor']},
            'VERIFY_RESIZE')
    _action(c, server, 'revertResize', None, 'ACTIVE')
    # No host can take it: the migration ends in error, the server is
    # active again (with a fault).
    if _action(c, server, 'resize', {'flavorRef': fx['huge']}).ok:
        c.wait(server, 'ACTIVE')
        c('servers.show', 'GET', '/servers/{s}', s=server)
    if _action(c, server, 'migrate', None, 'VERIFY_RESIZE').ok:
        _action(c, server, 'confirmResize', None, 'ACTIVE')
    _action(c, server, 'os-resetState', {'state': 'active'})
    _action(c, server, 'resetNetwork', None)
    _r, listed = c('instance_actions.index', 'GET',
                   '/servers/{s}/os-instance-actions', s=server)
    for action in (listed or {}).get('instanceActions', [])[:3]:
        c('instance_actions.show', 'GET',
          '/servers/{s}/os-instance-actions/{r}', s=server,
          r=action['request_id'])
    if c.at_least('2.23'):
        _r, listed = c('server_migrations.index', 'GET',
                       '/servers/{s}/migrations', s=server)
        for migration in (listed or {}).get('migrations', []):
            c('server_migrations.show', 'GET', '/servers/{s}/migrations/{m}',
              s=server, m=migration['id'])


def _volume(c):
    response = c.raw('POST', '/volume/v3/volumes',
                     {'volume': {'size': 1, 'name': 'check'}}, root=True)
    response.raise_for_status()
    volume = response.json()['volume']['id']
    _wait_volume(c, volume, 'available')
    return volume


def _wait_volume(c, volume, status):
    deadline = time.time() + 30
    while time.time() < deadline:
        shown = c.raw('GET', '/volume/v3/volumes/%s' % volume, root=True)
        if shown.ok and shown.json()['volume']['status'] == status:
            return
        time.sleep(0.1)
    raise RuntimeError('volume %s not %s' % (volume, status))


def _wait_detached(c, server, volume):
    deadline = time.time() + 30
    while time.time() < deadline:
        listed = c.raw('GET', '/servers/%s/os-volume_attachments' % server)
        ids = [a['volumeId'] for a in listed.json().get(
            'volumeAttachments', [])] if listed.ok else []
        if volume not in ids:
            return
        time.sleep(0.1)


def check_volume_attachments(c, server):
    volume = _volume(c)
    path = '/servers/{s}/os-volume_attachments'
    body = {'volumeAttachment': {'volumeId': volume}}
    if c.at_least('2.49'):
        body['volumeAttachment']['tag'] = 'checked'
    if c.at_least('2.79'):
        body['volumeAttachment']['delete_on_termination'] = True
    _r, attached = c('volume_attachments.create', 'POST', path, body,
                     s=server)
    if not attached:
        return
    _wait_volume(c, volume, 'in-use')
    c('servers.show', 'GET', '/servers/{s}', s=server)
    c('volume_attachments.index', 'GET', path, s=server)
    c('volume_attachments.show', 'GET', path + '/{v}', s=server, v=volume)
    if c.at_least('2.85'):
        c('volume_attachments.update', 'PUT', path + '/{v}',
          {'volumeAttachment': {'volumeId': volume,
                                'delete_on_termination': False}},
          s=server, v=volume)
    c('volume_attachments.delete', 'DELETE', path + '/{v}', s=server,
      v=volume)
    _wait_detached(c, server, volume)


def check_servers(c, fx):
    server = _create_server(c, fx, 'check-%s-%s' % (c.version, c.role))
    if server is None:
        return
    check_server_basics(c, server)
    check_server_metadata(c, server)
    check_server_tags(c, server)
    check_server_actions(c, fx, server)
    check_volume_attachments(c, server)
    c('servers.delete', 'DELETE', '/servers/{s}', s=server)
    c.wait(server, None)


SCENARIOS = (check_versions, check_flavors, check_keypairs, check_zones,
             check_fixture_servers, check_servers, check_reservation,
             check_images, check_services, check_hypervisors,
             check_migrations)


# ----------------------------------------------------------------- plane

def _free_port():
    with contextlib.closing(socket.socket()) as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def all_in_one(command):
    """nova_lite's all-in-one in a fresh state directory, until every
    service is up; stopped and the directory removed on exit."""
    state_dir = tempfile.mkdtemp(prefix='nova-lite-schemas-')
    port = _free_port()
    log = open(os.path.join(state_dir, 'all-in-one.log'), 'w')
    process = subprocess.Popen(
        [command, '--state-dir', state_dir, '--port', str(port)],
        stdout=log, stderr=subprocess.STDOUT)
    base = 'http://127.0.0.1:%d' % port
    try:
        deadline = time.time() + 120
        while True:
            if process.poll() is not None:
                raise RuntimeError('all-in-one exited %s; see %s' % (
                    process.returncode, log.name))
            try:
                response = requests.get(
                    base + '/v2.1/os-services', timeout=5,
                    headers={'X-Auth-Token': TOKENS['admin']})
                services = response.json().get('services', []) \
                    if response.ok else []
                if sum(s['state'] == 'up' for s in services) >= SERVICES_UP:
                    break
            except requests.RequestException:
                pass
            if time.time() > deadline:
                raise RuntimeError('all-in-one not up; see %s' % log.name)
            time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
        shutil.rmtree(state_dir, ignore_errors=True)


def _fixtures(base, oracle, report, roles):
    """Two public flavors (the second larger, to resize to) with an
    extra spec, made by the administrator."""
    admin = Client(base, oracle, report, '2.1', 'admin')
    flavors = []
    for name, ram in (('check-small', 64), ('check-large', 128)):
        response = admin.raw('POST', '/flavors', {'flavor': {
            'name': name, 'ram': ram, 'vcpus': 1, 'disk': 1}})
        response.raise_for_status()
        flavors.append(response.json()['flavor']['id'])
    admin.raw('POST', '/flavors/%s/os-extra_specs' % flavors[0],
              {'extra_specs': {'hw:cpu_policy': 'shared'}}).raise_for_status()
    response = admin.raw('POST', '/flavors', {'flavor': {
        'name': 'check-huge', 'ram': 10 ** 8, 'vcpus': 1, 'disk': 1}})
    response.raise_for_status()
    fx = {'flavor': flavors[0], 'flavor2': flavors[1],
          'huge': response.json()['flavor']['id'],
          'keypair': {}, 'servers': {}, 'volumes': {}}
    for role in roles:
        _role_fixtures(Client(base, oracle, report, _fmt(LAST), role), fx)
    return fx


def _boot(c, body, status='ACTIVE'):
    response = c.raw('POST', '/servers', {'server': body})
    response.raise_for_status()
    server = response.json()['server']['id']
    c.wait(server, status)
    return server


def _role_fixtures(c, fx):
    """One role's long-lived servers: 'rich' (network, key, metadata,
    access IPs, config drive, user data, description, tags, locked with
    a reason, a volume attached), 'volume' (booted from a volume),
    'stopped', 'error' (no host can take its flavor) and 'deleted'."""
    key = 'fx-key-%s' % c.role
    c.raw('POST', '/os-keypairs', {'keypair': {'name': key}},
          version='2.1').raise_for_status()
    fx['keypair'][c.role] = key
    base = {'imageRef': IMAGE, 'flavorRef': fx['flavor'], 'networks': 'none'}
    servers = fx['servers'][c.role] = {}
    servers['rich'] = _boot(c, dict(
        base, name='fx-rich', networks='auto', key_name=key,
        metadata={'m': '1'}, accessIPv4='192.0.2.10',
        accessIPv6='2001:db8::10', config_drive=True,
        user_data=USER_DATA, description='rich', tags=['t1']))
    volume = _volume(c)
    c.raw('POST', '/servers/%s/os-volume_attachments' % servers['rich'],
          {'volumeAttachment': {'volumeId': volume, 'tag': 'fx',
                                'delete_on_termination': True}}
          ).raise_for_status()
    _wait_volume(c, volume, 'in-use')
    c.raw('POST', '/servers/%s/action' % servers['rich'],
          {'lock': {'locked_reason': 'fixture'}}).raise_for_status()
    fx['volumes'][c.role] = [volume]
    servers['volume'] = _boot(c, dict(
        base, name='fx-volume', imageRef='', block_device_mapping_v2=[{
            'source_type': 'image', 'destination_type': 'volume',
            'uuid': IMAGE, 'boot_index': 0, 'volume_size': 1,
            'delete_on_termination': True}]))
    servers['stopped'] = _boot(c, dict(base, name='fx-stopped'))
    c.raw('POST', '/servers/%s/action' % servers['stopped'],
          {'os-stop': None}).raise_for_status()
    c.wait(servers['stopped'], 'SHUTOFF')
    servers['error'] = _boot(c, dict(base, name='fx-error',
                                     flavorRef=fx['huge']), 'ERROR')
    servers['deleted'] = _boot(c, dict(base, name='fx-deleted'))
    c.raw('DELETE', '/servers/%s' % servers['deleted']).raise_for_status()
    c.wait(servers['deleted'], None)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--nova-lite', default=ALL_IN_ONE)
    parser.add_argument('--versions',
                        help='comma separated (default: every boundary)')
    parser.add_argument('--roles', default='admin,member')
    parser.add_argument('--verbose', action='store_true')
    parser.add_argument('--json', help='also write the failures here')
    args = parser.parse_args(argv)

    oracle = Oracle()
    versions = (args.versions.split(',') if args.versions
                else [_fmt(v) for v in oracle.boundaries()])
    roles = args.roles.split(',')
    print('microversions: %s' % ' '.join(versions))
    report = Report()
    with all_in_one(args.nova_lite) as base:
        fixtures = _fixtures(base, oracle, report, roles)
        for version in versions:
            started = time.time()
            for role in roles:
                client = Client(base, oracle, report, version, role,
                                verbose=args.verbose)
                for scenario in SCENARIOS:
                    scenario(client, fixtures)
            print('%s done in %.1fs' % (version, time.time() - started))
    report.render()
    if args.json:
        with open(args.json, 'w') as out:
            json.dump([dict(zip(('method', 'path', 'role', 'error_path',
                                 'message'), key),
                            versions=entry['versions'],
                            example=entry['example'])
                       for key, entry in report.failures.items()],
                      out, indent=1)
    return 1 if report.failures else 0


if __name__ == '__main__':
    sys.exit(main())
