"""Compare nova_lite's request schemas with Nova 34's, body by body.

Run it with the interpreter of a virtualenv where Nova 34 is installed;
nova_lite's side runs in a subprocess with nova_lite's own virtualenv
(its validation module needs pecan, which Nova's venv lacks), and the two
exchange JSON::

    /tmp/nova-venv/bin/python tools/schema_parity.py            # report
    /tmp/nova-venv/bin/python tools/schema_parity.py --endpoint 'POST /servers'
    /tmp/nova-venv/bin/python tools/schema_parity.py --all      # every diff

Options: ``--lite-python PATH`` (default /work/main/.venv/bin/python, else
the .venv next to this file), ``--endpoint SUBSTRING`` (repeatable),
``--all`` (print each differing body instead of one example per
mutation kind), ``--json`` (machine-readable differences).

What it does. ENDPOINTS is the inventory: for each endpoint or action,
which Nova schema applies in which microversion range (from Nova's
``@validation.schema`` / ``@validation.query_schema`` decorators) and
which nova_lite schema does (from our controllers' decorators). For every
band boundary of either side (clipped to 2.1..2.88), it runs a corpus
through Nova's ``_SchemaValidator`` and through nova_lite's
``validation.validate``: the api-ref example bodies, what
openstacksdk/novaclient/tempest/openstackclient send (null vs {}, "1" vs
1, "true"/"True"/"1", keys present with null, empty and unicode strings,
leading/trailing blanks, unknown keys, lengths at the limit and one past
it, base64 with newlines, uuids without dashes or with braces, ...), and
the mutations of every leaf of a full example body by a list of generic
values. A difference is printed as: endpoint, microversions, body, Nova's
verdict, nova_lite's verdict. Fields whose values a controller checks
after the schema (in Nova or in nova_lite, with a 400 either way) are
tagged ``[controller]``: their schema verdicts may differ while the
answers do not.

It exits 1 when a schema difference that is not tagged remains.

Microversions are the band boundaries tested (consecutive ones are
joined: "2.18-2.19" means 2.18 and 2.19 were tried, not the versions
in between, which share a band with one of them).

Findings of the first run (fixed since in nova_lite's schemas and
validation.py):

- minimum/maximum applied to JSON numbers only; Nova also bounds numeric
  strings: flavor "ram": "0", "vcpus": "2147483648", server
  "min_count": "0", bdm "volume_size": "2147483648" were accepted here.
- base64 (user_data, personality): decoded strictly here; Nova skips
  characters outside the alphabet, so "aGVsbG8=\\n" (what
  base64.encodebytes writes) was a 400 here only.
- UUIDs (rebuild imageRef, networks[].port, bdm ids, volumeId, ...):
  Nova's uuid format takes braces, urn:uuid:, no dashes.
- names and descriptions: Nova's pattern ends with '$', so one final
  line feed is accepted ("vm\\n"); characters past the BMP (emoji)
  are refused by Nova.
- server description (create, update, rebuild) is 255 characters in
  Nova, 65535 here (flavor descriptions are 65535 in both).
- PUT /servers accessIPv4/accessIPv6 null: 400 in Nova.
- rebuild key_name (2.54+) is any 1..255 string in Nova.
- POST /servers: imageRef must be a UUID or "" (hrefs and other strings
  were let through); scheduler hints' known keys (group, same_host,
  different_host, cidr, build_near_host_ip, ...) are typed;
  networks[].uuid has the uuid format from 2.37; bdm device_name is
  1..255 of [a-zA-Z0-9._/-], volume_size not null; host and
  hypervisor_hostname (2.74) are [a-zA-Z0-9._-] ("-h" was a 400 here,
  "a:b" accepted).
- os-services: host as above; binary any 1..255 string ("nova compute"
  was a 400); force-down takes a disabled_reason.
- GET /flavors: sort_dir ASC/DESC accepted here, 400 in Nova.
- GET /os-hypervisors: hypervisor_hostname_pattern as host above.
- GET /images (< 2.36): limit, page_size, offset of 0 are a 400 in Nova.
- GET /servers: pattern filters (name, ip, tags, ...) must be non-empty
  valid regular expressions; from 2.75 the instance fields Nova never
  declared (vm_mode, os_type, memory_mb, id, ...) and the ignored sort
  keys are a 400, "_"-prefixed parameters pass; locked reads t/y/n/f in
  any case, as strutils does.
- POST /servers: Nova's band quirk for device tags (network tags at
  2.32-2.36 and from 2.42, block device tags at 2.32 and from 2.42) was
  not followed (both accepted from 2.32).
- PUT /os-services/{enable,disable,disable-log-reason}: forced_down at
  2.11-2.52 was a 400 here (Nova's one schema for every action takes
  it).

Left as they are (tagged in the output): Nova 500s on non-ASCII base64
(a 400 here); fields whose values controllers check with a 400 on both
sides (times, keypair names, forced_down); the servers list's deleted
(strict boolean here, admin-only and lenient in Nova) and sort_dir
(asc/desc here; Nova lets any value reach the database); the
legacy block_device_mapping list; migrate bodies before 2.56 and unlock
bodies past 2.72, which Nova does not validate at all.
"""
import argparse
import copy
import importlib
import json
import os
import subprocess
import sys

MAX_VERSION = (2, 88)
MIN_VERSION = (2, 1)
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

UUID = '6f1c3f9e-8b0a-4a5e-9a3e-2d4c5b6a7f80'


# --- the inventory ----------------------------------------------------------

class Endpoint(object):
    """One endpoint or action: its schemas on both sides, per range.

    nova/lite: [(module, attribute, min, max)] (max None: open);
    a version in no range is not validated (anything goes).
    exists: the versions the endpoint answers at all.
    """

    def __init__(self, name, what, nova, lite, corpus, exists=('2.1', None),
                 controller=(), known=None):
        self.name = name
        # {kind or body key: why}: differences understood and left as
        # they are (not fixable in the schemas alone).
        self.known = known or {}
        self.what = what
        self.nova = nova
        self.lite = lite
        self.corpus = corpus
        self.exists = exists
        self.controller = set(controller)


def _v(text):
    if text is None:
        return None
    major, minor = text.split('.')
    return int(major), int(minor)


def _fmt(version):
    return '%d.%d' % version


def _pick(ranges, version):
    for module, attr, low, high in ranges:
        if _v(low) <= version and (high is None or version <= _v(high)):
            return module, attr
    return None


def _versions(endpoint):
    """Each band boundary of either side, and its neighbours."""
    low = max(_v(endpoint.exists[0]), MIN_VERSION)
    high = min(_v(endpoint.exists[1]) or MAX_VERSION, MAX_VERSION)
    found = {low, high}
    for _m, _a, first, last in endpoint.nova + endpoint.lite:
        for edge in (_v(first), _v(last)):
            if edge is None:
                continue
            found.add(edge)
    return sorted(v for v in found if low <= v <= high)


# --- corpus -----------------------------------------------------------------

GENERIC = [
    None, {}, [], '', ' ', 'x', ' x', 'x ', 'a' * 255, 'a' * 256,
    'a' * 65535, 'a' * 65536, 'ünïcödé ☃', 'x\ny', 'x\n', 'tab\tin',
    '\u200b', 'smile \U0001F600',
    'a:b', '-h', '.h', 'h_1', 'nova compute', '1', '0', '-1', '1.5', 1, 0,
    -1, 1.5, 2147483647, 2147483648, '2147483647', '2147483648', True,
    False, 'true', 'True', 'TRUE', 'yes', 'on', 'false', 'off', 'maybe',
    UUID, UUID.replace('-', ''), '{%s}' % UUID, 'urn:uuid:%s' % UUID,
    UUID.upper(), 'not-a-uuid', '192.168.0.1', '::1', '1.2.3', 'aGVsbG8=',
    'aGVsbG8=\n', 'aGVsbG8', '!!!!', 'AUTO', 'MANUAL', 'auto', 'none',
    'HARD', 'soft', 'active', 'error', 'ssh', 'x509', 'enabled',
    'disabled', ['a'], [''], [1], [{}], [UUID], {'a': 'b'},
    {'k': None}, {'k': 1}, {'bad/key': 'v'}, {'': 'v'}, {'k' * 256: 'v'},
    {'k': 'v' * 256},
]


def _leaves(body, path=()):
    """Paths of every value of body (objects and lists walked)."""
    yield path
    if isinstance(body, dict):
        for key, value in body.items():
            yield from _leaves(value, path + (key,))
    elif isinstance(body, list):
        for index, value in enumerate(body):
            yield from _leaves(value, path + (index,))


def _set(body, path, value):
    new = copy.deepcopy(body)
    target = new
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return new


def _drop(body, path):
    new = copy.deepcopy(body)
    target = new
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return new


def _example(item):
    """(body, first, last) of an example given as a body or a triple."""
    if isinstance(item, tuple):
        return item
    return item, None, None


def mutations(examples):
    """(kind, body, first, last) for the examples and their mutations; a
    mutation is only tried in its example's version range (where Nova
    accepts the example)."""
    for item in examples:
        example, first, last = _example(item)
        yield 'example', example, first, last
        for path in _leaves(example):
            if not path:
                continue
            where = '/'.join(str(p) for p in path)
            parent = example
            for key in path[:-1]:
                parent = parent[key]
            for value in GENERIC:
                yield ('set %s' % where, _set(example, path, value), first,
                       last)
            if isinstance(parent, dict):
                yield 'drop %s' % where, _drop(example, path), first, last
        for path in _leaves(example):
            node = example
            for key in path:
                node = node[key]
            if isinstance(node, dict):
                where = '/'.join(str(p) for p in path) or 'body'
                extra = (_set(example, path + ('unknown_key',), 'x')
                         if path else dict(example, unknown_key='x'))
                yield 'extra key in %s' % where, extra, first, last


def body_corpus(examples, extra=()):
    return lambda: [*mutations(examples),
                    *(('client',) + _example(b) for b in extra)]


QUERY_VALUES = ['', 'x', '1', '0', '-1', '1.5', '10', 'abc', 'true', 'True',
                'false', 'yes', 'maybe', 'asc', 'desc', 'ASC', 'DESC',
                'created_at', 'name', 'flavorid', 'locked', 'vm_mode',
                'id', 'display_name', '2020-01-01T00:00:00Z',
                '2020-01-01', 'notadate', '[', 'a.*', UUID, 'host-1',
                'host 1', 'a:b', 'None', 'ACTIVE', 'enabled']


def query_corpus(names):
    """Every declared parameter (and some unknown ones) with each value,
    once and repeated."""
    def build():
        found = [('example', {}, None, None)]
        for name in [*names, 'unknown', '_internal', 'vm_mode',
                     'os_type', 'metadata']:
            for value in QUERY_VALUES:
                found.append(('param %s' % name, {name: [value]}, None,
                              None))
            found.append(('param %s twice' % name, {name: ['1', '2']},
                          None, None))
        return found
    return build


# Example bodies (api-ref samples, and what clients send).

SERVER = {
    'name': 'new-server-test',
    'imageRef': '70a599e0-31e7-49b7-b260-868f441e862b',
    'flavorRef': '1',
    'availability_zone': 'nova',
    'OS-DCF:diskConfig': 'AUTO',
    'metadata': {'My Server Name': 'Apache1'},
    'personality': [{'path': '/etc/banner.txt',
                     'contents': 'ICAgICAgDQoiQSBjbG91ZCBkb2VzIG5vdA=='}],
    'security_groups': [{'name': 'default'}],
    'user_data': 'IyEvYmluL2Jhc2gKL2Jpbi9zdQplY2hvICJJIGFtIGluIHlvdSEiCg==',
    'adminPass': 'secret',
    'accessIPv4': '1.2.3.4',
    'accessIPv6': '80fe::',
    'key_name': 'key',
    'config_drive': True,
    'min_count': 1,
    'max_count': 1,
    'return_reservation_id': False,
    'networks': [{'uuid': UUID, 'fixed_ip': '10.0.0.2'},
                 {'port': UUID}],
    'block_device_mapping_v2': [{
        'boot_index': '0', 'uuid': UUID, 'source_type': 'image',
        'destination_type': 'local', 'delete_on_termination': True,
        'volume_size': 1, 'device_name': 'vda', 'disk_bus': 'virtio',
        'device_type': 'disk', 'guest_format': 'ext4'}],
}
SERVER_V219 = dict(SERVER, description='a server')
SERVER_V232 = copy.deepcopy(SERVER_V219)
SERVER_V232['networks'][0]['tag'] = 'nic1'
SERVER_V252 = dict(SERVER_V232, tags=['a', 'b'])
SERVER_V257 = copy.deepcopy(SERVER_V252)
del SERVER_V257['personality']
SERVER_V263 = dict(SERVER_V257, trusted_image_certificates=['cert-1'])
SERVER_V267 = copy.deepcopy(SERVER_V263)
SERVER_V267['block_device_mapping_v2'][0]['volume_type'] = 'lvm'
SERVER_V274 = dict(SERVER_V267, host='compute1',
                   hypervisor_hostname='compute1.local')
# Network tags from 2.32 (refused by Nova from 2.37 to 2.41), and block
# device mapping tags (refused by Nova from 2.33 to 2.41).
SERVER_BDM_TAG = copy.deepcopy(SERVER_V232)
SERVER_BDM_TAG['block_device_mapping_v2'][0]['tag'] = 'disk1'
HINTS = {'group': UUID, 'same_host': [UUID], 'different_host': UUID,
         'query': '[">=", "$free_ram_mb", 1024]', 'target_cell': 'cell1',
         'build_near_host_ip': '10.0.0.1', 'cidr': '/24',
         'different_cell': ['cell1'], 'custom': 'anything'}

_SERVER_CLIENT_BODIES = [
    # novaclient: null user_data is dropped; min/max as ints; tempest
    # sends networks 'none' and 'auto'; openstacksdk sends strings.
    {'server': {'name': 'a', 'flavorRef': 1, 'imageRef': '',
                'networks': 'auto'}},
    {'server': {'name': 'a', 'flavorRef': 'http://x/flavors/1',
                'imageRef': 'http://x/images/%s' % UUID,
                'networks': 'none'}},
    {'server': {'name': 'a', 'flavorRef': '1', 'imageRef': UUID,
                'networks': [], 'min_count': '2', 'max_count': '3'}},
    {'server': {'name': 'a', 'flavorRef': '1', 'imageRef': UUID,
                'networks': 'none', 'user_data': None}},
    {'server': {'name': 'a', 'flavorRef': '1', 'imageRef': UUID,
                'networks': 'none', 'description': None}},
    {'server': {'name': 'a', 'flavorRef': '1', 'imageRef': UUID,
                'networks': 'none',
                'block_device_mapping': [{'volume_id': UUID,
                                          'device_name': 'vda',
                                          'volume_size': '1'}]}},
    {'server': {'name': 'a', 'flavorRef': '1', 'imageRef': UUID,
                'networks': 'none'}, 'os:scheduler_hints': HINTS},
    {'server': {'name': 'a', 'flavorRef': '1', 'imageRef': UUID,
                'networks': 'none'},
     'OS-SCH-HNT:scheduler_hints': {'group': [UUID]}},
    {'server': {'name': 'a', 'flavorRef': '1', 'imageRef': UUID,
                'networks': 'none'},
     'os:scheduler_hints': {'group': 'not-a-uuid'}},
    {'server': {'name': 'a', 'flavorRef': '1', 'imageRef': UUID,
                'networks': 'none'},
     'os:scheduler_hints': {'cidr': '24'}},
]

SERVER_CREATE = Endpoint(
    'POST /servers', 'body',
    nova=[('servers', 'create', '2.1', '2.18'),
          ('servers', 'create_v219', '2.19', '2.31'),
          ('servers', 'create_v232', '2.32', '2.32'),
          ('servers', 'create_v233', '2.33', '2.36'),
          ('servers', 'create_v237', '2.37', '2.41'),
          ('servers', 'create_v242', '2.42', '2.51'),
          ('servers', 'create_v252', '2.52', '2.56'),
          ('servers', 'create_v257', '2.57', '2.62'),
          ('servers', 'create_v263', '2.63', '2.66'),
          ('servers', 'create_v267', '2.67', '2.73'),
          ('servers', 'create_v274', '2.74', '2.89')],
    lite=[('servers', 'create', '2.1', '2.18'),
          ('servers', 'create_v219', '2.19', '2.31'),
          ('servers', 'create_v232', '2.32', '2.32'),
          ('servers', 'create_v233', '2.33', '2.36'),
          ('servers', 'create_v237', '2.37', '2.41'),
          ('servers', 'create_v242', '2.42', '2.51'),
          ('servers', 'create_v252', '2.52', '2.56'),
          ('servers', 'create_v257', '2.57', '2.62'),
          ('servers', 'create_v263', '2.63', '2.66'),
          ('servers', 'create_v267', '2.67', '2.73'),
          ('servers', 'create_v274', '2.74', None)],
    corpus=body_corpus(
        [({'server': SERVER, 'os:scheduler_hints': HINTS}, '2.1', '2.18'),
         ({'server': SERVER_V219}, '2.19', '2.41'),
         ({'server': SERVER_V232}, '2.42', '2.51'),
         ({'server': SERVER_V252}, '2.52', '2.56'),
         ({'server': SERVER_V257}, '2.57', '2.62'),
         ({'server': SERVER_V263}, '2.63', '2.66'),
         ({'server': SERVER_V267}, '2.67', '2.73'),
         ({'server': SERVER_V274, 'os:scheduler_hints': HINTS}, '2.74',
          None)],
        _SERVER_CLIENT_BODIES + [({'server': SERVER_V232}, '2.32', '2.56'),
                                 ({'server': SERVER_BDM_TAG}, '2.32',
                                  '2.56')]),
    # networks[].uuid: nova_lite's controller refuses a non-UUID (400).
    controller={'networks/0/uuid'},
    known={
        'block_device_mapping': 'the legacy mapping list is not '
                                'implemented; refused rather than '
                                'ignored'})

SERVER_UPDATE = Endpoint(
    'PUT /servers/{id}', 'body',
    nova=[('servers', 'update', '2.1', '2.18'),
          ('servers', 'update_v219', '2.19', '2.89')],
    lite=[('servers', 'update', '2.1', '2.18'),
          ('servers', 'update_v219', '2.19', None)],
    corpus=body_corpus([({'server': {
        'name': 'new-name', 'OS-DCF:diskConfig': 'MANUAL',
        'accessIPv4': '4.3.2.1', 'accessIPv6': '80fe::'}}, '2.1', '2.18'),
        ({'server': {
            'name': 'new-name', 'OS-DCF:diskConfig': 'MANUAL',
            'accessIPv4': '4.3.2.1', 'accessIPv6': '80fe::',
            'description': 'd'}}, '2.19', None)]))

REBUILD = {'imageRef': UUID, 'name': 'foobar', 'adminPass': 'seekr3t',
           'metadata': {'meta_var': 'meta_val'},
           'preserve_ephemeral': False, 'OS-DCF:diskConfig': 'AUTO',
           'accessIPv4': '1.2.3.4', 'accessIPv6': '80fe::',
           'personality': [{'path': '/etc/banner.txt',
                            'contents': 'aGVsbG8='}]}
REBUILD_V219 = dict(REBUILD, description='d')
REBUILD_V254 = dict(REBUILD_V219, key_name='key')
REBUILD_V257 = dict(REBUILD_V254, user_data='aGVsbG8=')
del REBUILD_V257['personality']
REBUILD_V263 = dict(REBUILD_V257, trusted_image_certificates=['a', 'b'])

SERVER_REBUILD = Endpoint(
    'POST /servers/{id}/action rebuild', 'body',
    nova=[('servers', 'rebuild', '2.1', '2.18'),
          ('servers', 'rebuild_v219', '2.19', '2.53'),
          ('servers', 'rebuild_v254', '2.54', '2.56'),
          ('servers', 'rebuild_v257', '2.57', '2.62'),
          ('servers', 'rebuild_v263', '2.63', '2.89')],
    lite=[('server_images', 'rebuild', '2.1', '2.18'),
          ('server_images', 'rebuild_v219', '2.19', '2.53'),
          ('server_images', 'rebuild_v254', '2.54', '2.56'),
          ('server_images', 'rebuild_v257', '2.57', '2.62'),
          ('server_images', 'rebuild_v263', '2.63', None)],
    corpus=body_corpus(
        [({'rebuild': REBUILD}, '2.1', '2.18'),
         ({'rebuild': REBUILD_V219}, '2.19', '2.53'),
         ({'rebuild': REBUILD_V254}, '2.54', '2.56'),
         ({'rebuild': REBUILD_V257}, '2.57', '2.62'),
         ({'rebuild': REBUILD_V263}, '2.63', None)],
        [({'rebuild': {'imageRef': UUID, 'key_name': None,
                       'user_data': None,
                       'trusted_image_certificates': None}}, '2.63', None)]))


def _action(name, nova, lite, examples, extra=(), **kw):
    return Endpoint('POST /servers/{id}/action %s' % name, 'body', nova,
                    lite, body_corpus(examples, extra), **kw)


_ANY_VALUES = [None, {}, [], '', 1, True, {'a': 1}]


def _bare(name):
    return [{name: value} for value in _ANY_VALUES]


def _argument_free(name, nova_module, nova_schema, lite_schema):
    """An action whose value neither side looks at."""
    return _action(name, [(nova_module, nova_schema, '2.1', None)],
                   [('server_actions', lite_schema, '2.1', None)],
                   [{name: None}], _bare(name))


ACTIONS = [
    _argument_free('os-start', 'servers', 'start_server', 'start'),
    _argument_free('os-stop', 'servers', 'stop_server', 'stop'),
    _argument_free('pause', 'pause_server', 'pause', 'pause'),
    _argument_free('unpause', 'pause_server', 'unpause', 'unpause'),
    _argument_free('suspend', 'suspend_server', 'suspend', 'suspend'),
    _argument_free('resume', 'suspend_server', 'resume', 'resume'),
    _action('createImage',
            [('servers', 'create_image', '2.1', None)],
            [('server_images', 'create_image', '2.1', None)],
            [{'createImage': {'name': 'foo-image',
                              'metadata': {'meta_var': 'meta_val'}}}]),
    _action('resize',
            [('servers', 'resize', '2.1', None)],
            [('server_resize', 'resize', '2.1', None)],
            [{'resize': {'flavorRef': '2', 'OS-DCF:diskConfig': 'AUTO'}}],
            [{'resize': {'flavorRef': 2}}]),
    _action('confirmResize',
            [('servers', 'confirm_resize', '2.1', None)],
            [('server_resize', 'confirm_resize', '2.1', None)],
            [{'confirmResize': None}], _bare('confirmResize')),
    _action('revertResize',
            [('servers', 'revert_resize', '2.1', None)],
            [('server_resize', 'revert_resize', '2.1', None)],
            [{'revertResize': None}], _bare('revertResize')),
    _action('reboot',
            [('servers', 'reboot', '2.1', None)],
            [('server_actions', 'reboot', '2.1', None)],
            [{'reboot': {'type': 'HARD'}}]),
    _action('lock',
            [('lock_server', 'lock', '2.1', '2.72'),
             ('lock_server', 'lock_v273', '2.73', None)],
            [('server_actions', 'lock', '2.1', '2.72'),
             ('server_actions', 'lock_v273', '2.73', None)],
            [{'lock': {'locked_reason': 'I locked it'}}],
            _bare('lock')),
    _action('unlock',
            [('lock_server', 'unlock', '2.1', '2.72')],
            [('server_actions', 'unlock', '2.1', None)],
            [{'unlock': None}], _bare('unlock'),
            known={'': 'Nova validates nothing past 2.72; the '
                           'controller applies our schema at every '
                           'version'}),
    _action('os-resetState',
            [('admin_actions', 'reset_state', '2.1', None)],
            [('server_actions', 'reset_state', '2.1', None)],
            [{'os-resetState': {'state': 'active'}}]),
    _action('migrate',
            [('migrate_server', 'migrate', '2.56', None)],
            [('server_resize', 'migrate', '2.1', '2.55'),
             ('server_resize', 'migrate_v256', '2.56', None)],
            [{'migrate': {'host': 'host1'}}], _bare('migrate'),
            known={'': 'Nova validates nothing before 2.56; our '
                           'schema keeps the body to its one key (a unit '
                           'test holds it)'}),
]

FLAVOR = {'name': 'test_flavor', 'ram': 1024, 'vcpus': 2, 'disk': 10,
          'id': '10', 'rxtx_factor': 2.0, 'OS-FLV-EXT-DATA:ephemeral': 0,
          'swap': 0, 'os-flavor-access:is_public': True}
METADATA = {'metadata': {'foo': 'Foo Value', 'a-b_c:d. e': 'v'}}

OTHER = [
    Endpoint('POST|PUT /servers/{id}/metadata', 'body',
             [('server_metadata', 'create', '2.1', None)],
             [('server_metadata', 'metadata', '2.1', None)],
             body_corpus([METADATA])),
    Endpoint('PUT /servers/{id}/metadata/{key}', 'body',
             [('server_metadata', 'update', '2.1', None)],
             [('server_metadata', 'meta', '2.1', None)],
             body_corpus([{'meta': {'foo': 'Bar Value'}}],
                         [{'meta': {}}, {'meta': {'a': 'b', 'c': 'd'}}])),
    Endpoint('PUT /servers/{id}/tags', 'body',
             [('server_tags', 'update_all', '2.26', None)],
             [('server_tags', 'update_all', '2.26', None)],
             body_corpus([{'tags': ['tag1', 'tag2']}],
                         [{'tags': ['t'] * 50}, {'tags': ['t'] * 51},
                          {'tags': ['a' * 60]}, {'tags': ['a' * 61]},
                          {'tags': ['a,b']}, {'tags': ['a/b']},
                          {'tags': []}]),
             exists=('2.26', None)),
    Endpoint('POST /flavors', 'body',
             [('flavors', 'create', '2.1', '2.54'),
              ('flavors', 'create_v255', '2.55', '2.101')],
             [('flavors', 'create', '2.1', '2.54'),
              ('flavors', 'create_v255', '2.55', None)],
             body_corpus([({'flavor': FLAVOR}, '2.1', '2.54'),
                          ({'flavor': dict(FLAVOR, description='d')},
                           '2.55', None)],
                 [{'flavor': {'name': 'f', 'ram': '512', 'vcpus': '1',
                              'disk': '0', 'id': None}},
                  {'flavor': {'name': 'f', 'ram': 512, 'vcpus': 1,
                              'disk': 0, 'id': 'auto', 'swap': ''}},
                  {'flavor': {'name': 'f', 'ram': 512, 'vcpus': 1,
                              'disk': 0, 'rxtx_factor': '1.0'}}])),
    Endpoint('PUT /flavors/{id}', 'body',
             [('flavors', 'update', '2.55', None)],
             [('flavors', 'update_v255', '2.55', None)],
             body_corpus([{'flavor': {'description': 'updated'}}]),
             exists=('2.55', None)),
    Endpoint('POST /flavors/{id}/os-extra_specs', 'body',
             [('flavors_extraspecs', 'create', '2.1', None)],
             [('flavors', 'extra_specs_create', '2.1', None)],
             body_corpus([{'extra_specs': {'hw:cpu_policy': 'shared',
                                           'hw:numa_nodes': 1}}])),
    Endpoint('PUT /flavors/{id}/os-extra_specs/{key}', 'body',
             [('flavors_extraspecs', 'update', '2.1', None)],
             [('flavors', 'extra_spec_update', '2.1', None)],
             body_corpus([{'hw:numa_nodes': '1'}], [{}, {'a': 1, 'b': 2}])),
    Endpoint('POST /flavors/{id}/action addTenantAccess', 'body',
             [('flavor_access', 'add_tenant_access', '2.1', None)],
             [('flavors', 'add_tenant_access', '2.1', None)],
             body_corpus([{'addTenantAccess': {'tenant': 'fake_tenant'}}])),
    Endpoint('POST /flavors/{id}/action removeTenantAccess', 'body',
             [('flavor_access', 'remove_tenant_access', '2.1', None)],
             [('flavors', 'remove_tenant_access', '2.1', None)],
             body_corpus([{'removeTenantAccess': {'tenant': 'fake'}}])),
    Endpoint('POST /os-keypairs', 'body',
             [('keypairs', 'create', '2.1', '2.1'),
              ('keypairs', 'create_v22', '2.2', '2.9'),
              ('keypairs', 'create_v210', '2.10', '2.91')],
             [('keypairs', 'create', '2.1', '2.1'),
              ('keypairs', 'create_v22', '2.2', '2.9'),
              ('keypairs', 'create_v210', '2.10', None)],
             body_corpus([({'keypair': {'name': 'keypair-1',
                                        'public_key': 'ssh-rsa AAAA x'}},
                           '2.1', '2.1'),
                          ({'keypair': {'name': 'keypair-1', 'type': 'ssh',
                                        'public_key': 'ssh-rsa AAAA x'}},
                           '2.2', '2.9'),
                          ({'keypair': {'name': 'keypair-1', 'type': 'ssh',
                                        'public_key': 'ssh-rsa AAAA x',
                                        'user_id': 'fake'}}, '2.10', None)],
                         [{'keypair': {'name': 'my key_1-2'}},
                          {'keypair': {'name': 'my.key'}},
                          {'keypair': {'name': 'key@x'}}]),
             # Both refuse other characters with a 400: Nova in its
             # schema, nova_lite in the compute API (InvalidKeypair).
             controller={'keypair/name'}),
    Endpoint('PUT /os-services/{enable,disable,disable-log-reason}', 'body',
             [('services', 'update', '2.1', '2.10'),
              ('services', 'update_v211', '2.11', '2.52')],
             [('services', 'service_update', '2.1', '2.10'),
              ('services', 'service_update_v211', '2.11', None)],
             body_corpus([{'host': 'host1', 'binary': 'nova-compute',
                           'disabled_reason': 'test2'}],
                         [{'host': 'host1', 'binary': 'nova-compute',
                           'forced_down': True}]),
             exists=('2.1', '2.52')),
    Endpoint('PUT /os-services/force-down', 'body',
             [('services', 'update_v211', '2.11', '2.52')],
             [('services', 'service_force_down', '2.11', None)],
             body_corpus([{'host': 'host1', 'binary': 'nova-compute',
                           'forced_down': True}]),
             exists=('2.11', '2.52'),
             # Both answer a missing forced_down with a 400.
             controller={'forced_down'}),
    Endpoint('PUT /os-services/{service_id}', 'body',
             [('services', 'update_v253', '2.53', None)],
             [('services', 'service_update_v253', '2.53', None)],
             body_corpus([{'status': 'disabled',
                           'disabled_reason': 'maintenance',
                           'forced_down': True}], [{}]),
             exists=('2.53', None)),
    Endpoint('POST /servers/{id}/os-volume_attachments', 'body',
             [('volume_attachments', 'create', '2.1', '2.48'),
              ('volume_attachments', 'create_v249', '2.49', '2.78'),
              ('volume_attachments', 'create_v279', '2.79', None)],
             [('volume_attachments', 'create', '2.1', '2.48'),
              ('volume_attachments', 'create_v249', '2.49', '2.78'),
              ('volume_attachments', 'create_v279', '2.79', None)],
             body_corpus([
                 ({'volumeAttachment': {'volumeId': UUID,
                                        'device': '/dev/vdb'}}, '2.1',
                  None),
                 ({'volumeAttachment': {
                     'volumeId': UUID, 'device': '/dev/vdb', 'tag': 'foo',
                     'delete_on_termination': True}}, '2.79', None)])),
    Endpoint('PUT /servers/{id}/os-volume_attachments/{id}', 'body',
             [('volume_attachments', 'update', '2.1', '2.84'),
              ('volume_attachments', 'update_v285', '2.85', None)],
             [('volume_attachments', 'update', '2.1', '2.84'),
              ('volume_attachments', 'update_v285', '2.85', None)],
             body_corpus([
                 ({'volumeAttachment': {'volumeId': UUID}}, '2.1', None),
                 ({'volumeAttachment': {
                     'volumeId': UUID, 'device': '/dev/vdb', 'tag': 'foo',
                     'delete_on_termination': True, 'id': UUID,
                     'serverId': UUID}}, '2.85', None)])),
    Endpoint('POST|PUT /images/{id}/metadata', 'body',
             [('image_metadata', 'create', '2.1', None)],
             [('images', 'metadata', '2.1', None)],
             body_corpus([METADATA]), exists=('2.1', '2.38')),
    Endpoint('PUT /images/{id}/metadata/{key}', 'body',
             [('image_metadata', 'update', '2.1', None)],
             [('images', 'meta', '2.1', None)],
             body_corpus([{'meta': {'foo': 'Bar'}}]),
             exists=('2.1', '2.38')),
]

_SERVER_QUERY_NAMES = [
    'user_id', 'project_id', 'tenant_id', 'launch_index', 'image_ref',
    'image', 'kernel_id', 'ramdisk_id', 'hostname', 'key_name',
    'power_state', 'vm_state', 'task_state', 'host', 'node', 'flavor',
    'reservation_id', 'launched_at', 'terminated_at', 'availability_zone',
    'name', 'display_name', 'description', 'display_description',
    'locked_by', 'uuid', 'root_device_name', 'config_drive',
    'access_ip_v4', 'access_ip_v6', 'auto_disk_config', 'progress',
    'sort_key', 'sort_dir', 'all_tenants', 'soft_deleted', 'deleted',
    'status', 'changes-since', 'changes-before', 'ip', 'ip6',
    'created_at', 'block_device_mapping', 'services', 'system_metadata',
    'info_cache', 'security_groups', 'pci_devices', 'limit', 'marker',
    'tags', 'tags-any', 'not-tags', 'not-tags-any', 'locked',
    'architecture', 'os_extended_volumes', 'memory_mb', 'id', 'fault']

QUERIES = [
    Endpoint('GET /servers[/detail]', 'query',
             [('servers', 'index_query', '2.1', '2.25'),
              ('servers', 'index_query_v226', '2.26', '2.65'),
              ('servers', 'index_query_v266', '2.66', '2.72'),
              ('servers', 'index_query_v273', '2.73', '2.74'),
              ('servers', 'index_query_v275', '2.75', None)],
             [('servers', 'index_query', '2.1', '2.25'),
              ('servers', 'index_query_v226', '2.26', '2.65'),
              ('servers', 'index_query_v266', '2.66', '2.72'),
              ('servers', 'index_query_v273', '2.73', '2.74'),
              ('servers', 'index_query_v275', '2.75', None)],
             query_corpus(_SERVER_QUERY_NAMES),
             # Checked by the controllers (400 in both, or policy- and
             # admin-dependent in Nova): regular expressions, times,
             # all_tenants, deleted, locked, sort_dir, joined-table and
             # _-prefixed parameters.
             controller={
                 'changes-since', 'changes-before', 'deleted', 'locked',
                 'sort_dir', 'all_tenants', 'kernel_id', 'ramdisk_id',
                 'hostname', 'key_name', 'power_state', 'node', 'flavor',
                 'reservation_id', 'launched_at', 'terminated_at',
                 'availability_zone', 'name', 'display_name',
                 'description', 'display_description', 'locked_by',
                 'root_device_name', 'config_drive', 'access_ip_v4',
                 'access_ip_v6', 'auto_disk_config', 'progress', 'ip',
                 'ip6', 'created_at', 'tags', 'tags-any', 'not-tags',
                 'not-tags-any', '_internal', 'block_device_mapping',
                 'services', 'system_metadata', 'info_cache',
                 'security_groups', 'pci_devices', 'metadata'}),
    Endpoint('GET /flavors[/detail]', 'query',
             [('flavors', 'index_query', '2.1', '2.74'),
              ('flavors', 'index_query_v275', '2.75', '2.101')],
             [('flavors', 'index_query', '2.1', '2.74'),
              ('flavors', 'index_query_v275', '2.75', None)],
             query_corpus(['limit', 'marker', 'is_public', 'minRam',
                           'minDisk', 'sort_key', 'sort_dir', 'name'])),
    Endpoint('GET /os-hypervisors[/detail]', 'query',
             [('hypervisors', 'index_query', '2.1', '2.32'),
              ('hypervisors', 'index_query_v233', '2.33', '2.52'),
              ('hypervisors', 'index_query_v253', '2.53', None)],
             [('hypervisors', 'index_query', '2.1', '2.32'),
              ('hypervisors', 'index_query_v233', '2.33', '2.52'),
              ('hypervisors', 'index_query_v253', '2.53', None)],
             query_corpus(['limit', 'marker', 'hypervisor_hostname_pattern',
                           'with_servers'])),
    Endpoint('GET /os-hypervisors/{id}', 'query',
             [('hypervisors', 'show_query', '2.1', '2.52'),
              ('hypervisors', 'show_query_v253', '2.53', None)],
             [('hypervisors', 'show_query', '2.1', '2.52'),
              ('hypervisors', 'show_query_v253', '2.53', None)],
             query_corpus(['with_servers'])),
    Endpoint('GET /os-migrations', 'query',
             [('migrations', 'index_query_v20', '2.1', '2.58'),
              ('migrations', 'index_query_v259', '2.59', '2.65'),
              ('migrations', 'index_query_v266', '2.66', '2.79'),
              ('migrations', 'index_query_v280', '2.80', None)],
             [('migrations', 'index_query', '2.1', '2.58'),
              ('migrations', 'index_query_v259', '2.59', '2.65'),
              ('migrations', 'index_query_v266', '2.66', '2.79'),
              ('migrations', 'index_query_v280', '2.80', None)],
             query_corpus(['hidden', 'host', 'instance_uuid',
                           'source_compute', 'status', 'migration_type',
                           'limit', 'marker', 'changes-since',
                           'changes-before', 'user_id', 'project_id']),
             # nova_lite's controller checks the times (400).
             controller={'changes-since', 'changes-before'}),
    Endpoint('GET /servers/{id}/os-instance-actions', 'query',
             [('instance_actions', 'index_query', '2.1', '2.57'),
              ('instance_actions', 'index_query_v258', '2.58', '2.65'),
              ('instance_actions', 'index_query_v266', '2.66', None)],
             [('instance_actions', 'index_query_v258', '2.58', '2.65'),
              ('instance_actions', 'index_query_v266', '2.66', None)],
             query_corpus(['limit', 'marker', 'changes-since',
                           'changes-before']),
             controller={'changes-since', 'changes-before'}),
    Endpoint('GET /os-keypairs', 'query',
             [('keypairs', 'index_query_v20', '2.1', '2.9'),
              ('keypairs', 'index_query_v210', '2.10', '2.34'),
              ('keypairs', 'index_query_v235', '2.35', '2.74'),
              ('keypairs', 'index_query_v275', '2.75', None)],
             [('keypairs', 'user_query_v210', '2.10', '2.34'),
              ('keypairs', 'index_query_v235', '2.35', '2.74'),
              ('keypairs', 'index_query_v275', '2.75', None)],
             query_corpus(['user_id', 'limit', 'marker'])),
    Endpoint('GET|DELETE /os-keypairs/{name}', 'query',
             [('keypairs', 'show_query_v20', '2.1', '2.9'),
              ('keypairs', 'show_query_v210', '2.10', '2.74'),
              ('keypairs', 'show_query_v275', '2.75', None)],
             [('keypairs', 'user_query_v210', '2.10', '2.74'),
              ('keypairs', 'user_query_v275', '2.75', None)],
             query_corpus(['user_id'])),
    Endpoint('GET /os-services', 'query',
             [('services', 'index_query', '2.1', '2.74'),
              ('services', 'index_query_v275', '2.75', None)],
             [('services', 'index_query', '2.1', '2.74'),
              ('services', 'index_query_v275', '2.75', None)],
             query_corpus(['host', 'binary'])),
    Endpoint('GET /servers/{id}/os-volume_attachments', 'query',
             [('volume_attachments', 'index_query', '2.1', '2.74'),
              ('volume_attachments', 'index_query_v275', '2.75', None)],
             [('volume_attachments', 'index_query', '2.1', '2.74'),
              ('volume_attachments', 'index_query_v275', '2.75', None)],
             query_corpus(['limit', 'offset'])),
    Endpoint('GET /images[/detail]', 'query',
             [('images', 'index_query', '2.1', None)],
             [('images', 'index_query', '2.1', None)],
             query_corpus(['name', 'status', 'changes-since', 'server',
                           'type', 'minRam', 'minDisk', 'limit',
                           'page_size', 'marker', 'offset',
                           'property-os_distro']),
             exists=('2.1', '2.35')),
]

ENDPOINTS = [SERVER_CREATE, SERVER_UPDATE, SERVER_REBUILD, *ACTIONS,
             *OTHER, *QUERIES]


# --- the two validators -----------------------------------------------------

def _nova_verdicts(jobs):
    """Nova 34's verdict of each (module, attr, what, instance)."""
    from nova.api.validation import validators
    from nova import exception
    cache = {}
    found = []
    for module, attr, what, instance in jobs:
        if module is None:
            found.append('ok (not validated)')
            continue
        key = (module, attr, what)
        if key not in cache:
            mod = importlib.import_module(
                'nova.api.openstack.compute.schemas.' + module)
            cache[key] = validators._SchemaValidator(
                getattr(mod, attr), False, what == 'body')
        try:
            cache[key].validate(copy.deepcopy(instance))
        except exception.ValidationError as exc:
            found.append('400: %s' % exc.format_message()[:160])
        except Exception as exc:  # noqa: a 500 in Nova
            found.append('500: %r' % (exc,))
        else:
            found.append('ok')
    return found


def _lite_verdicts(jobs):
    """nova_lite's verdicts, run where nova_lite's dependencies are."""
    sys.path.insert(0, ROOT)
    from nova_lite.api.openstack import validation
    from nova_lite import exception
    found = []
    for module, attr, what, instance in jobs:
        if module is None:
            found.append('ok (not validated)')
            continue
        mod = importlib.import_module(
            'nova_lite.api.openstack.compute.schemas.' + module)
        try:
            validation.validate(getattr(mod, attr), instance, what)
        except exception.ValidationError as exc:
            found.append('400: %s' % exc.format_message()[:160])
        except Exception as exc:  # noqa: a 500 in nova_lite
            found.append('500: %r' % (exc,))
        else:
            found.append('ok')
    return found


def _lite_python(given):
    if given:
        return given
    for candidate in ('/work/main/.venv/bin/python',
                      os.path.join(ROOT, '.venv', 'bin', 'python')):
        if os.path.exists(candidate):
            return candidate
    return sys.executable


def _run_lite(python, jobs):
    result = subprocess.run(
        [python, os.path.abspath(__file__), '--lite-worker'],
        input=json.dumps(jobs), capture_output=True, text=True, check=False,
        env=dict(os.environ, PYTHONWARNINGS='ignore'))
    if result.returncode:
        sys.exit('nova_lite worker failed:\n' + result.stderr)
    return json.loads(result.stdout)


# --- comparison -------------------------------------------------------------

def _kind(verdict):
    return verdict.split(':', 1)[0].split(' ')[0]


def _ranges(versions):
    """'2.1-2.18, 2.33' from sorted versions (consecutive minors join)."""
    spans = []
    for version in versions:
        if spans and spans[-1][1][1] + 1 == version[1]:
            spans[-1][1] = version
        else:
            spans.append([version, version])
    return ', '.join(_fmt(a) if a == b else '%s-%s' % (_fmt(a), _fmt(b))
                     for a, b in spans)


def _has(body, path):
    for key in path.split('/'):
        if not isinstance(body, dict) or key not in body:
            return False
        body = body[key]
    return True


def _tag(endpoint, kind, body, nova):
    """Why a difference needs no schema fix, or None: a field a
    controller checks, a known difference, or a 500 in Nova."""
    if nova.startswith('500'):
        return 'Nova 500'
    for name in endpoint.controller:
        if (kind.startswith('param %s' % name) or name in kind or
                (endpoint.what == 'query' and name in body) or
                (kind == 'client' and _has(body, name))):
            return 'controller'
    for name, why in endpoint.known.items():
        if name in kind or (kind == 'client' and
                            name.strip('"') in json.dumps(body)):
            return 'known: ' + why
    return None


def compare(endpoints, lite_python):
    """Differences, and the number of validations per side. A body is
    validated once per distinct (Nova schema, nova_lite schema) pair."""
    jobs, uses = {}, []
    for endpoint in endpoints:
        corpus, seen = [], set()
        for kind, body, first, last in endpoint.corpus():
            text = json.dumps(body, sort_keys=True)
            if (text, first, last) not in seen:
                seen.add((text, first, last))
                corpus.append((kind, body, text, _v(first) or MIN_VERSION,
                               _v(last) or MAX_VERSION))
        for version in _versions(endpoint):
            nova = _pick(endpoint.nova, version) or (None, None)
            lite = _pick(endpoint.lite, version) or (None, None)
            for kind, body, text, first, last in corpus:
                if not first <= version <= last:
                    continue
                key = (nova, lite, endpoint.what, text)
                jobs.setdefault(key, body)
                uses.append((endpoint, version, kind, body, key))
    keys = list(jobs)
    nova_verdicts = _nova_verdicts(
        [(n[0], n[1], what, jobs[k]) for k in keys
         for (n, _l, what, _t) in [k]])
    lite_verdicts = _run_lite(lite_python, [
        (li[0], li[1], what, jobs[k]) for k in keys
        for (_n, li, what, _t) in [k]])
    verdicts = dict(zip(keys, zip(nova_verdicts, lite_verdicts)))
    grouped = {}
    for endpoint, version, kind, body, key in uses:
        nova, lite = verdicts[key]
        if _kind(nova) == _kind(lite):
            continue
        group = (endpoint.name, kind, key[3], _kind(nova), _kind(lite))
        entry = grouped.setdefault(group, {
            'endpoint': endpoint.name, 'kind': kind, 'body': body,
            'nova': nova, 'lite': lite, 'versions': [],
            'tag': _tag(endpoint, kind, body, nova)})
        entry['versions'].append(version)
    return list(grouped.values()), len(keys)


def _short(body, width=160):
    text = json.dumps(body, ensure_ascii=False)
    return text if len(text) <= width else text[:width - 3] + '...'


def report(diffs, total, every):
    print('%d validations per side, %d differing (endpoint, body) pairs'
          % (total, len(diffs)))
    shown = {}
    for diff in diffs:
        key = (diff['tag'] or '', diff['endpoint'], diff['kind'],
               _kind(diff['nova']), _kind(diff['lite']))
        shown.setdefault(key, []).append(diff)
    for (tag, endpoint, kind, nova, lite), group in sorted(shown.items()):
        print('\n== %s%s: %s -- Nova %s, nova_lite %s (%d bodies)' % (
            '[%s] ' % tag if tag else '', endpoint, kind, nova, lite,
            len(group)))
        for diff in (group if every else group[:1]):
            print('   %s  %s\n     Nova: %s\n     nova_lite: %s' % (
                _ranges(sorted(diff['versions'])), _short(diff['body']),
                diff['nova'], diff['lite']))
    return any(not d['tag'] for d in diffs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--lite-worker', action='store_true',
                        help=argparse.SUPPRESS)
    parser.add_argument('--lite-python')
    parser.add_argument('--endpoint', action='append', default=[])
    parser.add_argument('--all', action='store_true')
    parser.add_argument('--json', action='store_true')
    args = parser.parse_args()
    if args.lite_worker:
        json.dump(_lite_verdicts(json.load(sys.stdin)), sys.stdout)
        return 0
    endpoints = [e for e in ENDPOINTS
                 if not args.endpoint or
                 any(s in e.name for s in args.endpoint)]
    diffs, total = compare(endpoints, _lite_python(args.lite_python))
    if args.json:
        for diff in diffs:
            diff['versions'] = _ranges(sorted(diff['versions']))
        json.dump(diffs, sys.stdout, indent=1, ensure_ascii=False)
        return 1 if any(not d['tag'] for d in diffs) else 0
    return 1 if report(diffs, total, args.all) else 0


if __name__ == '__main__':
    sys.exit(main())
