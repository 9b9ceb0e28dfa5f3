"""Hypothesis on /os-aggregates: no body, path, microversion or
credentials make it answer 5xx; every error is a Compute API fault
(test_fuzz.check). Aggregates exist (one a zone, with a seeded host),
so many requests reach real records, hosts and zone rules."""
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from tests.functional.api import test_fuzz as fuzz

HOSTS = st.one_of(st.sampled_from(['c1-host1', 'c1-host2', 'c2-host1',
                                   'ctl1', 'nope', '', ' ']),
                  fuzz.FIELD_VALUES)
NAMES = st.one_of(st.sampled_from(['agg', 'zone', 'az1', 'nova', 'x:y',
                                   ' lead', '']), fuzz.FIELD_VALUES)
AGG_IDS = st.one_of(st.sampled_from(['1', '2', '3', '0', '-1']), fuzz.IDS)
METADATA = st.dictionaries(
    st.one_of(st.sampled_from(['availability_zone', 'filter_tenant_id',
                               'ssd', 'trait:CUSTOM_X', 'a' * 256, '']),
              st.text(max_size=6)),
    st.one_of(st.none(), NAMES), max_size=3)
AGGREGATE = st.fixed_dictionaries({}, optional={
    'name': NAMES, 'availability_zone': st.one_of(st.none(), NAMES),
    'x': fuzz.FIELD_VALUES})
ACTIONS = st.one_of(
    st.builds(lambda h: {'add_host': {'host': h}}, HOSTS),
    st.builds(lambda h: {'remove_host': {'host': h}}, HOSTS),
    st.builds(lambda m: {'set_metadata': {'metadata': m}}, METADATA),
    st.builds(lambda k, v: {k: v}, st.sampled_from(
        ['add_host', 'remove_host', 'set_metadata', 'bogus']),
        fuzz.JSON_VALUES))
IMAGES = st.one_of(
    st.builds(lambda ids: {'cache': [{'id': i} for i in ids]},
              st.lists(st.one_of(st.just(
                  '155d900f-4e14-4e4c-a73d-069cbf4541e6'), fuzz.IDS),
                  max_size=3)),
    fuzz.JSON_VALUES.map(lambda v: {'cache': v}))


def _path(fmt, *parts):
    return st.builds(fmt.format, AGG_IDS, *parts)


REQUESTS = st.one_of(
    fuzz._endpoint('POST', st.just('/v2.1/os-aggregates'), fuzz._json(
        AGGREGATE.map(lambda a: {'aggregate': a}))),
    fuzz._endpoint('GET', st.one_of(st.just('/v2.1/os-aggregates'),
                                    _path('/v2.1/os-aggregates/{}'))),
    fuzz._endpoint('PUT', _path('/v2.1/os-aggregates/{}'), fuzz._json(
        AGGREGATE.map(lambda a: {'aggregate': a}))),
    fuzz._endpoint('DELETE', _path('/v2.1/os-aggregates/{}')),
    fuzz._endpoint('POST', _path('/v2.1/os-aggregates/{}/action'),
                   fuzz._json(ACTIONS)),
    fuzz._endpoint('POST', _path('/v2.1/os-aggregates/{}/images'),
                   fuzz._json(IMAGES)),
    st.tuples(fuzz.METHODS, st.one_of(
        _path('/v2.1/os-aggregates/{}'), _path('/v2.1/os-aggregates/{}/{}',
                                               fuzz.IDS)), fuzz.BODIES),
)


@pytest.fixture
def aggregates_app(app):
    for name, zone in (('agg', None), ('zone', 'az1')):
        body = {'aggregate': {'name': name}}
        if zone:
            body['aggregate']['availability_zone'] = zone
        app.post_json('/v2.1/os-aggregates', body,
                      headers={'X-Auth-Token': 'admin:admin'})
    app.post_json('/v2.1/os-aggregates/2/action',
                  {'add_host': {'host': 'c1-host1'}},
                  headers={'X-Auth-Token': 'admin:admin'})
    return app


@settings(fuzz.SETTINGS, max_examples=200)
@given(request=REQUESTS,
       version=st.sampled_from(['2.1', '2.40', '2.41', '2.80', '2.81',
                                '2.88']),
       token=st.sampled_from(['admin:admin', 'admin:admin',
                              'bob:project-a']))
def test_no_aggregate_input_gives_a_server_error(aggregates_app, request,
                                                 version, token):
    method, path, body = request
    fuzz._request(aggregates_app, method, path, '', version, False, token,
                  body, 'application/json', None)
