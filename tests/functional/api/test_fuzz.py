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
QUERY_KEYS = st.sampled_from(['host', 'binary', 'limit', 'marker',
                              'with_servers', 'hypervisor_hostname_pattern',
                              'foo', ''])
QUERY_VALUES = st.one_of(st.text(max_size=20), IDS,
                         st.sampled_from(['true', 'false', '0', '-1',
                                          '99999999999999999999']))
QUERIES = st.lists(st.tuples(QUERY_KEYS, QUERY_VALUES), max_size=4).map(
    parse.urlencode)
VERSIONS = st.one_of(
    st.none(),
    st.sampled_from(['2.1', '2.11', '2.33', '2.52', '2.53', '2.69', '2.75',
                     '2.87', '2.88', 'latest', '2.89', '0.0', '2.a', '']),
    st.text(alphabet=PRINTABLE, max_size=12))
TOKENS = st.sampled_from(['admin:admin', 'admin', 'bob:p', ':', 'x' * 300,
                          None])
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20)
    | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(['status', 'disabled_reason', 'forced_down', 'host',
                         'binary', 'service', 'x']), inner, max_size=4),
    max_leaves=8)
BODIES = st.one_of(
    st.none(),
    JSON_VALUES.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=64),
    st.sampled_from([b'{', b'{"status": "disabled"}', b'\xff\xfe',
                     b'{"status": "enabled", "forced_down": "yes"}']))
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


@SETTINGS
@given(method=METHODS, path=PATHS, query=QUERIES, version=VERSIONS,
       legacy=st.booleans(), token=TOKENS, body=BODIES,
       content_type=CONTENT_TYPES, accept=ACCEPTS)
def test_no_input_gives_a_server_error(app, method, path, query, version,
                                       legacy, token, body, content_type,
                                       accept):
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
