"""Hypothesis on the server endpoints: no input, however bad, makes them
answer 5xx; every error is a Compute API fault (test_fuzz.check). Servers
exist in both cells, cell0 (ERROR) and as a build request, so many
requests reach real records."""
import json
import string
from urllib import parse

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from nova_lite.volume import api as volume_api
from tests.functional.api import server_fixtures as sf
from tests.functional.api import test_fuzz as fuzz

_IDS = st.one_of(fuzz.IDS, st.sampled_from(['detail', 'ips', 'action',
                                             'os-instance-actions',
                                             'os-volume_attachments',
                                             'metadata', 'tags',
                                             'migrations',
                                             'remote-consoles',
                                             'diagnostics', 'topology']))
# Metadata keys and tags: mostly those the servers have.
_KEYS = st.one_of(st.sampled_from(['k', 'a', 'b', 'x y', 'a%2Cb', 'k' * 61]),
                  fuzz.IDS)


@pytest.fixture
def servers(seeded):
    # seeded: the examples need a build request that stays one and a
    # fixed address and tags to aim at; hypothesis re-runs the fixture's
    # test many times against the same rows.
    env = seeded.env
    flavor = sf.flavor(env.ctxt, 'small')
    uuids = [sf.add_server(env, 'cell1', flavor,
                           network_info=sf.network_info('10.0.0.5')),
             sf.add_server(env, 'cell2', flavor, tags=['a', 'b'],
                           metadata={'k': 'v'}),
             sf.add_server(env, 'cell0', flavor, vm_state='error',
                           host=None, node=None),
             sf.add_build_request(env, flavor)]
    return uuids


def _paths(uuids):
    known = st.sampled_from(uuids)
    server = st.one_of(known, known, _IDS)
    return st.one_of(
        st.sampled_from(['/v2.1/servers', '/v2.1/servers/detail']),
        st.builds('/v2.1/servers/{}'.format, server),
        st.builds('/v2.1/servers/{}/ips'.format, server),
        st.builds('/v2.1/servers/{}/ips/{}'.format, server,
                  st.one_of(st.sampled_from(['private', 'public']),
                            fuzz.IDS)),
        st.builds('/v2.1/servers/{}/{}'.format, server, _IDS),
        st.builds('/v2.1/servers/{}/action'.format, server),
        st.builds('/v2.1/servers/{}/os-instance-actions'.format, server),
        st.builds('/v2.1/servers/{}/os-instance-actions/{}'.format, server,
                  st.one_of(st.just('req-1'), fuzz.IDS)),
        st.builds('/v2.1/servers/{}/{}'.format, server,
                  st.sampled_from(['metadata', 'tags'])),
        st.builds('/v2.1/servers/{}/{}/{}'.format, server,
                  st.sampled_from(['metadata', 'tags']), _KEYS))


QUERY_KEYS = st.sampled_from([
    'limit', 'marker', 'sort_key', 'sort_dir', 'status', 'name', 'ip',
    'ip6', 'image', 'flavor', 'changes-since', 'changes-before',
    'all_tenants', 'project_id', 'tenant_id', 'host', 'node', 'deleted',
    'tags', 'tags-any', 'not-tags', 'not-tags-any', 'locked', 'vm_state',
    'task_state', 'uuid', 'foo', ''])
# Every server action, with values right and wrong for it.
ACTION_NAMES = ['os-stop', 'os-start', 'reboot', 'pause', 'unpause',
                'suspend', 'resume', 'lock', 'unlock', 'os-resetState',
                'resetNetwork', 'resize', 'migrate', 'confirmResize',
                'revertResize', 'nosuch',
                'os-getConsoleOutput', 'os-getVNCConsole',
                'os-getSPICEConsole', 'os-getRDPConsole',
                'os-getSerialConsole', 'trigger_crash_dump',
                'injectNetworkInfo']
ACTION_VALUES = st.one_of(
    fuzz.FIELD_VALUES, st.none(),
    st.sampled_from([{'type': 'SOFT'}, {'type': 'hard'}, {'type': 'x'},
                     {'state': 'active'}, {'state': 'error'},
                     {'state': 'stopped'}, {'locked_reason': 'r'},
                     {'locked_reason': ''}, {}, {'locked_reason':
                                                 'x' * 300},
                     {'length': 5}, {'length': '-1'}, {'length': -2},
                     {'type': 'novnc'}, {'type': 'xvpvnc'},
                     {'type': 'serial'}]),
    st.dictionaries(st.sampled_from(['type', 'state', 'locked_reason', 'x',
                                     'length']),
                    fuzz.FIELD_VALUES, max_size=2))
ACTION_BODIES = st.builds(
    lambda name, value: json.dumps({name: value}).encode(),
    st.sampled_from(ACTION_NAMES), ACTION_VALUES)
QUERY_VALUES = st.one_of(
    st.text(max_size=12), fuzz.IDS,
    st.sampled_from(['true', 'false', '0', '-1', '99999999999999999999',
                     'ACTIVE', 'bogus', 'created_at', 'display_name',
                     'host', 'locked', 'asc', 'desc', 'ASC', '[', '(?P<',
                     '2026-01-01T00:00:00Z', 'yesterday', 'small', 'a,b',
                     '10.0.0.5', '*']))
QUERIES = st.lists(st.tuples(QUERY_KEYS, QUERY_VALUES), max_size=4).map(
    parse.urlencode)
SERVER_KEYS = ['name', 'description', 'accessIPv4', 'accessIPv6',
               'OS-DCF:diskConfig', 'flavorRef', 'imageRef', 'networks',
               'metadata', 'min_count', 'max_count', 'tags', 'user_data']
# Bodies of /metadata ({"metadata": {...}}, {"meta": {...}}) and /tags
# ({"tags": [...]}), well and badly formed.
_SUB_VALUES = st.one_of(
    st.dictionaries(_KEYS, fuzz.FIELD_VALUES, max_size=3),
    st.dictionaries(_KEYS, st.text(max_size=4), max_size=3),
    st.lists(st.one_of(_KEYS, fuzz.FIELD_VALUES), max_size=4),
    fuzz.FIELD_VALUES)
SUB_BODIES = st.dictionaries(
    st.sampled_from(['metadata', 'meta', 'tags', 'server']), _SUB_VALUES,
    min_size=1, max_size=2).map(lambda b: json.dumps(b).encode())
# POST /servers/{id}/remote-consoles bodies.
CONSOLE_BODIES = st.dictionaries(
    st.sampled_from(['remote_console', 'x']), st.one_of(
        fuzz.FIELD_VALUES, st.fixed_dictionaries({
            'protocol': st.sampled_from(['vnc', 'spice', 'rdp', 'serial',
                                         'mks', 'x']),
            'type': st.sampled_from(['novnc', 'xvpvnc', 'spice-html5',
                                     'rdp-html5', 'serial', 'webmks',
                                     'x'])})),
    min_size=1, max_size=2).map(lambda b: json.dumps(b).encode())
BODIES = st.one_of(
    fuzz.BODIES, ACTION_BODIES, CONSOLE_BODIES,
    st.dictionaries(st.sampled_from(SERVER_KEYS), fuzz.FIELD_VALUES,
                    max_size=4).map(
        lambda s: json.dumps({'server': s}).encode()),
    SUB_BODIES)
VERSIONS = st.sampled_from(['2.1', '2.3', '2.19', '2.26', '2.38', '2.47',
                            '2.5', '2.6', '2.8', '2.17', '2.30', '2.48',
                            '2.78',
                            '2.21', '2.51', '2.58', '2.62', '2.63', '2.66',
                            '2.69', '2.71', '2.73', '2.75', '2.84', '2.88',
                            'latest'])
TOKENS = st.sampled_from(['admin:admin', 'bob:project-a', 'eve:project-b',
                          None])
PRINTABLE = string.printable


@settings(fuzz.SETTINGS, max_examples=300)
@given(data=st.data(), method=fuzz.METHODS, query=QUERIES,
       version=VERSIONS, token=TOKENS, body=BODIES)
def test_no_server_input_gives_a_server_error(app, servers, data, method,
                                              query, version, token, body):
    path = data.draw(_paths(servers))
    fuzz._request(app, method, path, query, version, False, token, body,
                  'application/json', None)


def _sub_paths(uuids):
    server = st.one_of(st.sampled_from(uuids), st.sampled_from(uuids),
                       fuzz.IDS)
    resource = st.sampled_from(['metadata', 'tags'])
    return st.one_of(
        st.builds('/v2.1/servers/{}/{}'.format, server, resource),
        st.builds('/v2.1/servers/{}/{}/{}'.format, server, resource, _KEYS))


@settings(fuzz.SETTINGS, max_examples=200)
@given(data=st.data(), method=st.sampled_from(['GET', 'PUT', 'POST',
                                               'DELETE', 'PATCH']),
       version=st.sampled_from(['2.1', '2.25', '2.26', '2.52', '2.88']),
       token=TOKENS, body=st.one_of(SUB_BODIES, SUB_BODIES, fuzz.BODIES))
def test_no_metadata_or_tag_input_gives_a_server_error(app, servers, data,
                                                       method, version,
                                                       token, body):
    path = data.draw(_sub_paths(servers))
    fuzz._request(app, method, path, '', version, False, token, body,
                  'application/json', None)


@pytest.mark.parametrize('kind', sorted(fuzz.BAD_BODIES))
def test_deep_and_non_finite_bodies_are_refused_on_servers(app, servers,
                                                           kind):
    body, expected = fuzz.BAD_BODIES[kind]
    for method, path in [('PUT', '/v2.1/servers/%s' % servers[0]),
                         ('POST', '/v2.1/servers'),
                         ('POST', '/v2.1/servers/%s/metadata' % servers[1]),
                         ('PUT', '/v2.1/servers/%s/metadata' % servers[1]),
                         ('PUT', '/v2.1/servers/%s/metadata/k'
                          % servers[1]),
                         ('PUT', '/v2.1/servers/%s/tags' % servers[1]),
                         ('POST', '/v2.1/servers/%s/action' % servers[0])]:
        resp = app.request(
            path, method=method, body=body, expect_errors=True,
            headers={'X-Auth-Token': 'admin:admin',
                     'Content-Type': 'application/json',
                     'OpenStack-API-Version': 'compute 2.75'})
        fuzz._check(resp)
        assert resp.status_int == expected, (method, path, resp.text)


@settings(fuzz.SETTINGS, max_examples=300)
@given(data=st.data(), version=VERSIONS, token=TOKENS, body=ACTION_BODIES)
def test_no_action_body_gives_a_server_error(app, servers, data, version,
                                             token, body):
    """Every action, with any value, on every kind of server."""
    server = data.draw(st.one_of(st.sampled_from(servers), fuzz.IDS))
    fuzz._request(app, 'POST', '/v2.1/servers/%s/action' % server, '',
                  version, False, token, body, 'application/json', None)


@settings(fuzz.SETTINGS, max_examples=150)
@given(data=st.data(), query=QUERIES, version=VERSIONS, token=TOKENS)
def test_no_instance_actions_query_gives_a_server_error(app, servers, data,
                                                        query, version,
                                                        token):
    server = data.draw(st.one_of(st.sampled_from(servers), fuzz.IDS))
    fuzz._request(app, 'GET', '/v2.1/servers/%s/os-instance-actions'
                  % server, query, version, False, token, b'', None, None)


# rebuild and createImage: every key each takes at some microversion,
# plus unknown ones; well-formed images (known and missing) half the time.
_IMAGE_REFS = st.one_of(
    st.sampled_from(['155d900f-4e14-4e4c-a73d-069cbf4541e6',
                     '70a599e0-31e7-49b7-b260-868f441e862b',
                     '8a6d3d1e-4b8e-4e0e-9d7f-1c2b3a4d5e6f']),
    fuzz.FIELD_VALUES)
REBUILD_KEYS = ['name', 'metadata', 'adminPass', 'accessIPv4', 'accessIPv6',
                'OS-DCF:diskConfig', 'preserve_ephemeral', 'personality',
                'description', 'key_name', 'user_data',
                'trusted_image_certificates', 'hostname', 'foo']
CREATE_IMAGE_KEYS = ['name', 'metadata', 'foo']
IMAGE_ACTION_BODIES = st.one_of(
    st.builds(lambda ref, rest: {'rebuild': dict(rest, imageRef=ref)},
              _IMAGE_REFS,
              st.dictionaries(st.sampled_from(REBUILD_KEYS),
                              fuzz.FIELD_VALUES, max_size=4)),
    st.builds(lambda rest: {'rebuild': rest},
              st.dictionaries(st.sampled_from(REBUILD_KEYS),
                              fuzz.FIELD_VALUES, max_size=3)),
    st.builds(lambda name, rest: {'createImage': dict(rest, name=name)},
              st.one_of(st.text(min_size=1, max_size=8), fuzz.FIELD_VALUES),
              st.dictionaries(st.sampled_from(CREATE_IMAGE_KEYS),
                              fuzz.FIELD_VALUES, max_size=2)),
    st.builds(lambda action, value: {action: value},
              st.sampled_from(['rebuild', 'createImage']),
              fuzz.FIELD_VALUES)).map(lambda b: json.dumps(b).encode())
ACTION_VERSIONS = st.sampled_from(['2.1', '2.18', '2.19', '2.44', '2.45',
                                   '2.53', '2.54', '2.56', '2.57', '2.63',
                                   '2.74', '2.75', 'latest'])


@settings(fuzz.SETTINGS, max_examples=200)
@given(data=st.data(), version=ACTION_VERSIONS, token=TOKENS,
       body=IMAGE_ACTION_BODIES)
def test_no_rebuild_or_create_image_body_gives_a_server_error(
        app, servers, data, version, token, body):
    server = data.draw(st.one_of(st.sampled_from(servers), fuzz.IDS))
    fuzz._request(app, 'POST', '/v2.1/servers/%s/action' % server, '',
                  version, False, token, body, 'application/json', None)


# resize, migrate, confirmResize and revertResize: every key each takes
# at some microversion, plus unknown ones; flavors and hosts that exist
# (or not) half the time.
RESIZE_KEYS = ['flavorRef', 'OS-DCF:diskConfig', 'host', 'foo']
_RESIZE_VALUES = st.one_of(
    st.sampled_from(['small', 'nosuch', 1, '', 'c1-host1', 'c2-host1',
                     'AUTO', 'MANUAL', 'a b']), fuzz.FIELD_VALUES)
RESIZE_ACTION_BODIES = st.builds(
    lambda action, value: json.dumps({action: value}).encode(),
    st.sampled_from(['resize', 'migrate', 'confirmResize',
                     'revertResize']),
    st.one_of(st.none(), fuzz.FIELD_VALUES,
              st.dictionaries(st.sampled_from(RESIZE_KEYS),
                              _RESIZE_VALUES, max_size=3)))


@settings(fuzz.SETTINGS, max_examples=150)
@given(data=st.data(), version=ACTION_VERSIONS, token=TOKENS,
       body=RESIZE_ACTION_BODIES)
def test_no_resize_or_migrate_body_gives_a_server_error(
        app, servers, data, version, token, body):
    server = data.draw(st.one_of(st.sampled_from(servers), fuzz.IDS))
    fuzz._request(app, 'POST', '/v2.1/servers/%s/action' % server, '',
                  version, False, token, body, 'application/json', None)


# os-volume_attachments: every key a body takes at some microversion,
# plus unknown ones; real volumes (available, and attached to a server)
# half the time.
VOLUME_ATTACHMENT_KEYS = ['volumeId', 'device', 'tag',
                          'delete_on_termination', 'id', 'serverId', 'foo']
VOLUME_ATTACHMENT_VERSIONS = st.sampled_from([
    '2.1', '2.48', '2.49', '2.70', '2.75', '2.78', '2.79', '2.84', '2.85',
    'latest'])


@pytest.fixture
def volumes(seeded, servers):
    ctxt = seeded.env.ctxt
    api = volume_api.API()
    free = api.create(ctxt, 1, 'free')['id']
    used = api.create(ctxt, 1, 'used')['id']
    with_volume = sf.add_server(seeded.env, 'cell1',
                                sf.flavor(ctxt, 'volumes'))
    attachment = api.attachment_create(ctxt, used, with_volume)
    sf.add_volume_bdm(seeded.env, 'cell1', with_volume, used,
                      attachment_id=attachment['id'])
    return [free, used], servers + [with_volume]


@settings(fuzz.SETTINGS, max_examples=250)
@given(data=st.data(), method=st.sampled_from(['GET', 'POST', 'PUT',
                                               'DELETE', 'PATCH']),
       version=VOLUME_ATTACHMENT_VERSIONS, token=TOKENS, query=QUERIES)
def test_no_volume_attachment_input_gives_a_server_error(
        app, volumes, data, method, version, token, query):
    volume_ids, server_ids = volumes
    volume = st.one_of(st.sampled_from(volume_ids), fuzz.IDS)
    server = data.draw(st.one_of(st.sampled_from(server_ids), fuzz.IDS))
    path = '/v2.1/servers/%s/os-volume_attachments' % server
    if data.draw(st.booleans()):
        path += '/' + data.draw(volume)
    body = data.draw(st.one_of(
        st.dictionaries(st.sampled_from(VOLUME_ATTACHMENT_KEYS),
                        st.one_of(volume, fuzz.FIELD_VALUES), max_size=4)
        .map(lambda b: {'volumeAttachment': b}),
        fuzz.FIELD_VALUES.map(lambda v: {'volumeAttachment': v}),
        st.dictionaries(st.sampled_from(['volume', 'foo']),
                        fuzz.FIELD_VALUES, max_size=2)))
    fuzz._request(app, method, path, query, version, False, token,
                  json.dumps(body).encode(), 'application/json', None)


# shelve, shelveOffload, unshelve, rescue, unrescue, createBackup,
# changePassword and restore (and os-server-password's methods; not
# forceDelete, which would delete the servers): every key each
# takes at some microversion, plus unknown ones; zones and images that
# exist (or not) half the time.
SHELVE_RESCUE_KEYS = ['availability_zone', 'adminPass', 'rescue_image_ref',
                      'host', 'name', 'backup_type', 'rotation', 'metadata',
                      'foo']
_SHELVE_RESCUE_VALUES = st.one_of(
    st.sampled_from(['nova', 'elsewhere', '', None,
                     '155d900f-4e14-4e4c-a73d-069cbf4541e6',
                     '8a6d3d1e-4b8e-4e0e-9d7f-1c2b3a4d5e6f', 's3cret',
                     0, 1, '2', -1, 'daily']),
    fuzz.FIELD_VALUES)
SHELVE_RESCUE_BODIES = st.builds(
    lambda action, value: json.dumps({action: value}).encode(),
    st.sampled_from(['shelve', 'shelveOffload', 'unshelve', 'rescue',
                     'unrescue', 'createBackup', 'changePassword',
                     'restore']),
    st.one_of(st.none(), fuzz.FIELD_VALUES,
              st.dictionaries(st.sampled_from(SHELVE_RESCUE_KEYS),
                              _SHELVE_RESCUE_VALUES, max_size=3)))
SHELVE_RESCUE_VERSIONS = st.sampled_from(['2.1', '2.76', '2.77', '2.86',
                                          '2.87', 'latest'])


@settings(fuzz.SETTINGS, max_examples=150)
@given(data=st.data(), version=SHELVE_RESCUE_VERSIONS, token=TOKENS,
       body=SHELVE_RESCUE_BODIES)
def test_no_shelve_or_rescue_body_gives_a_server_error(
        app, servers, data, version, token, body):
    server = data.draw(st.one_of(st.sampled_from(servers), fuzz.IDS))
    fuzz._request(app, 'POST', '/v2.1/servers/%s/action' % server, '',
                  version, False, token, body, 'application/json', None)


@settings(fuzz.SETTINGS, max_examples=60)
@given(data=st.data(), method=st.sampled_from(['GET', 'DELETE', 'POST',
                                               'PUT']),
       version=SHELVE_RESCUE_VERSIONS, token=TOKENS)
def test_no_server_password_request_gives_a_server_error(
        app, servers, data, method, version, token):
    server = data.draw(st.one_of(st.sampled_from(servers), fuzz.IDS))
    fuzz._request(app, method, '/v2.1/servers/%s/os-server-password'
                  % server, '', version, False, token, b'', None, None)
