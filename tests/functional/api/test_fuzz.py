"""Hypothesis: no input, however bad, makes the API answer 5xx.

Random methods, paths and ids, query strings, headers and bodies over every
endpoint; every answer must be < 500, strict JSON when it has a body and,
when an error, in the Compute API fault format with a JSON content type.
Bodies nested too deeply (up to 100,000 levels) or holding NaN/Infinity
are a 400 on every endpoint and method. (The same over a real socket, for
what the HTTP server itself refuses: test_fuzz_wire.py.)
"""
import json
import string
from urllib import parse

from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from nova_lite.api import faults
from nova_lite.api import json_body

PRINTABLE = string.ascii_letters + string.digits + string.punctuation + ' '
SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

METHODS = st.sampled_from(['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'HEAD',
                           'OPTIONS'])
IDS = st.one_of(
    st.integers(min_value=-5, max_value=10**12).map(str),
    st.uuids().map(str),
    st.sampled_from(['enable', 'disable', 'disable-log-reason', 'force-down',
                     'detail', 'statistics', 'index', '_lookup', '%00',
                     '..', '1.0', ' ', '%2F', 'c1-host1', 'c2-host2']),
    st.text(alphabet=PRINTABLE.replace('/', '').replace('?', '')
            .replace('#', ''), min_size=1, max_size=40).map(parse.quote),
)
PATHS = st.one_of(
    st.sampled_from(['/', '/v2.1', '/v2.1/', '/v2.1/os-services',
                     '/v2.1/os-hypervisors', '/v2.1/os-hypervisors/detail',
                     '/v2.1/os-hypervisors/statistics', '/v2', '/v3/x',
                     '/v2.1/os-availability-zone',
                     '/v2.1/os-availability-zone/detail',
                     '/v2.1/os-migrations']),
    st.builds('/v2.1/os-availability-zone/{}'.format, IDS),
    st.builds('/v2.1/os-services/{}'.format, IDS),
    st.builds('/v2.1/os-hypervisors/{}'.format, IDS),
    st.builds('/v2.1/os-hypervisors/{}/{}'.format, IDS,
              st.sampled_from(['search', 'servers', 'uptime', 'x'])),
)
# Flavors of the mixed deployment (flavor_fixtures.mixed): API a1..a3,
# legacy l1..l4.
# Mostly flavors and keys that exist (one_of picks branches evenly).
_KNOWN_FLAVORS = st.sampled_from(['a1', 'a2', 'a3', 'l1', 'l2', 'l3', 'l4',
                                  'detail', 'action'])
FLAVOR_IDS = st.one_of(_KNOWN_FLAVORS, _KNOWN_FLAVORS, _KNOWN_FLAVORS, IDS)
_KNOWN_KEYS = st.sampled_from(['hw:cpu_policy', 'hw:mem_page_size',
                               'quota:disk_read_bytes_sec', 'k',
                               'hw:cpu_sockets', 'resources1:VCPU',
                               'trait:CUSTOM_X', 'hw:nope', 'hw_rng:allowed',
                               'pci_passthrough:alias'])
SPEC_KEYS = st.one_of(_KNOWN_KEYS, _KNOWN_KEYS, IDS)
FLAVOR_PATHS = st.one_of(
    st.sampled_from(['/v2.1/flavors', '/v2.1/flavors/detail']),
    st.builds('/v2.1/flavors/{}'.format, FLAVOR_IDS),
    st.builds('/v2.1/flavors/{}/{}'.format, FLAVOR_IDS, st.sampled_from(
        ['action', 'os-extra_specs', 'os-flavor-access', 'x'])),
    st.builds('/v2.1/flavors/{}/os-extra_specs/{}'.format, FLAVOR_IDS,
              SPEC_KEYS),
    st.builds('/v2.1/flavors/{}/{}/{}'.format, FLAVOR_IDS, st.sampled_from(
        ['os-flavor-access', 'action', 'x']), IDS),
)
KEYPAIR_NAMES = st.one_of(st.sampled_from(['kp', 'kp0', 'x y', 'detail']),
                          IDS)
KEYPAIR_PATHS = st.one_of(
    st.just('/v2.1/os-keypairs'),
    st.builds('/v2.1/os-keypairs/{}'.format, KEYPAIR_NAMES),
    st.builds('/v2.1/os-keypairs/{}/{}'.format, KEYPAIR_NAMES, IDS),
)
IMAGE_PATHS = st.one_of(
    st.sampled_from(['/v2.1/images', '/v2.1/images/detail',
                     '/v2.1/images/155d900f-4e14-4e4c-a73d-069cbf4541e6']),
    st.builds('/v2.1/images/{}'.format, IDS),
    st.builds('/v2.1/images/{}/{}'.format, IDS, IDS),
    st.builds('/v2.1/images/155d900f-4e14-4e4c-a73d-069cbf4541e6/'
              'metadata/{}'.format, IDS),
    st.just('/v2.1/images/155d900f-4e14-4e4c-a73d-069cbf4541e6/metadata'),
)
SERVICE_PATHS = st.one_of(
    st.sampled_from(['/image', '/image/v2', '/image/v2/images',
                     '/networking', '/networking/v2.0/networks',
                     '/networking/v2.0/subnets', '/networking/v2.0/ports']),
    st.builds('/image/v2/images/{}'.format, IDS),
    st.builds('/image/v2/images/{}/file'.format, IDS),
    st.just('/image/v2/images/155d900f-4e14-4e4c-a73d-069cbf4541e6/file'),
    st.builds('/networking/v2.0/{}/{}'.format, st.sampled_from(
        ['networks', 'subnets', 'ports', 'routers']), IDS),
    st.sampled_from(['/share', '/share/v2', '/share/v2/shares',
                     '/share/v2/shares/detail',
                     '/share/v2/share-access-rules',
                     '/share/v2/project-a/shares']),
    st.builds('/share/v2/shares/{}'.format, IDS),
    st.builds('/share/v2/shares/{}/export_locations'.format, IDS),
    st.builds('/share/v2/share-access-rules?share_id={}'.format, IDS),
)
SERVER_GROUP_PATHS = st.one_of(
    st.just('/v2.1/os-server-groups'),
    st.builds('/v2.1/os-server-groups/{}'.format, IDS),
    st.builds('/v2.1/os-server-groups/{}/{}'.format, IDS, IDS),
)
PATHS = st.one_of(PATHS, FLAVOR_PATHS, KEYPAIR_PATHS, IMAGE_PATHS,
                  SERVICE_PATHS, SERVER_GROUP_PATHS)
# Extensions, usage, every route under /v2.1/{project_id}, and the
# legacy v2 compatible endpoint /v2 (lenient bodies).
USAGE_PATHS = st.one_of(
    st.sampled_from(['/v2.1/extensions', '/v2.1/os-simple-tenant-usage',
                     '/v2.1/admin/os-simple-tenant-usage',
                     '/v2.1/0a1b/os-services', '/v2.1/0a1b',
                     '/v2/flavors', '/v2/0a1b/os-services',
                     '/v2/servers/detail', '/v2/os-keypairs']),
    st.builds('/v2.1/extensions/{}'.format, IDS),
    st.builds('/v2.1/os-simple-tenant-usage/{}'.format, IDS),
    st.just('/v2.1/os-instance_usage_audit_log'),
    st.builds('/v2.1/os-instance_usage_audit_log/{}'.format, st.one_of(
        IDS, st.just('2026-11-01%2000:00:00'))),
)
PATHS = st.one_of(PATHS, USAGE_PATHS)
# The APIs Nova answers 410 (nova-network's, cells v1, cloudpipe,
# agents, certificates, default security-group rules).
_GONE = st.sampled_from([
    'os-networks', 'os-networks/add', 'os-tenant-networks', 'os-fixed-ips',
    'os-floating-ips-bulk', 'os-floating-ips-bulk/delete',
    'os-floating-ip-dns', 'os-fping', 'os-cells', 'os-cells/sync_instances',
    'os-cloudpipe', 'os-cloudpipe/configure-project', 'os-agents',
    'os-certificates', 'os-certificates/root',
    'os-security-group-default-rules', 'os-floating-ip-pools'])
GONE_PATHS = st.one_of(
    st.builds('/v2.1/{}'.format, _GONE),
    st.builds('/v2.1/{}/{}'.format, _GONE, IDS),
    st.builds('/v2.1/{}/{}/{}'.format, _GONE, IDS,
              st.sampled_from(['action', 'capacities', 'entries', 'x'])),
    st.builds('/v2.1/os-floating-ip-dns/{}/entries/{}'.format, IDS, IDS),
)
OS_HOSTS_PATHS = st.one_of(
    st.just('/v2.1/os-hosts'),
    st.builds('/v2.1/os-hosts/{}'.format, IDS),
    st.builds('/v2.1/os-hosts/{}/{}'.format, IDS, st.sampled_from(
        ['reboot', 'shutdown', 'startup', 'x'])),
)
SG_PROXY_PATHS = st.one_of(
    st.sampled_from(['/v2.1/os-security-groups',
                     '/v2.1/os-security-group-rules']),
    st.builds('/v2.1/os-security-groups/{}'.format, IDS),
    st.builds('/v2.1/os-security-group-rules/{}'.format, IDS),
)
# The volume and floating-IP proxies (below 2.36).
VOLUME_FIP_PATHS = st.one_of(
    st.sampled_from(['/v2.1/os-volumes', '/v2.1/os-volumes/detail',
                     '/v2.1/os-snapshots', '/v2.1/os-snapshots/detail',
                     '/v2.1/os-floating-ips']),
    st.builds('/v2.1/{}/{}'.format, st.sampled_from(
        ['os-volumes', 'os-snapshots', 'os-floating-ips']), IDS),
)
PATHS = st.one_of(PATHS, GONE_PATHS, OS_HOSTS_PATHS, SG_PROXY_PATHS,
                  VOLUME_FIP_PATHS)
QUERY_KEYS = st.sampled_from(['host', 'binary', 'limit', 'marker',
                              'user_id', 'changes-since',
                              'status', 'name', 'page_size',
                              'with_servers', 'hypervisor_hostname_pattern',
                              'minRam', 'minDisk', 'is_public', 'sort_key',
                              'sort_dir', 'foo', '',
                              'start', 'end', 'detailed'])
QUERY_VALUES = st.one_of(st.text(max_size=20), IDS,
                         st.sampled_from(['true', 'false', '0', '-1',
                                          '99999999999999999999', 'None',
                                          'name', 'memory_mb', 'desc', 'ASC',
                                          'l1', 'a2']))
QUERIES = st.lists(st.tuples(QUERY_KEYS, QUERY_VALUES), max_size=4).map(
    parse.urlencode)
VERSIONS = st.one_of(
    st.none(),
    st.sampled_from(['2.1', '2.6', '2.7', '2.11', '2.33', '2.52', '2.53',
                     '2.54', '2.55', '2.61', '2.69', '2.74', '2.75',
                     '2.85', '2.86', '2.87', '2.88', '2.89', '2.90',
                     '2.92', '2.93', '2.94', '2.96', '2.101', '2.102', '2.103',
                     '2.104', 'latest', '2.105', '0.0', '2.a', '']),
    st.text(alphabet=PRINTABLE, max_size=12))
TOKENS = st.sampled_from(['admin:admin', 'admin', 'bob:p', 'bob:project-a',
                          ':', 'x' * 300, None])
FLAVOR_KEYS = ['flavor', 'name', 'ram', 'vcpus', 'disk', 'id', 'swap',
               'rxtx_factor', 'os-flavor-access:is_public',
               'OS-FLV-EXT-DATA:ephemeral', 'description', 'extra_specs',
               'addTenantAccess', 'removeTenantAccess', 'tenant',
               'hw:cpu_policy']
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20)
    | st.floats(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(['status', 'disabled_reason', 'forced_down', 'host',
                         'binary', 'service', 'x'] + FLAVOR_KEYS), inner,
        max_size=4),
    max_leaves=8)


def nested(kind, depth, leaf=b'1'):
    """``depth`` arrays (or objects) around ``leaf``, as raw JSON."""
    if kind == 'array':
        return b'[' * depth + leaf + b']' * depth
    return b'{"a": ' * depth + leaf + b'}' * depth


# Around the depth limit, and far past it (the 100,000 arrays are also
# past the body size limit).
DEPTHS = st.sampled_from([json_body.MAX_DEPTH - 1, json_body.MAX_DEPTH,
                          json_body.MAX_DEPTH + 1, 1000, 5000])
NESTED = st.builds(nested, st.sampled_from(['array', 'object']), DEPTHS)
NON_FINITE = st.sampled_from([b'NaN', b'Infinity', b'-Infinity', b'1e999',
                              b'-1E400', b'[1, NaN]', b'{"x": [Infinity]}'])
BODIES = st.one_of(
    st.none(),
    JSON_VALUES.map(lambda v: json.dumps(v).encode()),
    NESTED, NON_FINITE,
    st.binary(max_size=64),
    st.sampled_from([b'{', b'{"status": "disabled"}', b'\xff\xfe',
                     b'{"status": "enabled", "forced_down": "yes"}',
                     b'{"flavor": {"description": "d"}}',
                     b'{"extra_specs": {"k": "v"}}', b'{"k": 1}',
                     b'{"addTenantAccess": {"tenant": "p"}}',
                     b'{"removeTenantAccess": {"tenant": "project-a"}}']))
FIELD_VALUES = st.one_of(
    st.integers(min_value=0, max_value=4096),
    st.sampled_from(['1', '0', '1.5', 'true', 'l1', 'a1', 'legacy-2', ' x',
                     '9' * 40, None, True, -1, 2 ** 31, 1e39]),
    st.text(max_size=8), st.floats(),
    st.integers(min_value=-2 ** 64, max_value=2 ** 64))


def _json(strategy):
    return strategy.map(lambda body: json.dumps(body).encode())


CREATE_BODIES = st.fixed_dictionaries(
    {'name': st.one_of(st.text(min_size=1, max_size=6), FIELD_VALUES),
     'ram': FIELD_VALUES, 'vcpus': FIELD_VALUES, 'disk': FIELD_VALUES},
    optional={k: FIELD_VALUES for k in (
        'id', 'swap', 'rxtx_factor', 'os-flavor-access:is_public',
        'OS-FLV-EXT-DATA:ephemeral', 'description')}).map(
    lambda f: {'flavor': f})
SPEC_VALUES = st.dictionaries(SPEC_KEYS, FIELD_VALUES, max_size=3)
ACTION_BODIES = st.builds(
    lambda action, tenant: {action: {'tenant': tenant}},
    st.sampled_from(['addTenantAccess', 'removeTenantAccess', 'reboot']),
    st.one_of(st.sampled_from(['project-a', 'other', 'p']), FIELD_VALUES))


def _endpoint(method, path, bodies=st.none()):
    return st.tuples(st.just(method), path, bodies)


def _flavor_path(fmt, *parts):
    return st.builds(fmt.format, FLAVOR_IDS, *parts)


# (method, path, body) aimed at endpoints that exist, with bodies shaped
# like theirs so that many requests get past routing and the schemas;
# plus anything at all.
FLAVOR_REQUESTS = st.one_of(
    _endpoint('POST', st.just('/v2.1/flavors'), _json(CREATE_BODIES)),
    _endpoint('PUT', _flavor_path('/v2.1/flavors/{}'), _json(st.builds(
        lambda d: {'flavor': {'description': d}}, FIELD_VALUES))),
    _endpoint('DELETE', _flavor_path('/v2.1/flavors/{}')),
    _endpoint('POST', _flavor_path('/v2.1/flavors/{}/os-extra_specs'),
              _json(SPEC_VALUES.map(lambda s: {'extra_specs': s}))),
    _endpoint('PUT', _flavor_path('/v2.1/flavors/{}/os-extra_specs/{}',
                                  SPEC_KEYS), _json(SPEC_VALUES)),
    _endpoint('DELETE', _flavor_path('/v2.1/flavors/{}/os-extra_specs/{}',
                                     SPEC_KEYS)),
    _endpoint('POST', _flavor_path('/v2.1/flavors/{}/action'),
              _json(ACTION_BODIES)),
    _endpoint('GET', FLAVOR_PATHS),
    st.tuples(METHODS, FLAVOR_PATHS, BODIES),
)
PUBLIC_KEYS = st.one_of(
    st.sampled_from([
        'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHt+d1/dWektvXf3GGys0BVE5dc9lP0e'
        '/vNv7qe8QR0T', 'ssh-rsa AAAA', 'ssh-rsa', '-----BEGIN CERTIFICATE'
        '-----\nMII\n-----END CERTIFICATE-----', '']),
    FIELD_VALUES)
KEYPAIR_BODIES = st.fixed_dictionaries(
    {'name': st.one_of(st.sampled_from(['kp', 'kp0', 'x y', 'me@host',
                                        'id.pub', '@.']),
                       st.text(min_size=1, max_size=6), FIELD_VALUES)},
    optional={'public_key': PUBLIC_KEYS,
              'type': st.one_of(st.sampled_from(['ssh', 'x509', 'rsa']),
                                FIELD_VALUES),
              'user_id': st.one_of(st.sampled_from(['bob', 'admin']),
                                   FIELD_VALUES)}).map(
    lambda k: {'keypair': k})
KEYPAIR_REQUESTS = st.one_of(
    _endpoint('POST', st.sampled_from(['/v2.1/os-keypairs',
                                       '/v2/os-keypairs']),
              _json(KEYPAIR_BODIES)),
    _endpoint('GET', KEYPAIR_PATHS),
    _endpoint('DELETE', KEYPAIR_PATHS),
    st.tuples(METHODS, KEYPAIR_PATHS, BODIES),
)
_SG_POLICIES = st.one_of(
    st.sampled_from(['affinity', 'anti-affinity', 'soft-affinity',
                     'soft-anti-affinity', 'x']), FIELD_VALUES)
SERVER_GROUP_BODIES = st.fixed_dictionaries(
    {'name': st.one_of(st.text(min_size=0, max_size=6), FIELD_VALUES)},
    optional={'policies': st.one_of(st.lists(_SG_POLICIES, max_size=2),
                                    FIELD_VALUES),
              'policy': _SG_POLICIES,
              'rules': st.one_of(
                  st.fixed_dictionaries({}, optional={
                      'max_server_per_host': st.one_of(
                          st.integers(-2, 3), FIELD_VALUES),
                      'x': FIELD_VALUES}), FIELD_VALUES)}).map(
    lambda g: {'server_group': g})
SERVER_GROUP_REQUESTS = st.one_of(
    _endpoint('POST', st.sampled_from(['/v2.1/os-server-groups',
                                       '/v2/os-server-groups']),
              _json(SERVER_GROUP_BODIES)),
    _endpoint('GET', SERVER_GROUP_PATHS),
    _endpoint('DELETE', SERVER_GROUP_PATHS),
    st.tuples(METHODS, SERVER_GROUP_PATHS, BODIES),
)
CONTENT_TYPES = st.sampled_from(['application/json', None, 'text/plain',
                                 'application/x-www-form-urlencoded'])
ACCEPTS = st.sampled_from([None, '*/*', 'application/json', 'text/html',
                           'application/xml', 'garbage'])


def _strict_json(text):
    def refuse(constant):
        raise AssertionError('%s in a response body' % constant)
    return json.loads(text, parse_constant=refuse)


def check(status, content_type, text, method='GET'):
    """Any answer: < 500, strict JSON; an error: a fault, JSON typed."""
    assert status < 500, (status, text)
    body = _strict_json(text) if text else None
    if status >= 400 and method != 'HEAD':
        assert content_type.split(';')[0] == 'application/json', (
            status, content_type, text)
        (name, fault), = body.items()
        assert name == faults.fault_name(status)
        assert fault['code'] == status and fault['message']
    return body


def _not_strict(body):
    """Whether a body must be refused whatever the endpoint: non-finite
    numbers or nesting past json_body.MAX_DEPTH."""
    if not body:
        return False
    try:
        json_body.check_strict(body)
    except (json_body.TooDeep, json_body.NotFinite):
        return True
    return False


def _check(resp):
    check(resp.status_int, resp.headers.get('Content-Type', ''), resp.text,
          resp.request.method)
    if _not_strict(resp.request.body) and resp.status_int not in (413, 414):
        assert resp.status_int == 400, (resp.status, resp.text)


def _request(app, method, path, query, version, legacy, token, body,
             content_type, accept):
    headers = {}
    if token is not None:
        headers['X-Auth-Token'] = token
    if version is not None:
        if legacy:
            headers['X-OpenStack-Nova-API-Version'] = version
        else:
            headers['OpenStack-API-Version'] = 'compute %s' % version
    if content_type:
        headers['Content-Type'] = content_type
    if accept:
        headers['Accept'] = accept
    url = path + ('?' + query if query else '')
    resp = app.request(url, method=method, headers=headers, body=body,
                       expect_errors=True)
    _check(resp)


@SETTINGS
@given(method=METHODS, path=PATHS, query=QUERIES, version=VERSIONS,
       legacy=st.booleans(), token=TOKENS, body=BODIES,
       content_type=CONTENT_TYPES, accept=ACCEPTS)
def test_no_input_gives_a_server_error(app, mixed, method, path, query,
                                       version, legacy, token, body,
                                       content_type, accept):
    _request(app, method, path, query, version, legacy, token, body,
             content_type, accept)


@settings(SETTINGS, max_examples=250)
@given(request=FLAVOR_REQUESTS, query=QUERIES,
       version=st.sampled_from(['2.1', '2.6', '2.7', '2.54', '2.55', '2.61',
                                '2.74', '2.75', '2.88', '2.102',
                                '2.104']),
       token=st.sampled_from(['admin:admin', 'admin:admin',
                              'bob:project-a']))
def test_no_flavor_input_gives_a_server_error(flavor_app, request, query,
                                              version, token):
    """Flavor endpoints with bodies shaped like theirs, on the mixed
    deployment (legacy and API flavors)."""
    method, path, body = request
    _request(flavor_app, method, path, query, version, False, token, body,
             'application/json', None)


@settings(SETTINGS, max_examples=150)
@given(request=KEYPAIR_REQUESTS, query=QUERIES,
       version=st.sampled_from(['2.1', '2.2', '2.9', '2.10', '2.34', '2.35',
                                '2.88', '2.91', '2.92', '2.102', '2.104']),
       token=st.sampled_from(['admin:admin', 'bob:project-a']))
def test_no_keypair_input_gives_a_server_error(app, request, query, version,
                                               token):
    """os-keypairs with bodies shaped like its own."""
    method, path, body = request
    _request(app, method, path, query, version, False, token, body,
             'application/json', None)


@settings(SETTINGS, max_examples=150)
@given(request=SERVER_GROUP_REQUESTS,
       query=st.one_of(QUERIES, st.sampled_from([
           'all_projects=1', 'limit=-1', 'offset=x', 'limit=1&offset=1'])),
       version=st.sampled_from(['2.1', '2.13', '2.15', '2.63', '2.64',
                                '2.74', '2.75', '2.88', '2.102',
                                '2.104']),
       token=st.sampled_from(['admin:admin', 'bob:project-a']))
def test_no_server_group_input_gives_a_server_error(app, request, query,
                                                    version, token):
    """os-server-groups with bodies shaped like its own."""
    method, path, body = request
    _request(app, method, path, query, version, False, token, body,
             'application/json', None)


MISSING_GROUP = '8a6d3d1e-4b8e-4e0e-9d7f-1c2b3a4d5e6f'
# Every endpoint with its own method; the mixed deployment's flavors.
ENDPOINTS = [
    ('GET', '/'), ('GET', '/v2.1/'), ('GET', '/identity/v3'),
    ('GET', '/v2.1/os-services'),
    ('PUT', '/v2.1/os-services/enable'), ('PUT', '/v2.1/os-services/disable'),
    ('PUT', '/v2.1/os-services/disable-log-reason'),
    ('PUT', '/v2.1/os-services/force-down'),
    ('PUT', '/v2.1/os-services/1'), ('DELETE', '/v2.1/os-services/1'),
    ('GET', '/v2.1/os-hypervisors'), ('GET', '/v2.1/os-hypervisors/detail'),
    ('GET', '/v2.1/os-hypervisors/statistics'),
    ('GET', '/v2.1/os-hypervisors/1'),
    ('GET', '/v2.1/os-hypervisors/1/uptime'),
    ('GET', '/v2.1/os-hypervisors/c1/search'),
    ('GET', '/v2.1/os-hypervisors/c1/servers'),
    ('GET', '/v2.1/os-availability-zone'),
    ('GET', '/v2.1/os-availability-zone/detail'),
    ('GET', '/v2.1/os-migrations'),
    ('GET', '/v2.1/flavors'), ('GET', '/v2.1/flavors/detail'),
    ('POST', '/v2.1/flavors'), ('GET', '/v2.1/flavors/a1'),
    ('PUT', '/v2.1/flavors/a1'), ('DELETE', '/v2.1/flavors/l1'),
    ('POST', '/v2.1/flavors/a2/action'),
    ('GET', '/v2.1/flavors/a2/os-flavor-access'),
    ('GET', '/v2.1/flavors/a1/os-extra_specs'),
    ('POST', '/v2.1/flavors/a1/os-extra_specs'),
    ('GET', '/v2.1/flavors/a1/os-extra_specs/hw:cpu_policy'),
    ('PUT', '/v2.1/flavors/a1/os-extra_specs/hw:cpu_policy'),
    ('DELETE', '/v2.1/flavors/a1/os-extra_specs/hw:cpu_policy'),
    ('GET', '/v2.1/os-keypairs'), ('POST', '/v2.1/os-keypairs'),
    ('GET', '/v2.1/os-keypairs/kp'), ('DELETE', '/v2.1/os-keypairs/kp'),
    ('GET', '/v2.1/images'), ('GET', '/v2.1/images/detail'),
    ('GET', '/v2.1/images/155d900f-4e14-4e4c-a73d-069cbf4541e6'),
    ('DELETE', '/v2.1/images/00000000-0000-0000-0000-000000000001'),
    ('GET', '/image/v2/images'), ('GET', '/networking/v2.0/networks'),
    ('GET', '/share/v2/shares'), ('POST', '/share/v2/shares'),
    ('POST', '/v2.1/images/155d900f-4e14-4e4c-a73d-069cbf4541e6/metadata'),
    ('PUT', '/v2.1/images/155d900f-4e14-4e4c-a73d-069cbf4541e6/metadata/k'),
    ('GET', '/v2.1/os-aggregates'), ('POST', '/v2.1/os-aggregates'),
    ('GET', '/v2.1/os-aggregates/1'), ('PUT', '/v2.1/os-aggregates/1'),
    ('DELETE', '/v2.1/os-aggregates/1'),
    ('POST', '/v2.1/os-aggregates/1/action'),

    ('GET', '/v2.1/limits'), ('GET', '/v2.1/os-quota-sets/project-a'),
    ('PUT', '/v2.1/os-quota-sets/project-a'),
    ('DELETE', '/v2.1/os-quota-sets/project-x'),
    ('GET', '/v2.1/os-quota-sets/project-a/defaults'),
    ('GET', '/v2.1/os-quota-sets/project-a/detail'),
    ('GET', '/v2.1/os-quota-class-sets/default'),
    ('PUT', '/v2.1/os-quota-class-sets/default'),

    ('GET', '/v2.1/os-server-groups'), ('POST', '/v2.1/os-server-groups'),
    ('GET', '/v2.1/os-server-groups/' + MISSING_GROUP),
    ('DELETE', '/v2.1/os-server-groups/' + MISSING_GROUP),

    ('GET', '/v2.1/os-hosts'), ('PUT', '/v2.1/os-hosts/c1-host1'),
    ('GET', '/v2.1/os-security-groups'),
    ('POST', '/v2.1/os-security-groups'),
    ('PUT', '/v2.1/os-security-groups/' + MISSING_GROUP),
    ('POST', '/v2.1/os-security-group-rules'),
    ('GET', '/v2.1/os-networks'), ('POST', '/v2.1/os-networks'),
    ('POST', '/v2.1/os-fixed-ips/10.0.0.1/action'),
    ('POST', '/networking/v2.0/ports'),
]
BAD_BODIES = {
    'arrays-1000': (nested('array', 1000), 400),
    'arrays-50000': (nested('array', 50000), 400),
    'arrays-100000': (nested('array', 100000), 413),    # over the size
    'objects-1000': (nested('object', 1000), 400),
    'objects-5000': (nested('object', 5000), 400),
    'nan': (b'{"hw:cpu_policy": NaN}', 400),
    'infinity': (b'{"flavor": {"name": "x", "ram": Infinity}}', 400),
    '-infinity': (b'{"status": "disabled", "x": [-Infinity]}', 400),
}


@pytest.mark.parametrize('kind', sorted(BAD_BODIES))
def test_deep_and_non_finite_bodies_are_refused_everywhere(flavor_app,
                                                           kind):
    body, expected = BAD_BODIES[kind]
    for method, path in ENDPOINTS:
        resp = flavor_app.request(
            path, method=method, body=body, expect_errors=True,
            headers={'X-Auth-Token': 'admin:admin',
                     'Content-Type': 'application/json',
                     'OpenStack-API-Version': 'compute 2.61'})
        _check(resp)
        assert resp.status_int == expected, (method, path, resp.text)


def _poisoned(body, key, poison):
    """``body`` (a dict) with raw JSON ``poison`` as the value of ``key``
    in its single inner object (e.g. {"flavor": {...}}), else at the top."""
    marker = '__poison__'
    inner = next(iter(body.values())) if len(body) == 1 else None
    if isinstance(inner, dict):
        body = {k: dict(v, **{key: marker}) for k, v in body.items()}
    else:
        body = dict(body, **{key: marker})
    return json.dumps(body).replace('"%s"' % marker, poison.decode()
                                    ).encode()


POISONED_BODIES = st.builds(
    _poisoned,
    st.one_of(CREATE_BODIES, SPEC_VALUES,
              SPEC_VALUES.map(lambda s: {'extra_specs': s}), ACTION_BODIES,
              st.just({'status': 'disabled', 'host': 'c1-host1',
                       'binary': 'nova-compute'})),
    st.sampled_from(FLAVOR_KEYS + ['status', 'forced_down', 'x']),
    st.one_of(NON_FINITE, st.builds(
        nested, st.sampled_from(['array', 'object']),
        st.sampled_from([json_body.MAX_DEPTH + 1, 1000, 5000]))))


@settings(SETTINGS, max_examples=100)
@given(method=METHODS, endpoint=st.sampled_from(ENDPOINTS),
       body=POISONED_BODIES, token=st.sampled_from(['admin:admin',
                                                    'bob:project-a', None]))
def test_poisoned_bodies_are_400_on_every_endpoint_and_method(
        flavor_app, method, endpoint, body, token):
    """Realistic bodies with one non-finite number or one deep value in
    them: 400, whatever the method, path or credentials."""
    _request(flavor_app, method, endpoint[1], '', '2.61', False, token, body,
             'application/json', None)


# --- limits, quota sets and quota classes ---------------------------------
QUOTA_PROJECTS = st.one_of(st.sampled_from(['project-a', 'project-b',
                                            'admin']), IDS)
QUOTA_PATHS = st.one_of(
    st.just('/v2.1/limits'),
    st.builds('/v2.1/os-quota-sets/{}'.format, QUOTA_PROJECTS),
    st.builds('/v2.1/os-quota-sets/{}/{}'.format, QUOTA_PROJECTS,
              st.sampled_from(['defaults', 'detail', 'x'])),
    st.builds('/v2.1/os-quota-class-sets/{}'.format,
              st.one_of(st.just('default'), IDS)),
)
QUOTA_KEYS = ['instances', 'cores', 'ram', 'metadata_items', 'key_pairs',
              'server_groups', 'server_group_members', 'injected_files',
              'injected_file_content_bytes', 'injected_file_path_bytes',
              'floating_ips', 'fixed_ips', 'security_groups',
              'security_group_rules', 'force', 'x']
QUOTA_VALUES = st.one_of(
    st.integers(min_value=-3, max_value=2 ** 32), st.sampled_from(
        ['-1', '10', '1e3', '', ' 5', 'true', True]), FIELD_VALUES)
QUOTA_BODIES = st.dictionaries(st.sampled_from(QUOTA_KEYS), QUOTA_VALUES,
                               max_size=4)
QUOTA_REQUESTS = st.one_of(
    _endpoint('PUT', st.builds('/v2.1/os-quota-sets/{}'.format,
                               QUOTA_PROJECTS),
              _json(QUOTA_BODIES.map(lambda b: {'quota_set': b}))),
    _endpoint('PUT', st.builds('/v2.1/os-quota-class-sets/{}'.format,
                               st.one_of(st.just('default'), IDS)),
              _json(QUOTA_BODIES.map(lambda b: {'quota_class_set': b}))),
    _endpoint('GET', QUOTA_PATHS),
    _endpoint('DELETE', QUOTA_PATHS),
    st.tuples(METHODS, QUOTA_PATHS, BODIES),
)


@settings(SETTINGS, max_examples=150)
@given(request=QUOTA_REQUESTS, query=st.one_of(QUERIES, st.sampled_from(
           ['user_id=bob', 'tenant_id=project-b', 'tenant_id=',
            'user_id=bob&user_id=eve', 'reserved=1'])),
       version=st.sampled_from(['2.1', '2.35', '2.36', '2.39', '2.49',
                                '2.50', '2.57', '2.75', '2.88']),
       token=st.sampled_from(['admin:admin', 'bob:project-a']))
def test_no_quota_input_gives_a_server_error(app, request, query, version,
                                             token):
    """/limits, os-quota-sets and os-quota-class-sets with bodies shaped
    like their own."""
    method, path, body = request
    _request(app, method, path, query, version, False, token, body,
             'application/json', None)


# --- legacy APIs below 2.36/2.43: os-hosts, the security-group proxy ----
LEGACY_ID = st.one_of(st.just(MISSING_GROUP), IDS)
_SG_RULE_BODIES = st.fixed_dictionaries({}, optional={
    'parent_group_id': st.one_of(LEGACY_ID, FIELD_VALUES),
    'ip_protocol': st.one_of(st.sampled_from(['tcp', 'udp', 'icmp', 'TCP',
                                              'gre', '']), FIELD_VALUES),
    'from_port': st.one_of(st.integers(-2, 70000), FIELD_VALUES),
    'to_port': st.one_of(st.integers(-2, 70000), FIELD_VALUES),
    'cidr': st.one_of(st.sampled_from(['10.0.0.0/8', '::/0', 'x', '']),
                      FIELD_VALUES),
    'group_id': st.one_of(LEGACY_ID, FIELD_VALUES)})
_SG_BODIES = st.fixed_dictionaries({}, optional={
    'name': st.one_of(st.text(max_size=6), FIELD_VALUES),
    'description': st.one_of(st.text(max_size=6), FIELD_VALUES)})
_SWITCH = st.one_of(st.sampled_from(['enable', 'disable', 'Enable', 'on']),
                    FIELD_VALUES)
LEGACY_REQUESTS = st.one_of(
    _endpoint('POST', st.just('/v2.1/os-security-group-rules'),
              _json(_SG_RULE_BODIES.map(
                  lambda b: {'security_group_rule': b}))),
    _endpoint('POST', st.just('/v2.1/os-security-groups'),
              _json(_SG_BODIES.map(lambda b: {'security_group': b}))),
    _endpoint('PUT', st.builds('/v2.1/os-security-groups/{}'.format,
                               LEGACY_ID),
              _json(_SG_BODIES.map(lambda b: {'security_group': b}))),
    _endpoint('PUT', st.builds('/v2.1/os-hosts/{}'.format, st.one_of(
        st.sampled_from(['c1-host1', 'nohost']), IDS)),
        _json(st.fixed_dictionaries({}, optional={
            'status': _SWITCH, 'maintenance_mode': _SWITCH}))),
    _endpoint('POST', st.builds('/v2.1/{}/{}/action'.format, st.sampled_from(
        ['os-networks', 'os-fixed-ips']), IDS), _json(st.dictionaries(
            st.sampled_from(['disassociate', 'reserve', 'unreserve', 'x']),
            FIELD_VALUES, max_size=2))),
    _endpoint('POST', st.just('/v2.1/os-volumes'), _json(
        st.fixed_dictionaries({}, optional={
            'size': FIELD_VALUES, 'snapshot_id': st.one_of(LEGACY_ID,
                                                           FIELD_VALUES),
            'metadata': st.one_of(st.just({'k': 'v'}), FIELD_VALUES),
            'display_name': FIELD_VALUES, 'volume_type': FIELD_VALUES,
            'availability_zone': FIELD_VALUES}).map(
            lambda b: {'volume': b}))),
    _endpoint('POST', st.just('/v2.1/os-snapshots'), _json(
        st.fixed_dictionaries({}, optional={
            'volume_id': st.one_of(LEGACY_ID, FIELD_VALUES),
            'force': st.one_of(st.sampled_from(['true', 'no']),
                               FIELD_VALUES),
            'display_name': FIELD_VALUES}).map(
            lambda b: {'snapshot': b}))),
    _endpoint('POST', st.just('/v2.1/os-floating-ips'), st.one_of(
        st.none(), _json(st.fixed_dictionaries({}, optional={
            'pool': st.one_of(st.sampled_from(['public', 'nope']),
                              FIELD_VALUES)})))),
    _endpoint('POST', st.builds('/v2.1/servers/{}/action'.format, IDS),
              _json(st.builds(
                  lambda action, key, value: {action: {key: value}},
                  st.sampled_from(['addFloatingIp', 'removeFloatingIp',
                                   'addFixedIp', 'removeFixedIp']),
                  st.sampled_from(['address', 'fixed_address',
                                   'networkId', 'x']),
                  st.one_of(st.sampled_from(['172.24.4.2', '10.0.0.2',
                                             '::1', '']),
                            FIELD_VALUES)))),
    st.tuples(METHODS, st.one_of(SG_PROXY_PATHS, OS_HOSTS_PATHS,
                                 GONE_PATHS, VOLUME_FIP_PATHS), BODIES),
)


@settings(SETTINGS, max_examples=150)
@given(request=LEGACY_REQUESTS, query=st.one_of(QUERIES, st.sampled_from(
           ['all_tenants=1', 'all_tenants=x', 'zone=nova', 'zone='])),
       version=st.sampled_from(['2.1', '2.35', '2.36', '2.42', '2.43',
                                '2.44', '2.88']),
       token=st.sampled_from(['admin:admin', 'bob:project-a']))
def test_no_legacy_input_gives_a_server_error(app, request, query, version,
                                              token):
    """os-hosts, the security-group, volume and floating-IP proxies, the
    IP actions and the 410 APIs with bodies shaped like theirs."""
    method, path, body = request
    _request(app, method, path, query, version, False, token, body,
             'application/json', None)
