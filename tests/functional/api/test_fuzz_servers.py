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

from nova_lite.share import api as share_api
from nova_lite.volume import api as volume_api
from tests.functional.api import server_fixtures as sf
from tests.functional.api import test_fuzz as fuzz

_IDS = st.one_of(fuzz.IDS, st.sampled_from(['detail', 'ips', 'action',
                                             'os-instance-actions',
                                             'os-volume_attachments',
                                             'shares',
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
        st.sampled_from(['/v2.1/servers', '/v2.1/servers/detail',
                         '/v2.1/os-volumes_boot',
                         '/v2.1/os-volumes_boot/detail']),
        st.builds('/v2.1/servers/{}'.format, server),
        st.builds('/v2.1/os-volumes_boot/{}'.format, server),
        st.builds('/v2.1/os-volumes_boot/{}/action'.format, server),
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
               'metadata', 'min_count', 'max_count', 'tags', 'user_data',
               'hostname', 'pinned_availability_zone']
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
                            '2.89', '2.90', '2.93', '2.94', '2.96', '2.101',
                            '2.102', '2.103', '2.104', 'latest'])
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


# evacuate: every key it takes at some microversion, plus unknown ones;
# hosts that exist (or not) half the time.
EVACUATE_KEYS = ['host', 'onSharedStorage', 'adminPass', 'force', 'foo']
_EVACUATE_VALUES = st.one_of(
    st.sampled_from(['c1-host1', 'c2-host1', 'nosuch', '', 'a b', True,
                     False, 'true', 'off', 'maybe']), fuzz.FIELD_VALUES)
EVACUATE_BODIES = st.builds(
    lambda value: json.dumps({'evacuate': value}).encode(),
    st.one_of(st.none(), fuzz.FIELD_VALUES,
              st.dictionaries(st.sampled_from(EVACUATE_KEYS),
                              _EVACUATE_VALUES, max_size=4)))
EVACUATE_VERSIONS = st.sampled_from(['2.1', '2.13', '2.14', '2.29', '2.67',
                                     '2.68', 'latest'])


@settings(fuzz.SETTINGS, max_examples=120)
@given(data=st.data(), version=EVACUATE_VERSIONS, token=TOKENS,
       body=EVACUATE_BODIES)
def test_no_evacuate_body_gives_a_server_error(app, servers, data, version,
                                               token, body):
    server = data.draw(st.one_of(st.sampled_from(servers), fuzz.IDS))
    fuzz._request(app, 'POST', '/v2.1/servers/%s/action' % server, '',
                  version, False, token, body, 'application/json', None)


# os-migrateLive: every key it takes at some microversion, plus unknown
# ones; hosts that exist (or not), 'auto' and booleans as strings.
LIVE_MIGRATE_KEYS = ['host', 'block_migration', 'disk_over_commit',
                     'force', 'foo']
_LIVE_MIGRATE_VALUES = st.one_of(
    st.sampled_from([None, True, False, 'auto', 'true', 'False', 'yes',
                     'c1-host1', 'c2-host1', 'nosuch', '', 'a b']),
    fuzz.FIELD_VALUES)
LIVE_MIGRATE_BODIES = st.builds(
    lambda value: json.dumps({'os-migrateLive': value}).encode(),
    st.one_of(st.none(), fuzz.FIELD_VALUES,
              st.dictionaries(st.sampled_from(LIVE_MIGRATE_KEYS),
                              _LIVE_MIGRATE_VALUES, max_size=4)))
LIVE_MIGRATE_VERSIONS = st.sampled_from([
    '2.1', '2.24', '2.25', '2.29', '2.30', '2.33', '2.34', '2.67', '2.68',
    'latest'])


@settings(fuzz.SETTINGS, max_examples=150)
@given(data=st.data(), version=LIVE_MIGRATE_VERSIONS, token=TOKENS,
       body=LIVE_MIGRATE_BODIES)
def test_no_live_migrate_body_gives_a_server_error(
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
    '2.88', '2.89', '2.100', '2.101', 'latest'])


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


# /servers/{id}/shares (2.97): every key the body takes plus unknown
# ones; real shares half the time, and a stopped server the examples
# can attach them to (and detach them from).
SHARE_KEYS = ['share_id', 'tag', 'foo']
SHARE_VERSIONS = st.sampled_from(['2.1', '2.96', '2.97', 'latest'])


@pytest.fixture
def shares(seeded, servers):
    ctxt = seeded.env.ctxt
    api = share_api.API()
    free = api.create(ctxt, 'NFS', 1, name='free')['id']
    used = api.create(ctxt, 'NFS', 1, name='used')['id']
    stopped = sf.add_server(seeded.env, 'cell1', sf.flavor(ctxt, 'shares'),
                            vm_state='stopped')
    return [free, used], servers + [stopped]


@settings(fuzz.SETTINGS, max_examples=200)
@given(data=st.data(), method=st.sampled_from(['GET', 'POST', 'PUT',
                                               'DELETE', 'PATCH']),
       version=SHARE_VERSIONS, token=TOKENS, query=QUERIES)
def test_no_server_share_input_gives_a_server_error(
        app, shares, data, method, version, token, query):
    share_ids, server_ids = shares
    share = st.one_of(st.sampled_from(share_ids), fuzz.IDS)
    server = data.draw(st.one_of(st.sampled_from(server_ids), fuzz.IDS))
    path = '/v2.1/servers/%s/shares' % server
    if data.draw(st.booleans()):
        path += '/' + data.draw(share)
    body = data.draw(st.one_of(
        st.dictionaries(st.sampled_from(SHARE_KEYS),
                        st.one_of(share, fuzz.FIELD_VALUES), max_size=3)
        .map(lambda b: {'share': b}),
        fuzz.FIELD_VALUES.map(lambda v: {'share': v}),
        st.dictionaries(st.sampled_from(['share', 'foo']),
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
                                          '2.87', '2.90', '2.91', 'latest'])


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


# Security groups: the addSecurityGroup/removeSecurityGroup actions,
# GET /servers/{id}/os-security-groups, and the network service's
# /v2.0/security-groups and /v2.0/security-group-rules, on a server with
# real ports (and groups) and on the others.
SG_NAMES = st.one_of(st.sampled_from(['default', 'web', 'nosuch', '', ' ']),
                     fuzz.IDS)
SG_ACTION_BODIES = st.builds(
    lambda name, value: json.dumps({name: value}).encode(),
    st.sampled_from(['addSecurityGroup', 'removeSecurityGroup']),
    st.one_of(st.fixed_dictionaries({'name': SG_NAMES}),
              st.dictionaries(st.sampled_from(['name', 'foo']),
                              st.one_of(SG_NAMES, fuzz.FIELD_VALUES),
                              max_size=2),
              fuzz.FIELD_VALUES))
RULE_KEYS = ['security_group_id', 'direction', 'ethertype', 'protocol',
             'port_range_min', 'port_range_max', 'remote_ip_prefix',
             'remote_group_id', 'description', 'project_id', 'foo']
RULE_VALUES = st.one_of(
    st.sampled_from(['ingress', 'egress', 'IPv4', 'IPv6', 'tcp', 'icmp',
                     'udp', '6', 'any', '10.0.0.0/8', '::/0', '1.2.3.4/99',
                     '22', '-1', '65536', 0, 80, 256, None]),
    fuzz.FIELD_VALUES)


@pytest.fixture
def sg_servers(seeded, servers):
    from nova_lite import context as nova_context
    from nova_lite.network import api as network_api
    ctxt = nova_context.RequestContext('bob', 'project-a')
    api = network_api.API()
    group = api.create_security_group(ctxt, 'web')
    with_ports = sf.add_server(seeded.env, 'cell1',
                               sf.flavor(seeded.env.ctxt, 'sg'))
    api.allocate_for_instance(ctxt, with_ports, 'project-a', 'auto',
                              'host1', security_group_ids=[group['id']])
    return servers + [with_ports], group['id']


@settings(fuzz.SETTINGS, max_examples=200)
@given(data=st.data(), version=VERSIONS, token=TOKENS)
def test_no_security_group_input_gives_a_server_error(app, sg_servers, data,
                                                      version, token):
    server_ids, group_id = sg_servers
    server = data.draw(st.one_of(st.sampled_from(server_ids), fuzz.IDS))
    if data.draw(st.booleans()):
        fuzz._request(app, 'POST', '/v2.1/servers/%s/action' % server, '',
                      version, False, token, data.draw(SG_ACTION_BODIES),
                      'application/json', None)
        return
    if data.draw(st.booleans()):
        fuzz._request(app, data.draw(fuzz.METHODS),
                      '/v2.1/servers/%s/os-security-groups' % server, '',
                      version, False, token, b'', None, None)
        return
    collection = data.draw(st.sampled_from(['security-groups',
                                            'security-group-rules']))
    path = '/networking/v2.0/' + collection
    if data.draw(st.booleans()):
        path += '/' + data.draw(st.one_of(st.just(group_id), fuzz.IDS))
    if collection == 'security-groups':
        body = {'security_group': data.draw(st.one_of(
            st.dictionaries(st.sampled_from(['name', 'description',
                                             'stateful', 'foo']),
                            st.one_of(SG_NAMES, fuzz.FIELD_VALUES),
                            max_size=3),
            fuzz.FIELD_VALUES))}
    else:
        body = {'security_group_rule': data.draw(st.one_of(
            st.dictionaries(st.sampled_from(RULE_KEYS), st.one_of(
                st.just(group_id), RULE_VALUES), max_size=6),
            fuzz.FIELD_VALUES))}
    fuzz._request(app, data.draw(st.sampled_from(
        ['GET', 'POST', 'DELETE', 'PUT'])), path, '', None, False, token,
        json.dumps(body).encode(), 'application/json', None)


# os-interface: every key a body takes at some microversion, plus
# unknown ones; real ports and networks half the time.
INTERFACE_KEYS = ['net_id', 'port_id', 'fixed_ips', 'tag', 'foo']
_NET = '3cb9bc59-5699-4588-a4b1-b87f96708bc6'
INTERFACE_VALUES = st.one_of(
    st.sampled_from([_NET, [{'ip_address': '10.0.0.99'}],
                     [{'ip_address': '10.0.0.1'}], [{'ip_address': 'x'}],
                     [], 'data', 'a/b']),
    fuzz.FIELD_VALUES)


@settings(fuzz.SETTINGS, max_examples=200)
@given(data=st.data(), method=st.sampled_from(['GET', 'POST', 'DELETE',
                                               'PUT']),
       version=st.sampled_from(['2.1', '2.48', '2.49', '2.69', '2.70',
                                'latest']), token=TOKENS)
def test_no_interface_input_gives_a_server_error(app, sg_servers, data,
                                                 method, version, token):
    server_ids, _group_id = sg_servers
    # The seeded servers' computes do not run: an attach (a call to the
    # compute) that passes every check would wait for its answer, so
    # POSTs go to the servers no attach is allowed on (cell0's, in
    # error; the build request) and to ids of no server.
    targets = server_ids if method != 'POST' else server_ids[2:4]
    server = data.draw(st.one_of(st.sampled_from(targets), fuzz.IDS))
    path = '/v2.1/servers/%s/os-interface' % server
    if data.draw(st.booleans()):
        path += '/' + data.draw(fuzz.IDS)
    body = data.draw(st.one_of(
        st.dictionaries(st.sampled_from(INTERFACE_KEYS), INTERFACE_VALUES,
                        max_size=3).map(
            lambda b: {'interfaceAttachment': b}),
        fuzz.FIELD_VALUES.map(lambda v: {'interfaceAttachment': v})))
    fuzz._request(app, method, path, '', version, False, token,
                  json.dumps(body).encode(), 'application/json', None)


EVENT_NAMES = st.one_of(st.sampled_from([
    'network-changed', 'network-vif-plugged', 'network-vif-unplugged',
    'network-vif-deleted', 'volume-extended', 'power-update',
    'accelerator-request-bound', 'volume-reimaged']), fuzz.FIELD_VALUES)


@settings(fuzz.SETTINGS, max_examples=150)
@given(data=st.data(), version=VERSIONS, token=TOKENS)
def test_no_external_event_gives_a_server_error(app, sg_servers, data,
                                                version, token):
    server_ids, _group_id = sg_servers
    server = st.one_of(st.sampled_from(server_ids), fuzz.IDS,
                       fuzz.FIELD_VALUES)
    event = st.dictionaries(
        st.sampled_from(['name', 'server_uuid', 'status', 'tag', 'foo']),
        st.one_of(EVENT_NAMES, server, st.sampled_from(
            ['completed', 'failed', 'in-progress', 'POWER_OFF',
             'POWER_ON'])), max_size=5)
    body = data.draw(st.one_of(
        st.lists(event, max_size=3).map(lambda e: {'events': e}),
        fuzz.FIELD_VALUES.map(lambda v: {'events': v})))
    fuzz._request(app, 'POST', '/v2.1/os-server-external-events', '',
                  version, False, token, json.dumps(body).encode(),
                  'application/json', None)
