"""Hypothesis: no input, however bad, makes the API answer 5xx.

Random methods, paths and ids, query strings, headers and bodies over every
endpoint; every answer must be < 500 and, when an error, in the Compute API
fault format.
"""
import json
import string
from urllib import parse

from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st

from nova_lite.api import faults

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
                     '/v2.1/os-hypervisors/statistics', '/v2', '/v3/x']),
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
                               'quota:disk_read_bytes_sec', 'k'])
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
PATHS = st.one_of(PATHS, FLAVOR_PATHS)
QUERY_KEYS = st.sampled_from(['host', 'binary', 'limit', 'marker',
                              'with_servers', 'hypervisor_hostname_pattern',
                              'minRam', 'minDisk', 'is_public', 'sort_key',
                              'sort_dir', 'foo', ''])
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
                     '2.87', '2.88', 'latest', '2.89', '0.0', '2.a', '']),
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
    | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(['status', 'disabled_reason', 'forced_down', 'host',
                         'binary', 'service', 'x'] + FLAVOR_KEYS), inner,
        max_size=4),
    max_leaves=8)
BODIES = st.one_of(
    st.none(),
    JSON_VALUES.map(lambda v: json.dumps(v).encode()),
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
CONTENT_TYPES = st.sampled_from(['application/json', None, 'text/plain',
                                 'application/x-www-form-urlencoded'])
ACCEPTS = st.sampled_from([None, '*/*', 'application/json', 'text/html',
                           'application/xml', 'garbage'])


def _check(resp):
    assert resp.status_int < 500, (resp.status, resp.text)
    if resp.status_int >= 400 and resp.request.method != 'HEAD':
        body = resp.json
        (name, fault), = body.items()
        assert name == faults.fault_name(resp.status_int)
        assert fault['code'] == resp.status_int and fault['message']


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
                                '2.74', '2.75', '2.88']),
       token=st.sampled_from(['admin:admin', 'admin:admin',
                              'bob:project-a']))
def test_no_flavor_input_gives_a_server_error(flavor_app, request, query,
                                              version, token):
    """Flavor endpoints with bodies shaped like theirs, on the mixed
    deployment (legacy and API flavors)."""
    method, path, body = request
    _request(flavor_app, method, path, query, version, False, token, body,
             'application/json', None)
