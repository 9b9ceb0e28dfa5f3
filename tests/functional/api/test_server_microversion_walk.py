"""Every microversion from 2.1 to the maximum, for every resource nova_lite
serves: the fields each body carries, as administrator and as a project
member, compared with ONE table (FIELDS: which version adds or removes
what, and who sees it; doc/api_version_history.rst has the same in
prose), the status each route answers at each version, and which lists
refuse unknown query parameters. Servers are also updated, rebuilt and
created at every version (their request schemas change with it).

Cheap on purpose: one plane, one server (with a volume attached), one of
each other resource, and the API app called in-process (no HTTP).
"""
import json
import os

import pytest
import webtest

from nova_lite.api import app as api_app
from nova_lite.api.openstack import api_version as av
from tests.functional.conftest import wait_for

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
ADMIN = 'admin:admin'
MEMBER = 'bob:project-a'
MAX_MINOR = int(av.MAX.split('.')[1])
VERSIONS = ['2.%d' % minor for minor in range(1, MAX_MINOR + 1)]
ALL, ADMIN_ONLY = 'all', 'admin'

# THE table: (kind of body, field, first version, last version or None,
# who sees it: ALL, or ADMIN_ONLY with the default policies).
_SERVER = (
    ('id', '2.1'), ('name', '2.1'), ('status', '2.1'), ('tenant_id', '2.1'),
    ('user_id', '2.1'), ('metadata', '2.1'), ('hostId', '2.1'),
    ('image', '2.1'), ('flavor', '2.1'), ('created', '2.1'),
    ('updated', '2.1'), ('addresses', '2.1'), ('accessIPv4', '2.1'),
    ('accessIPv6', '2.1'), ('links', '2.1'), ('OS-DCF:diskConfig', '2.1'),
    ('progress', '2.1'), ('OS-EXT-AZ:availability_zone', '2.1'),
    ('config_drive', '2.1'), ('key_name', '2.1'),
    ('OS-SRV-USG:launched_at', '2.1'), ('OS-SRV-USG:terminated_at', '2.1'),
    ('OS-EXT-STS:task_state', '2.1'), ('OS-EXT-STS:vm_state', '2.1'),
    ('OS-EXT-STS:power_state', '2.1'),
    ('os-extended-volumes:volumes_attached', '2.1'), ('locked', '2.9'),
    ('description', '2.19'), ('tags', '2.26'),
    ('trusted_image_certificates', '2.63'), ('server_groups', '2.71'),
    ('locked_reason', '2.73'), ('pinned_availability_zone', '2.96'),
    ('scheduler_hints', '2.100'))
_SERVER_ADMIN = (
    ('OS-EXT-SRV-ATTR:host', '2.1'), ('OS-EXT-SRV-ATTR:instance_name', '2.1'),
    ('OS-EXT-SRV-ATTR:hypervisor_hostname', '2.1'),
    ('OS-EXT-SRV-ATTR:kernel_id', '2.3'),
    ('OS-EXT-SRV-ATTR:launch_index', '2.3'),
    ('OS-EXT-SRV-ATTR:ramdisk_id', '2.3'),
    ('OS-EXT-SRV-ATTR:reservation_id', '2.3'),
    ('OS-EXT-SRV-ATTR:root_device_name', '2.3'),
    ('OS-EXT-SRV-ATTR:user_data', '2.3'), ('host_status', '2.16'))
_FLAVOR = (
    ('id', '2.1'), ('name', '2.1'), ('ram', '2.1'), ('disk', '2.1'),
    ('swap', '2.1'), ('vcpus', '2.1'), ('links', '2.1'),
    ('OS-FLV-EXT-DATA:ephemeral', '2.1'),
    ('os-flavor-access:is_public', '2.1'),
    ('description', '2.55'), ('extra_specs', '2.61'))
_HYPERVISOR_CAPACITY = (
    'cpu_info', 'current_workload', 'disk_available_least', 'free_disk_gb',
    'free_ram_mb', 'local_gb', 'local_gb_used', 'memory_mb',
    'memory_mb_used', 'running_vms', 'vcpus', 'vcpus_used')
_QUOTAS = ('id', 'cores', 'instances', 'key_pairs', 'metadata_items', 'ram')
_NETWORK_QUOTAS = ('fixed_ips', 'floating_ips', 'security_group_rules',
                   'security_groups')
_PERSONALITY_QUOTAS = ('injected_file_content_bytes',
                       'injected_file_path_bytes', 'injected_files')
_ACTION = ('action', 'instance_uuid', 'message', 'project_id', 'request_id',
           'start_time', 'user_id')
_USAGE = ('start', 'stop', 'tenant_id', 'total_hours', 'total_local_gb_usage',
          'total_memory_mb_usage', 'total_vcpus_usage')
_AUDIT = ('hosts_not_run', 'log', 'num_hosts', 'num_hosts_done',
          'num_hosts_not_run', 'num_hosts_running', 'overall_status',
          'period_beginning', 'period_ending', 'total_errors',
          'total_instances')
_DIAGNOSTICS = ('config_drive', 'cpu_details', 'disk_details', 'driver',
                'hypervisor', 'hypervisor_os', 'memory_details', 'nic_details',
                'num_cpus', 'num_disks', 'num_nics', 'state', 'uptime')

FIELDS = (
    *(('server', f, first, None, ALL) for f, first in _SERVER),
    *(('server', f, first, None, ADMIN_ONLY) for f, first in _SERVER_ADMIN),
    ('server', 'OS-EXT-SRV-ATTR:hostname', '2.3', '2.89',
     ADMIN_ONLY),
    ('server', 'OS-EXT-SRV-ATTR:hostname', '2.90', None, ALL),
    *(('flavor', f, first, None, ALL) for f, first in _FLAVOR),
    ('flavor', 'rxtx_factor', '2.1', '2.101', ALL),
    ('flavor', 'OS-FLV-DISABLED:disabled', '2.1', '2.101', ALL),
    *(('flavor_summary', f, '2.1', None, ALL) for f in ('id', 'name',
                                                         'links')),
    ('flavor_summary', 'description', '2.55', None, ALL),
    *(('keypair_listed', f, '2.1', None, ALL)
      for f in ('name', 'public_key', 'fingerprint')),
    ('keypair_listed', 'type', '2.2', None, ALL),
    *(('keypair', f, '2.1', None, ALL)
      for f in ('name', 'public_key', 'fingerprint', 'user_id', 'id',
                'created_at', 'updated_at', 'deleted', 'deleted_at')),
    ('keypair', 'type', '2.2', None, ALL),
    *(('service', f, '2.1', None, ADMIN_ONLY)
      for f in ('binary', 'disabled_reason', 'host', 'id', 'state',
                'status', 'updated_at', 'zone')),
    ('service', 'forced_down', '2.11', None, ADMIN_ONLY),
    *(('hypervisor_summary', f, '2.1', None, ADMIN_ONLY)
      for f in ('hypervisor_hostname', 'id', 'state', 'status')),
    *(('hypervisor', f, '2.1', None, ADMIN_ONLY)
      for f in ('hypervisor_hostname', 'id', 'state', 'status', 'host_ip',
                'hypervisor_type', 'hypervisor_version', 'service')),
    *(('hypervisor', f, '2.1', '2.87', ADMIN_ONLY)
      for f in _HYPERVISOR_CAPACITY),
    ('hypervisor', 'uptime', '2.88', None, ADMIN_ONLY),
    *(('availability_zone', f, '2.1', None, ALL)
      for f in ('hosts', 'zoneName', 'zoneState')),
    *(('aggregate', f, '2.1', None, ADMIN_ONLY)
      for f in ('availability_zone', 'created_at', 'deleted', 'deleted_at',
                'hosts', 'id', 'metadata', 'name', 'updated_at')),
    ('aggregate', 'uuid', '2.41', None, ADMIN_ONLY),
    *(('server_group', f, '2.1', None, ALL) for f in ('id', 'members',
                                                       'name')),
    ('server_group', 'policies', '2.1', '2.63', ALL),
    ('server_group', 'metadata', '2.1', '2.63', ALL),
    ('server_group', 'project_id', '2.13', None, ALL),
    ('server_group', 'user_id', '2.13', None, ALL),
    ('server_group', 'policy', '2.64', None, ALL),
    ('server_group', 'rules', '2.64', None, ALL),
    ('limits', 'absolute', '2.1', None, ALL),
    ('limits', 'rate', '2.1', None, ALL),
    *(('quota_set', f, '2.1', None, ALL)
      for f in _QUOTAS + ('server_groups', 'server_group_members')),
    *(('quota_set', f, '2.1', '2.35', ALL) for f in _NETWORK_QUOTAS),
    *(('quota_set', f, '2.1', '2.56', ALL) for f in _PERSONALITY_QUOTAS),
    *(('quota_class_set', f, '2.1', None, ADMIN_ONLY) for f in _QUOTAS),
    *(('quota_class_set', f, '2.1', '2.49', ADMIN_ONLY)
      for f in _NETWORK_QUOTAS),
    *(('quota_class_set', f, '2.50', None, ADMIN_ONLY)
      for f in ('server_groups', 'server_group_members')),
    *(('quota_class_set', f, '2.1', '2.56', ADMIN_ONLY)
      for f in _PERSONALITY_QUOTAS),
    *(('tenant_usage', f, '2.1', None, ALL)
      for f in _USAGE + ('server_usages',)),
    *(('tenant_usage_summary', f, '2.1', None, ADMIN_ONLY) for f in _USAGE),
    *(('usage_audit', f, '2.1', None, ADMIN_ONLY) for f in _AUDIT),
    *(('instance_action', f, '2.1', None, ALL) for f in _ACTION),
    ('instance_action', 'updated_at', '2.58', None, ALL),
    *(('instance_action_shown', f, '2.1', None, ALL) for f in _ACTION),
    ('instance_action_shown', 'events', '2.1', '2.50', ADMIN_ONLY),
    ('instance_action_shown', 'events', '2.51', None, ALL),
    ('instance_action_shown', 'updated_at', '2.58', None, ALL),
    *(('extension', f, '2.1', None, ALL)
      for f in ('alias', 'description', 'links', 'name', 'namespace',
                'updated')),
    *(('volume_attachment', f, '2.1', None, ALL)
      for f in ('volumeId', 'serverId', 'device')),
    ('volume_attachment', 'id', '2.1', '2.88', ALL),
    ('volume_attachment', 'tag', '2.70', None, ALL),
    ('volume_attachment', 'delete_on_termination', '2.79', None, ALL),
    ('volume_attachment', 'attachment_id', '2.89', None, ALL),
    ('volume_attachment', 'bdm_uuid', '2.89', None, ALL),
    *(('diagnostics', f, '2.48', None, ADMIN_ONLY) for f in _DIAGNOSTICS),
    ('topology', 'nodes', '2.78', None, ALL),
    ('topology', 'pagesize_kb', '2.78', None, ALL),
)


def _v(version):
    return av.APIVersion(version)


def expected(kind, version, admin):
    """The fields of a body of kind at version, for an administrator or
    a member, from FIELDS."""
    v = _v(version)
    return {field for k, field, first, last, who in FIELDS
            if k == kind and v >= _v(first)
            and (last is None or v <= _v(last))
            and (admin or who == ALL)}


def expected_shown(version, admin):
    return expected('server', version, admin)


# What PUT /servers/{id} leaves out below 2.75 (from 2.75 it answers
# with every field GET shows).
NOT_IN_UPDATE_BEFORE_275 = {
    'OS-EXT-AZ:availability_zone', 'config_drive', 'key_name',
    'OS-SRV-USG:launched_at', 'OS-SRV-USG:terminated_at',
    'OS-EXT-STS:task_state', 'OS-EXT-STS:vm_state',
    'OS-EXT-STS:power_state', 'os-extended-volumes:volumes_attached',
    'OS-EXT-SRV-ATTR:host', 'OS-EXT-SRV-ATTR:instance_name',
    'OS-EXT-SRV-ATTR:hypervisor_hostname', 'OS-EXT-SRV-ATTR:hostname',
    'OS-EXT-SRV-ATTR:kernel_id', 'OS-EXT-SRV-ATTR:launch_index',
    'OS-EXT-SRV-ATTR:ramdisk_id', 'OS-EXT-SRV-ATTR:reservation_id',
    'OS-EXT-SRV-ATTR:root_device_name', 'OS-EXT-SRV-ATTR:user_data',
    'host_status'}
FLAVOR_LINK = {'id', 'links'}
FLAVOR_COPY = {'vcpus', 'ram', 'disk', 'ephemeral', 'swap',
               'original_name', 'extra_specs'}
IMAGE_LINK = {'id', 'links'}
IMAGE_WITH_PROPERTIES = IMAGE_LINK | {'properties'}


def expected_updated(version, admin):
    shown = expected_shown(version, admin)
    if _v(version) >= _v('2.75'):
        return shown
    return shown - NOT_IN_UPDATE_BEFORE_275


class Response(object):
    """A webtest answer with the requests-style names the tests use."""

    def __init__(self, resp):
        self.status_code = resp.status_int
        self.text = resp.text
        self._resp = resp

    def json(self):
        return self._resp.json


class Client(object):
    """The API app of the running plane, called in-process."""

    def __init__(self):
        self.app = webtest.TestApp(api_app.load_app())

    def __call__(self, method, path, body=None, version='2.1',
                 token=MEMBER):
        return Response(self.app.request(
            '/v2.1' + path, method=method, expect_errors=True,
            body=b'' if body is None else json.dumps(body).encode(),
            headers={'X-Auth-Token': token,
                     'Content-Type': 'application/json',
                     'OpenStack-API-Version': 'compute %s' % version}))


class Volumes(object):
    """The embedded Block Storage API, in-process."""

    def __init__(self, app):
        self.app = app

    def create(self):
        resp = self.app.post_json('/volume/v3/project-a/volumes', {
            'volume': {'size': 1, 'name': 'walk'}},
            headers={'X-Auth-Token': MEMBER})
        return resp.json['volume']['id']

    def status(self, volume_id):
        return self.app.get('/volume/v3/project-a/volumes/%s' % volume_id,
                            headers={'X-Auth-Token': MEMBER}).json[
            'volume']['status']


@pytest.fixture(scope='module')
def walk(tmp_path_factory):
    """(client, {name: id}): a plane with one server of project-a
    (ACTIVE, a volume attached, in a server group), a key pair and a
    server group for the member and the administrator, an aggregate."""
    from tests.functional.conftest import start_plane
    from tests.functional.conftest import stop_plane
    plane = start_plane(tmp_path_factory.mktemp('walk') / 'state')
    try:
        api = Client()
        assert api('POST', '/flavors', {'flavor': {
            'name': 'small', 'id': 'small', 'ram': 512, 'vcpus': 1,
            'disk': 1}}, token=ADMIN).status_code == 200
        for token in (MEMBER, ADMIN):
            assert api('POST', '/os-keypairs', {'keypair': {'name': 'kp'}},
                       token=token).status_code == 200
            assert api('POST', '/os-server-groups', {'server_group': {
                'name': 'g', 'policies': ['anti-affinity']}},
                token=token).status_code == 200
        assert api('POST', '/os-aggregates', {'aggregate': {
            'name': 'agg', 'availability_zone': 'az1'}},
            token=ADMIN).status_code == 200
        created = api('POST', '/servers', {'server': {
            'name': 'walker', 'flavorRef': 'small', 'imageRef': IMAGE,
            'networks': 'none'}}, version='2.37')
        assert created.status_code == 202, created.text
        uuid = created.json()['server']['id']
        wait_for(lambda: api('GET', '/servers/%s' % uuid).json()['server'][
            'status'] == 'ACTIVE', timeout=30, message='ACTIVE')
        # Zone az1 holds one host, not the server's (its zone stays).
        host = api('GET', '/servers/%s' % uuid, token=ADMIN).json()[
            'server']['OS-EXT-SRV-ATTR:host']
        other = next(s['host'] for s in api(
            'GET', '/os-services?binary=nova-compute', token=ADMIN).json()[
            'services'] if s['host'] != host)
        aggregate = api('GET', '/os-aggregates', token=ADMIN).json()[
            'aggregates'][0]['id']
        assert api('POST', '/os-aggregates/%s/action' % aggregate, {
            'add_host': {'host': other}}, token=ADMIN).status_code == 200
        volumes = Volumes(api.app)
        volume = volumes.create()
        wait_for(lambda: volumes.status(volume) == 'available', timeout=30,
                 message='volume available')
        attached = api('POST', '/servers/%s/os-volume_attachments' % uuid,
                       {'volumeAttachment': {'volumeId': volume}})
        assert attached.status_code == 200, attached.text
        wait_for(lambda: volumes.status(volume) == 'in-use', timeout=30,
                 message='volume in-use')
        hypervisor = api('GET', '/os-hypervisors', version='2.53',
                         token=ADMIN).json()['hypervisors'][0]['id']
        request_id = api('GET', '/servers/%s/os-instance-actions' % uuid
                         ).json()['instanceActions'][0]['request_id']
        yield api, {'server': uuid, 'hypervisor': hypervisor,
                    'request': request_id, 'volume': volume}
    finally:
        stop_plane(plane)


# Every GET nova_lite serves, walked: (path, key of the body, kind of
# the body or of its items, first version, last version, who may read
# it, first version that refuses an unknown query parameter, None where
# Nova 34 never does (measured against it side by side)).
STRICT = av.STRICT_QUERY_EVERYWHERE
ROUTES = (
    ('/servers/{server}', 'server', 'server', '2.1', None, ALL, STRICT),
    ('/servers/detail', 'servers', 'server', '2.1', None, ALL, '2.75'),
    ('/servers', 'servers', None, '2.1', None, ALL, '2.75'),
    ('/flavors/small', 'flavor', 'flavor', '2.1', None, ALL, STRICT),
    ('/flavors/detail', 'flavors', 'flavor', '2.1', None, ALL, '2.75'),
    ('/flavors', 'flavors', 'flavor_summary', '2.1', None, ALL, '2.75'),
    ('/flavors/small/os-extra_specs', 'extra_specs', None, '2.1', None,
     ALL, STRICT),
    ('/os-keypairs', 'keypairs', 'keypair_listed', '2.1', None, ALL,
     '2.75'),
    ('/os-keypairs/kp', 'keypair', 'keypair', '2.1', None, ALL, '2.75'),
    ('/os-services', 'services', 'service', '2.1', None, ADMIN_ONLY,
     '2.75'),
    ('/os-hypervisors', 'hypervisors', 'hypervisor_summary', '2.1', None,
     ADMIN_ONLY, '2.53'),
    ('/os-hypervisors/detail', 'hypervisors', 'hypervisor', '2.1', None,
     ADMIN_ONLY, '2.53'),
    ('/os-hypervisors/{hypervisor}', 'hypervisor', 'hypervisor', '2.53',
     None, ADMIN_ONLY, '2.53'),
    ('/os-availability-zone', 'availabilityZoneInfo', 'availability_zone',
     '2.1', None, ALL, STRICT),
    ('/os-availability-zone/detail', 'availabilityZoneInfo',
     'availability_zone', '2.1', None, ADMIN_ONLY, STRICT),
    ('/os-aggregates', 'aggregates', 'aggregate', '2.1', None, ADMIN_ONLY,
     STRICT),
    ('/os-server-groups', 'server_groups', 'server_group', '2.1', None,
     ALL, '2.75'),
    ('/limits', 'limits', 'limits', '2.1', None, ALL, '2.75'),
    ('/os-quota-sets/project-a', 'quota_set', 'quota_set', '2.1', None,
     ALL, '2.75'),
    ('/os-quota-class-sets/default', 'quota_class_set', 'quota_class_set',
     '2.1', None, ADMIN_ONLY, STRICT),
    ('/os-simple-tenant-usage/project-a', 'tenant_usage', 'tenant_usage',
     '2.1', None, ALL, '2.75'),
    ('/os-simple-tenant-usage', 'tenant_usages', 'tenant_usage_summary',
     '2.1', None, ADMIN_ONLY, '2.75'),
    ('/os-instance_usage_audit_log', 'instance_usage_audit_logs',
     'usage_audit', '2.1', None, ADMIN_ONLY, STRICT),
    ('/os-instance_usage_audit_log/2026-11-01%2000:00:00',
     'instance_usage_audit_log', 'usage_audit', '2.1', None, ADMIN_ONLY,
     None),
    ('/os-migrations', 'migrations', None, '2.1', None, ADMIN_ONLY, '2.59'),
    ('/extensions', 'extensions', 'extension', '2.1', None, ALL, STRICT),
    ('/servers/{server}/os-instance-actions', 'instanceActions',
     'instance_action', '2.1', None, ALL, '2.58'),
    ('/servers/{server}/os-instance-actions/{request}', 'instanceAction',
     'instance_action_shown', '2.1', None, ALL, STRICT),
    ('/servers/{server}/os-volume_attachments', 'volumeAttachments',
     'volume_attachment', '2.1', None, ALL, '2.75'),
    ('/servers/{server}/os-volume_attachments/{volume}', 'volumeAttachment',
     'volume_attachment', '2.1', None, ALL, None),
    ('/servers/{server}/migrations', 'migrations', None, '2.23', None,
     ADMIN_ONLY, STRICT),
    ('/servers/{server}/ips', 'addresses', None, '2.1', None, ALL, STRICT),
    ('/servers/{server}/metadata', 'metadata', None, '2.1', None, ALL,
     STRICT),
    # Never strict in Nova 34 (its schema allows any parameter).
    ('/servers/{server}/tags', 'tags', None, '2.26', None, ALL, None),
    ('/servers/{server}/os-security-groups', 'security_groups', None,
     '2.1', None, ALL, STRICT),
    ('/servers/{server}/os-interface', 'interfaceAttachments', None, '2.1',
     None, ALL, STRICT),
    ('/servers/{server}/os-server-password', 'password', None, '2.1', None,
     ALL, STRICT),
    ('/servers/{server}/diagnostics', None, 'diagnostics', '2.1', None,
     ADMIN_ONLY, STRICT),
    ('/servers/{server}/topology', None, 'topology', '2.78', None, ALL,
     STRICT),
    ('/os-volumes_boot/{server}', 'server', 'server', '2.1', '2.102', ALL,
     STRICT),
    ('/os-volumes_boot/detail', 'servers', 'server', '2.1', '2.102', ALL,
     '2.75'),
)


# Routes served at every version whose path only resolves from their
# first version (a hypervisor's uuid from 2.53): 404 before it, once
# policy (checked first) lets the caller in.
RESOLVED_FROM_FIRST = {'/os-hypervisors/{hypervisor}'}
# Server lists: an administrator lists every project's.
SERVER_LISTS = {'/servers/detail', '/servers', '/os-volumes_boot/detail'}


def _path(template, ids, admin):
    path = template.format(**ids)
    if admin and template in SERVER_LISTS:
        path += '?all_tenants=1'
    return path


def _with_query(path, query):
    return path + ('&' if '?' in path else '?') + query


def _fields(body, key, many):
    """The field set of a body (the union over a list's items)."""
    found = body if key is None else body[key]
    if not many:
        return set(found)
    assert found, 'an empty list proves nothing'
    return set().union(*(set(item.get('keypair', item)) for item in found))


def _status(template, version, first, last, who, admin):
    allowed = admin or who == ALL
    if not _v(version).matches(first, last):
        return 404 if allowed or template not in RESOLVED_FROM_FIRST else 403
    return 200 if allowed else 403


@pytest.mark.parametrize('token', [ADMIN, MEMBER], ids=['admin', 'member'])
def test_every_route_answers_its_fields_at_every_version(walk, token):
    """ONE walk: every GET of ROUTES at every version, its status and
    its body's fields as FIELDS has them."""
    api, ids = walk
    admin = token == ADMIN
    for template, key, kind, first, last, who, _strict in ROUTES:
        path = _path(template, ids, admin)
        for version in VERSIONS:
            resp = api('GET', path, version=version, token=token)
            want = _status(template, version, first, last, who, admin)
            assert resp.status_code == want, (path, version, resp.text)
            if want != 200 or kind is None or (
                    kind == 'diagnostics'
                    and _v(version) < _v(av.DIAGNOSTICS_STANDARD)):
                # Diagnostics before 2.48 are the driver's own keys.
                continue
            many = isinstance((resp.json() if key is None
                               else resp.json()[key]), list)
            fields = _fields(resp.json(), key, many)
            wanted = expected(kind, version, admin)
            if kind == 'server' and many:
                # server_groups (2.71) is in show, update and rebuild only.
                wanted -= {'server_groups'}
            assert fields == wanted, (path, version, fields ^ wanted)


def test_lists_refuse_unknown_query_parameters_from_their_version(walk):
    """Below a list's strict version an unknown parameter is ignored;
    from it (2.58, 2.59, 2.53, 2.75, or 2.102 for the rest) it is a 400
    naming it. Checked where it can change: 2.1, just before and at the
    list's strict version, 2.101, 2.102 and the maximum."""
    api, ids = walk
    for template, _key, _kind, first, last, who, strict in ROUTES:
        if strict is None:
            continue
        path = _with_query(_path(template, ids, True), 'walk_unknown=1')
        for version in sorted({'2.1', av.before(strict), strict, '2.101',
                               '2.102', av.MAX}, key=_v):
            if not _v(version).matches(first, last):
                continue
            resp = api('GET', path, version=version, token=ADMIN)
            refused = _v(version) >= _v(strict)
            assert resp.status_code == (400 if refused else 200), (
                path, version, resp.text)
            if refused:
                assert 'walk_unknown' in resp.text, (path, version)


@pytest.mark.parametrize('token', [ADMIN, MEMBER], ids=['admin', 'member'])
def test_update_fields_at_every_version(walk, token):
    """PUT /servers/{id} answers what show does (the walk above) from
    2.75, without the extension fields before; the flavor is a link
    before 2.47 and the server's copy from it."""
    api, ids = walk
    uuid = ids['server']
    admin = token == ADMIN
    for version in VERSIONS:
        updated = api('PUT', '/servers/%s' % uuid,
                      {'server': {'name': 'walker-%s' % version}},
                      version=version, token=token)
        assert updated.status_code == 200, (version, updated.text)
        body = updated.json()['server']
        want_updated = expected_updated(version, admin)
        assert set(body) == want_updated, (
            version, set(body) ^ want_updated)
        # A project reader may see the copy's extra specs (Nova's default
        # for os_compute_api:servers:show:flavor-extra-specs).
        flavor = FLAVOR_COPY if _v(version) >= _v('2.47') else FLAVOR_LINK
        assert set(body['flavor']) == flavor, (version, body['flavor'])
        image = IMAGE_WITH_PROPERTIES if _v(version) >= _v('2.98') \
            else IMAGE_LINK
        assert set(body['image']) == image, (version, body['image'])


def test_update_body_fields_by_version(walk):
    """Each field PUT /servers/{id} takes, from its version on (400
    naming it before); the pinned zone (2.104) and hostname (2.90, FQDN
    from 2.94) show in the bodies that carry them."""
    api, ids = walk
    uuid = ids['server']
    takes = (({'description': 'd'}, '2.19'), ({'hostname': 'walk-1'}, '2.90'),
             ({'hostname': 'walk.example.org'}, '2.94'),
             ({'pinned_availability_zone': 'nova'}, '2.104'))
    for version in VERSIONS:
        for server, first in takes:
            resp = api('PUT', '/servers/%s' % uuid, {'server': server},
                       version=version)
            accepted = _v(version) >= _v(first)
            assert resp.status_code == (200 if accepted else 400), (
                version, server, resp.text)
            if not accepted:
                assert list(server)[0] in resp.text, (version, server)
    shown = api('GET', '/servers/%s' % uuid, version=av.MAX).json()['server']
    assert shown['OS-EXT-SRV-ATTR:hostname'] == 'walk.example.org'
    assert shown['pinned_availability_zone'] == 'nova'

    def pin(zone):
        return api('PUT', '/servers/%s' % uuid, {'server': {
            'pinned_availability_zone': zone}}, version='2.104')
    # As Nova 34: pinned elsewhere only once unpinned, and only to the
    # zone the server is in (az1 holds the other host).
    refused = pin('az1')
    assert refused.status_code == 409, refused.text
    assert 'Unpin first' in refused.text
    assert pin(None).json()['server']['pinned_availability_zone'] is None
    for zone in ('az1', 'nowhere'):
        refused = pin(zone)
        assert refused.status_code == 409, refused.text
        assert "current availability zone 'nova'" in refused.text
    assert pin('').status_code == 400


def test_list_query_strictness_at_every_version(walk):
    api, ids = walk
    uuid = ids['server']
    for version in VERSIONS:
        tags = api('GET', '/servers?tags=web', version=version)
        assert tags.status_code == 200, version
        # Before 2.26 the tag filters are unknown, so ignored: the server
        # (which has no tag) is still listed; from 2.26 it is filtered.
        ids_listed = [s['id'] for s in tags.json()['servers']]
        assert (uuid in ids_listed) == (_v(version) < _v('2.26')), version
        before = api('GET', '/servers?changes-before=2000-01-01T00:00:00Z',
                     version=version)
        if _v(version) >= _v('2.66'):
            assert before.status_code == 200
            assert before.json()['servers'] == [], version
        else:
            assert before.status_code in (200, 400), version
        locked = api('GET', '/servers?locked=true', version=version)
        if _v(version) >= _v('2.73'):
            assert locked.status_code == 200, version
            assert locked.json()['servers'] == [], version


def test_create_answers_the_same_fields_at_the_boundaries(walk):
    api, _ = walk
    for version in ('2.1', '2.36', '2.37', '2.51', '2.52', '2.90', av.MAX):
        body = {'server': {'name': 'made-%s' % version,
                           'flavorRef': 'small', 'imageRef': IMAGE}}
        if _v(version) >= _v('2.37'):
            body['server']['networks'] = 'none'
        created = api('POST', '/servers', body, version=version)
        assert created.status_code == 202, (version, created.text)
        server = created.json()['server']
        assert set(server) >= {'id', 'links', 'OS-DCF:diskConfig',
                               'adminPass'}, version
        assert api('DELETE', '/servers/%s' % server['id'],
                   version=version).status_code == 204
    missing = api('POST', '/servers', {'server': {
        'name': 'no-networks', 'flavorRef': 'small', 'imageRef': IMAGE}},
        version='2.37')
    assert missing.status_code == 400
    assert 'networks' in missing.json()['badRequest']['message']


def test_create_takes_a_hostname_from_2_90(walk):
    api, _ = walk
    body = {'server': {'name': 'named', 'flavorRef': 'small',
                       'imageRef': IMAGE, 'networks': 'none',
                       'hostname': 'chosen'}}
    refused = api('POST', '/servers', body, version='2.89')
    assert refused.status_code == 400
    assert 'hostname' in refused.text
    body['server']['hostname'] = 'host.example.org'
    assert api('POST', '/servers', body, version='2.93').status_code == 400
    body['server']['max_count'] = 2
    assert api('POST', '/servers', body, version='2.94').status_code == 400
    del body['server']['max_count']
    created = api('POST', '/servers', body, version='2.94')
    assert created.status_code == 202, created.text
    uuid = created.json()['server']['id']
    shown = api('GET', '/servers/%s' % uuid, version='2.96').json()['server']
    assert shown['OS-EXT-SRV-ATTR:hostname'] == 'host.example.org'
    assert shown['pinned_availability_zone'] is None
    assert api('DELETE', '/servers/%s' % uuid).status_code == 204


def expected_rebuilt(version, admin):
    """What rebuild answers: what update answers but the extended
    OS-EXT-SRV-ATTR:user_data, the new adminPass, key_name from 2.54 and
    user_data from 2.57."""
    want = (expected_updated(version, admin) | {'adminPass'}) - {
        'OS-EXT-SRV-ATTR:user_data'}
    if _v(version) >= _v('2.54'):
        want.add('key_name')
    if _v(version) >= _v('2.57'):
        want.add('user_data')
    return want


@pytest.mark.parametrize('token', [ADMIN, MEMBER], ids=['admin', 'member'])
def test_rebuild_fields_at_every_version(walk, token):
    api, ids = walk
    uuid = ids['server']
    admin = token == ADMIN
    for version in VERSIONS:
        rebuild = {'imageRef': IMAGE}
        if _v(version) >= _v('2.90'):
            rebuild['hostname'] = 'rebuilt-%d' % _v(version).minor
        rebuilt = api('POST', '/servers/%s/action' % uuid,
                      {'rebuild': rebuild}, version=version, token=token)
        assert rebuilt.status_code == 202, (version, rebuilt.text)
        body = rebuilt.json()['server']
        want = expected_rebuilt(version, admin)
        assert set(body) == want, (version, set(body) ^ want)
        flavor = FLAVOR_COPY if _v(version) >= _v('2.47') else FLAVOR_LINK
        assert set(body['flavor']) == flavor, (version, body['flavor'])
        if 'hostname' in rebuild:
            assert body['OS-EXT-SRV-ATTR:hostname'] == rebuild['hostname']
        wait_for(lambda: api('GET', '/servers/%s' % uuid).json()['server'][
            'status'] == 'ACTIVE', timeout=30, message='rebuilt')
    refused = api('POST', '/servers/%s/action' % uuid, {'rebuild': {
        'imageRef': IMAGE, 'hostname': 'x'}}, version='2.89')
    assert refused.status_code == 400


def test_volume_attach_answers_202_from_2_101(walk):
    api, ids = walk
    path = '/servers/%s/os-volume_attachments' % ids['server']
    for version, status in (('2.100', 200), ('2.101', 202)):
        volumes = Volumes(api.app)
        volume = volumes.create()
        wait_for(lambda: volumes.status(volume) == 'available', timeout=30,
                 message='volume available')
        attached = api('POST', path, {'volumeAttachment': {
            'volumeId': volume}}, version=version)
        assert attached.status_code == status, (version, attached.text)
        # The attach answer keeps id (only list and show drop it).
        assert 'id' in attached.json()['volumeAttachment']
        wait_for(lambda: volumes.status(volume) == 'in-use', timeout=30,
                 message='volume in-use')


def test_os_volumes_boot_is_the_servers_alias_until_2_103(walk):
    """/os-volumes_boot creates, acts on and deletes servers as /servers
    does up to 2.102; from 2.103 every path of it is a 404."""
    api, _ = walk
    body = {'server': {'name': 'alias', 'flavorRef': 'small',
                       'imageRef': IMAGE, 'networks': 'none'}}
    for version in ('2.103', av.MAX):
        assert api('POST', '/os-volumes_boot', body,
                   version=version).status_code == 404
    created = api('POST', '/os-volumes_boot', body, version='2.102')
    assert created.status_code == 202, created.text
    uuid = created.json()['server']['id']
    wait_for(lambda: api('GET', '/servers/%s' % uuid).json()['server'][
        'status'] == 'ACTIVE', timeout=30, message='ACTIVE')
    path = '/os-volumes_boot/%s' % uuid
    assert api('POST', path + '/action', {'os-stop': None},
               version='2.103').status_code == 404
    assert api('POST', path + '/action', {'os-stop': None},
               version='2.102').status_code == 202
    wait_for(lambda: api('GET', '/servers/%s' % uuid).json()['server'][
        'status'] == 'SHUTOFF', timeout=30, message='SHUTOFF')
    assert api('PUT', path, {'server': {'name': 'renamed'}},
               version='2.102').json()['server']['name'] == 'renamed'
    assert api('DELETE', path, version='2.103').status_code == 404
    assert api('DELETE', path, version='2.102').status_code == 204


# --- every route of routes.py, reads and writes, at every version -------
#
# walk_everything() sends, at every version from 2.1 to the maximum and
# for one caller, a request to every route (and every action) of the
# route table: reads and writes of flavors (and their access and extra
# specs), key pairs, server groups, aggregates, quotas, services,
# external events, server metadata, tags, password, volume attachments,
# interfaces, migrations, shares, consoles, the legacy proxies and the
# routes gone with nova-network. Each answer's status is checked (404
# outside the route's versions, 403 where the default policies refuse
# the caller) and, where FIELDS has the body's kind, its field set.
# Actions that run on a compute (reboot, resize, shelve, ...) are sent to
# the server in a state they refuse (409: the route, its version and its
# policy answered, no compute work); their accepted bodies are walked at
# the versions that change them by the tests above and the servers'
# own tests.

ROUTE_PARAMS = {'server_id', 'flavor_id', 'keypair_name', 'aggregate_id',
                'service_id', 'project_id', 'class_name', 'server_group_id',
                'hypervisor_id', 'hypervisor_hostname_pattern',
                'migration_id', 'request_id', 'volume_id', 'port_id',
                'share_id', 'key', 'tag', 'network_label', 'alias',
                'tenant_id', 'before_timestamp', 'console_token',
                'host_name', 'network_id', 'security_group_id', 'rule_id',
                'image_id', 'address', 'host', 'domain', 'name', 'cell_id',
                'agent_id', 'certificate_id'}
PUBLIC_KEY = ('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJ0w2Ymc6GWxRpyrMM2Ra'
              'YuDcbSzTP7L1bYE2pN9ZD3d walk')


def route_keys():
    """(method, path, action or None) of every route and action of the
    route table; /os-volumes_boot's action route counts once (its
    actions are /servers/{server_id}/action's)."""
    from nova_lite.api.openstack.compute import routes
    keys = set()
    for r in routes.ROUTES:
        if r.actions and not r.path.startswith('/os-volumes_boot'):
            keys |= {(r.method, r.path, a.name) for a in r.actions}
            if r.method == 'PUT':
                keys.add((r.method, r.path, None))
        else:
            keys.add((r.method, r.path, None))
    return keys


def route_of(method, path):
    """The route table's path that serves method on a concrete path (a
    literal segment wins over a {name} one), or None."""
    from nova_lite.api.openstack.compute import routes
    segments = path.split('?')[0].rstrip('/').split('/')
    best = None
    for r in routes.ROUTES:
        theirs = r.path.rstrip('/').split('/')
        if r.method != method or len(theirs) != len(segments):
            continue
        score = []
        for mine, pattern in zip(segments, theirs):
            if pattern.startswith('{'):
                score.append(0)
            elif mine == pattern:
                score.append(1)
            else:
                break
        else:
            if best is None or score > best[0]:
                best = (score, r.path)
    return best and best[1]


class Walker(object):
    """Sends one request, checks its status (and fields), records the
    route (and action) it walked."""

    def __init__(self, api, version, token, walked, failures):
        self.failures = failures
        self.api = api
        self.version = version
        self.token = token
        self.admin = token == ADMIN
        self.walked = walked

    def __call__(self, method, path, body=None, ok=200, who=ALL,
                 first='2.1', last=None, kind=None, key=None, action=None,
                 minus=(), refused=None, policy_first=False):
        """Expect ok (or refused: a 4xx for the state the target is in)
        inside [first, last] for a caller who may, 403 for one who may
        not, 404 outside (403 even there with policy_first: the handler
        checks its policy before the version); return the answer when
        it is ok."""
        v = _v(self.version)
        template = route_of(method, path)
        assert template, (method, path)
        if action is None and template.endswith('/action') and body \
                and not template.startswith('/os-volumes_boot'):
            action = list(body)[0]
        self.walked.add((method, template, action))
        resp = self.api(method, path, body, version=self.version,
                        token=self.token)
        allowed = self.admin or who == ALL
        if not v.matches(first, last) and (allowed or not policy_first):
            want = 404
        elif not allowed:
            want = 403
        else:
            want = refused or ok
        if resp.status_code != want:
            self.failures.append((method, template, action, self.version,
                                  want, resp.status_code, resp.text[:200]))
            return None
        if kind and want == ok and ok < 300:
            found = resp.json() if key is None else resp.json()[key]
            fields = set(found) - set(minus)
            wanted = expected(kind, self.version, self.admin) - set(minus)
            if fields != wanted:
                self.failures.append((method, template, action,
                                      self.version, fields ^ wanted))
        return resp if want == ok else None


def walk_flavors(w, ids):
    name = 'wf-%s' % w.version
    flavor = {'name': name, 'id': name, 'ram': 64, 'vcpus': 1, 'disk': 0,
              'os-flavor-access:is_public': False}
    if _v(w.version) >= _v('2.55'):
        flavor['description'] = 'walked'
    path = '/flavors/' + (name if w.admin else 'priv')
    w('POST', '/flavors', {'flavor': flavor}, who=ADMIN_ONLY,
      kind='flavor', key='flavor', minus={'extra_specs'})
    w('PUT', path, {'flavor': {'description': 'again'}}, who=ADMIN_ONLY,
      first='2.55', kind='flavor', key='flavor', minus={'extra_specs'})
    w('POST', path + '/action', {'addTenantAccess': {'tenant': 'walk'}},
      who=ADMIN_ONLY)
    # (Readers may list it here: nova_lite's documented default, where
    # Nova 34's is administrators only; see nova_lite/policies/flavors.)
    w('GET', path + '/os-flavor-access')
    w('POST', path + '/action', {'removeTenantAccess': {'tenant': 'walk'}},
      who=ADMIN_ONLY)
    w('POST', path + '/os-extra_specs', {
        'extra_specs': {'hw:numa_nodes': '1'}}, who=ADMIN_ONLY)
    w('GET', '/flavors/priv/os-extra_specs/hw:numa_nodes')
    w('PUT', path + '/os-extra_specs/hw:numa_nodes',
      {'hw:numa_nodes': '2'}, who=ADMIN_ONLY)
    w('DELETE', path + '/os-extra_specs/hw:numa_nodes', who=ADMIN_ONLY,
      ok=200)
    w('DELETE', path, who=ADMIN_ONLY, ok=202)


def walk_keypairs(w, ids):
    name = 'wk-%d' % _v(w.version).minor
    w('POST', '/os-keypairs', {'keypair': {
        'name': name, 'public_key': PUBLIC_KEY}},
      ok=201 if _v(w.version) >= _v('2.2') else 200)
    w('DELETE', '/os-keypairs/' + name,
      ok=204 if _v(w.version) >= _v('2.2') else 202)


def walk_server_groups(w, ids):
    group = {'name': 'wg'}
    if _v(w.version) >= _v('2.64'):
        group['policy'] = 'affinity'
    else:
        group['policies'] = ['affinity']
    made = w('POST', '/os-server-groups', {'server_group': group},
             kind='server_group', key='server_group')
    group = made.json()['server_group']['id'] if made else ids['missing']
    w('GET', '/os-server-groups/%s' % group, kind='server_group',
      key='server_group', refused=None if made else 404)
    w('DELETE', '/os-server-groups/%s' % group, ok=204,
      refused=None if made else 404)


def walk_aggregates(w, ids):
    made = w('POST', '/os-aggregates', {'aggregate': {
        'name': 'wa-%s' % w.version}}, who=ADMIN_ONLY, kind='aggregate',
        key='aggregate', minus={'hosts', 'metadata'})
    agg = made.json()['aggregate']['id'] if made else ids['aggregate']
    path = '/os-aggregates/%s' % agg
    w('GET', path, who=ADMIN_ONLY, kind='aggregate', key='aggregate')
    w('PUT', path, {'aggregate': {'name': 'wa2-%s' % w.version}},
      who=ADMIN_ONLY, kind='aggregate', key='aggregate')
    w('POST', path + '/action', {'add_host': {'host': ids['host']}},
      who=ADMIN_ONLY, kind='aggregate', key='aggregate')
    w('POST', path + '/action', {'set_metadata': {'metadata': {'k': 'v'}}},
      who=ADMIN_ONLY, kind='aggregate', key='aggregate')
    w('POST', path + '/images', {'cache': [{'id': IMAGE}]},
      who=ADMIN_ONLY, first='2.81', ok=202)
    w('POST', path + '/action', {'remove_host': {'host': ids['host']}},
      who=ADMIN_ONLY, kind='aggregate', key='aggregate')
    w('DELETE', path, who=ADMIN_ONLY)


def walk_quotas(w, ids):
    w('PUT', '/os-quota-sets/walk', {'quota_set': {'cores': 30}},
      who=ADMIN_ONLY, kind='quota_set', key='quota_set', minus={'id'})
    w('GET', '/os-quota-sets/project-a/defaults', kind='quota_set',
      key='quota_set')
    w('GET', '/os-quota-sets/project-a/detail', key='quota_set')
    w('DELETE', '/os-quota-sets/walk', who=ADMIN_ONLY, ok=202)
    w('PUT', '/os-quota-class-sets/walk', {'quota_class_set': {
        'cores': 30}}, who=ADMIN_ONLY, kind='quota_class_set',
      key='quota_class_set', minus={'id'})


def walk_services(w, ids):
    v = _v(w.version)
    if v >= _v('2.53'):
        path = '/os-services/%s' % ids['service_uuid']
        w('PUT', path, {'status': 'enabled'}, who=ADMIN_ONLY)
        # A service that is not there: 404 (no compute deleted).
        w('DELETE', '/os-services/%s' % ids['missing'], who=ADMIN_ONLY,
          refused=404)
        return
    body = {'host': ids['host'], 'binary': 'nova-compute'}
    w('PUT', '/os-services/disable', body, who=ADMIN_ONLY,
      action='disable')
    w('PUT', '/os-services/disable-log-reason',
      dict(body, disabled_reason='walk'), who=ADMIN_ONLY,
      action='disable-log-reason')
    w('PUT', '/os-services/enable', body, who=ADMIN_ONLY, action='enable')
    w('PUT', '/os-services/force-down', dict(body, forced_down=False),
      who=ADMIN_ONLY, first='2.11', action='force-down', policy_first=True)
    w('DELETE', '/os-services/999999', who=ADMIN_ONLY, refused=404)


def walk_server_subresources(w, ids):
    s = '/servers/%s' % ids['server']
    w('POST', s + '/metadata', {'metadata': {'k': 'v'}})
    w('PUT', s + '/metadata', {'metadata': {'k': 'v'}})
    w('GET', s + '/metadata/k')
    w('PUT', s + '/metadata/k2', {'meta': {'k2': 'v'}})
    w('DELETE', s + '/metadata/k2', ok=204)
    w('PUT', s + '/tags', {'tags': ['walk']}, first='2.26')
    w('PUT', s + '/tags/walk2', first='2.26', ok=201)
    w('GET', s + '/tags/walk2', first='2.26', ok=204)
    w('DELETE', s + '/tags/walk2', first='2.26', ok=204)
    w('DELETE', s + '/tags', first='2.26', ok=204)
    w('DELETE', s + '/os-server-password', ok=204)
    w('GET', s + '/ips/none', refused=404)
    w('GET', s + '/migrations/1', who=ADMIN_ONLY, first='2.23',
      refused=404)
    # Not live migrating: refused for the server's state (as Nova).
    w('DELETE', s + '/migrations/1', who=ADMIN_ONLY, first='2.24',
      refused=409)
    w('POST', s + '/migrations/1/action', {'force_complete': None},
      who=ADMIN_ONLY, first='2.22', refused=409)
    w('GET', s + '/shares', first='2.97', key='shares')
    w('GET', s + '/shares/%s' % ids['missing'], first='2.97', refused=404)
    w('POST', s + '/shares', {'share': {'share_id': ids['missing']}},
      first='2.97', ok=201, refused=409)
    w('DELETE', s + '/shares/%s' % ids['missing'], first='2.97',
      refused=409)
    w('GET', s + '/os-interface/%s' % ids['missing'], refused=404)
    w('POST', s + '/os-interface', {'interfaceAttachment': {
        'net_id': ids['missing']}}, refused=404)
    w('DELETE', s + '/os-interface/%s' % ids['missing'], refused=404)
    w('POST', s + '/remote-consoles', {'remote_console': {
        'protocol': 'vnc', 'type': 'novnc'}}, first='2.6')
    w('GET', '/os-console-auth-tokens/walk-unknown', who=ADMIN_ONLY,
      refused=404)
    w('POST', '/os-server-external-events', {'events': [{
        'name': 'network-changed', 'server_uuid': ids['server']}]},
      who=ADMIN_ONLY)
    attachment = s + '/os-volume_attachments/%s' % ids['volume']
    if _v(w.version) >= _v('2.85'):
        w('PUT', attachment, {'volumeAttachment': {
            'volumeId': ids['volume'], 'delete_on_termination': False}},
          ok=202)
    else:
        # Before 2.85 PUT swaps volumes: Nova 34's default policy lets
        # only the block storage service (service role) do it.
        w('PUT', attachment, {'volumeAttachment': {
            'volumeId': ids['volume']}}, refused=403)
    w('POST', s + '/os-volume_attachments', {'volumeAttachment': {
        'volumeId': ids['volume']}}, refused=400)
    w('DELETE', s + '/os-volume_attachments/%s' % ids['missing'],
      refused=404)


# Server actions: (action, body, target, who, first, last, status).
# Target 'error': a second server of project-a that an administrator
# reset to ERROR, sent only what it refuses in that state (409) or for
# its body (400), or what changes no state (lock, unlock, resetState to
# error): no compute work, deterministic, and the server walked above
# stays ACTIVE. Target 'missing': a server that does not exist (404,
# from its first version), for the actions an ERROR server would accept
# and run (Nova stops, rescues, reboots ... a server in ERROR).
SERVER_ACTIONS = (
    ('lock', None, 'error', ALL, '2.1', None, 202),
    ('unlock', None, 'error', ALL, '2.1', None, 202),
    ('os-resetState', {'state': 'error'}, 'error', ADMIN_ONLY, '2.1', None,
     202),
    ('os-start', None, 'error', ALL, '2.1', None, 409),
    ('unpause', None, 'error', ALL, '2.1', None, 409),
    ('resume', None, 'error', ALL, '2.1', None, 409),
    ('unrescue', None, 'error', ALL, '2.1', None, 409),
    ('restore', None, 'error', ALL, '2.1', None, 409),
    ('unshelve', None, 'error', ALL, '2.1', None, 409),
    ('confirmResize', None, 'error', ALL, '2.1', None, 409),
    ('revertResize', None, 'error', ALL, '2.1', None, 409),
    ('resetNetwork', None, 'error', ALL, '2.1', None, 410),
    ('addSecurityGroup', {'name': 'walk-missing'}, 'error', ALL, '2.1',
     None, 404),
    ('removeSecurityGroup', {'name': 'walk-missing'}, 'error', ALL, '2.1',
     None, 404),
    ('os-getVNCConsole', {'type': 'bogus'}, 'error', ALL, '2.1', '2.5',
     400),
    ('os-getSPICEConsole', {'type': 'bogus'}, 'error', ALL, '2.1', '2.5',
     400),
    ('os-getRDPConsole', {'type': 'bogus'}, 'error', ALL, '2.1', '2.5',
     400),
    ('os-getSerialConsole', {'type': 'bogus'}, 'error', ALL, '2.1', '2.5',
     400),
    ('rebuild', {'imageRef': 'x'}, 'error', ALL, '2.1', None, 400),
    ('createImage', {}, 'error', ALL, '2.1', None, 400),
    ('createBackup', {}, 'error', ALL, '2.1', None, 400),
    ('resize', {}, 'error', ALL, '2.1', None, 400),
    ('os-migrateLive', {}, 'missing', ALL, '2.1', None, 400),
    ('evacuate', {'bogus': 1}, 'missing', ALL, '2.1', None, 400),
    ('os-getConsoleOutput', {'length': 1}, 'missing', ALL, '2.1', None,
     404),
    ('os-stop', None, 'missing', ALL, '2.1', None, 404),
    ('reboot', {'type': 'SOFT'}, 'missing', ALL, '2.1', None, 404),
    ('pause', None, 'missing', ALL, '2.1', None, 404),
    ('suspend', None, 'missing', ALL, '2.1', None, 404),
    ('rescue', None, 'missing', ALL, '2.1', None, 404),
    ('shelve', None, 'missing', ALL, '2.1', None, 404),
    ('shelveOffload', None, 'missing', ALL, '2.1', None, 404),
    ('changePassword', {'adminPass': 'walk'}, 'missing', ALL, '2.1', None,
     404),
    ('trigger_crash_dump', None, 'missing', ALL, '2.17', None, 404),
    ('injectNetworkInfo', None, 'missing', ALL, '2.1', None, 404),
    ('migrate', None, 'missing', ALL, '2.1', None, 404),
    ('forceDelete', None, 'missing', ALL, '2.1', None, 404),
    ('addFloatingIp', {'address': '172.24.4.250'}, 'missing', ALL, '2.1',
     '2.43', 404),
    ('removeFloatingIp', {'address': '172.24.4.250'}, 'missing', ALL,
     '2.1', '2.43', 404),
    ('addFixedIp', {'networkId': 'walk'}, 'missing', ALL, '2.1', '2.43',
     404),
    ('removeFixedIp', {'address': '10.0.0.250'}, 'missing', ALL, '2.1',
     '2.43', 404),
)


def walk_server_actions(w, ids):
    for name, body, target, who, first, last, status in SERVER_ACTIONS:
        path = '/servers/%s/action' % ids[
            'error_server' if target == 'error' else 'missing']
        ok = status if status < 400 else 202
        w('POST', path, {name: body}, who=who, first=first, last=last,
          ok=ok, refused=None if status < 400 else status)
    w('POST', '/os-volumes_boot/%s/action' % ids['server'],
      {'lock': None}, last='2.102', ok=202)
    w('POST', '/os-volumes_boot/%s/action' % ids['server'],
      {'unlock': None}, last='2.102', ok=202)


def walk_legacy(w, ids):
    """The proxies and os-hosts, until the versions that removed them."""
    image = '/images/%s' % IMAGE
    # The image is not the member's: its metadata is the owner's (and an
    # administrator's) to change.
    theirs = None if w.admin else 403
    missing_key = None if w.admin else 404
    w('GET', '/images', last='2.35')
    w('GET', '/images/detail', last='2.35')
    w('GET', image, last='2.35')
    w('DELETE', '/images/%s' % ids['missing'], last='2.35', refused=404)
    w('POST', image + '/metadata', {'metadata': {'walk': 'x'}},
      last='2.38', refused=theirs)
    w('PUT', image + '/metadata/walk', {'meta': {'walk': 'y'}}, last='2.38',
      refused=theirs)
    w('GET', image + '/metadata/walk', last='2.38', refused=missing_key)
    w('GET', image + '/metadata', last='2.38')
    w('DELETE', image + '/metadata/walk', last='2.38', ok=204,
      refused=missing_key)
    w('PUT', image + '/metadata', {'metadata': {'walk': 'z'}}, last='2.38',
      refused=theirs)
    w('DELETE', image + '/metadata/walk', last='2.38', ok=204,
      refused=missing_key)
    w('GET', '/os-hosts', who=ADMIN_ONLY, last='2.42')
    host = '/os-hosts/%s' % ids['host']
    w('GET', host, who=ADMIN_ONLY, last='2.42')
    w('PUT', host, {'status': 'enable'}, who=ADMIN_ONLY, last='2.42')
    for verb in ('reboot', 'shutdown', 'startup'):
        w('GET', '%s/%s' % (host, verb), who=ADMIN_ONLY, last='2.42',
          refused=501)
    w('GET', '/os-networks', last='2.35')
    w('GET', '/os-networks/%s' % ids['missing'], last='2.35', refused=404)
    w('GET', '/os-tenant-networks', last='2.35')
    w('GET', '/os-tenant-networks/%s' % ids['missing'], last='2.35',
      refused=404)
    w('GET', '/os-floating-ip-pools', last='2.35')
    made = w('POST', '/os-security-groups', {'security_group': {
        'name': 'walk-%s' % w.version, 'description': 'walk'}},
        last='2.35')
    group = made.json()['security_group']['id'] if made else ids['missing']
    w('GET', '/os-security-groups', last='2.35')
    w('GET', '/os-security-groups/%s' % group, last='2.35')
    w('PUT', '/os-security-groups/%s' % group, {'security_group': {
        'name': 'walk2-%s' % w.version, 'description': 'walk'}},
      last='2.35')
    rule = w('POST', '/os-security-group-rules', {'security_group_rule': {
        'parent_group_id': group, 'ip_protocol': 'tcp', 'from_port': 22,
        'to_port': 22, 'cidr': '10.0.0.0/8'}}, last='2.35')
    w('DELETE', '/os-security-group-rules/%s' % (
        rule.json()['security_group_rule']['id'] if rule
        else ids['missing']), last='2.35', ok=202)
    w('DELETE', '/os-security-groups/%s' % group, last='2.35', ok=202)
    w('GET', '/os-hypervisors/statistics', who=ADMIN_ONLY, last='2.87')
    w('GET', '/os-hypervisors/%s/uptime' % (
        ids['hypervisor'] if _v(w.version) >= _v('2.53')
        else ids['hypervisor_int']), who=ADMIN_ONLY, last='2.87')
    w('GET', '/os-hypervisors/%s/search' % ids['hypervisor_name'],
      who=ADMIN_ONLY, last='2.52')
    w('GET', '/os-hypervisors/%s/servers' % ids['hypervisor_name'],
      who=ADMIN_ONLY, last='2.52')
    w('GET', '/extensions/os-keypairs')
    w('POST', '/servers', {'server': {'name': 'no-flavor'}}, ok=202,
      refused=400)
    w('DELETE', '/servers/%s' % ids['missing'], ok=204, refused=404)
    w('PUT', '/servers/%s' % ids['error_server'], {'server': {
        'name': 'walk-error'}})
    w('GET', '/os-volumes_boot', last='2.102')
    w('POST', '/os-volumes_boot', {'server': {'name': 'no-flavor'}},
      last='2.102', ok=202, refused=400)
    w('PUT', '/os-volumes_boot/%s' % ids['error_server'], {'server': {
        'name': 'walk-error'}}, last='2.102')
    w('DELETE', '/os-volumes_boot/%s' % ids['missing'], last='2.102',
      ok=204, refused=404)
    w('GET', '/')
    w('GET', '/servers/%s/ips' % ids['server'])


def walk_proxies(w, ids):
    """os-volumes, os-snapshots and os-floating-ips until 2.35 (what
    each makes, it deletes) and os-assisted-volume-snapshots
    (administrators: here on a volume no server has, 400)."""
    made = w('POST', '/os-volumes', {'volume': {'size': 1}}, last='2.35')
    volume = made.json()['volume']['id'] if made else ids['missing']
    w('GET', '/os-volumes', last='2.35')
    w('GET', '/os-volumes/detail', last='2.35')
    w('GET', '/os-volumes/%s' % volume, last='2.35')
    made = w('POST', '/os-snapshots', {'snapshot': {'volume_id': volume}},
             last='2.35')
    snapshot = made.json()['snapshot']['id'] if made else ids['missing']
    w('GET', '/os-snapshots', last='2.35')
    w('GET', '/os-snapshots/detail', last='2.35')
    w('GET', '/os-snapshots/%s' % snapshot, last='2.35')
    w('DELETE', '/os-snapshots/%s' % snapshot, last='2.35', ok=202)
    w('DELETE', '/os-volumes/%s' % volume, last='2.35', ok=202)
    made = w('POST', '/os-floating-ips', {'pool': 'public'}, last='2.35')
    fip = made.json()['floating_ip']['id'] if made else ids['missing']
    w('GET', '/os-floating-ips', last='2.35')
    w('GET', '/os-floating-ips/%s' % fip, last='2.35')
    w('DELETE', '/os-floating-ips/%s' % fip, last='2.35', ok=202)
    w('POST', '/os-assisted-volume-snapshots', {'snapshot': {
        'volume_id': ids['missing'], 'create_info': {
            'snapshot_id': 'walk', 'type': 'qcow2', 'new_file': 'walk'}}},
      who=ADMIN_ONLY, refused=400)
    w('DELETE', '/os-assisted-volume-snapshots/walk?delete_info=%7B%7D',
      who=ADMIN_ONLY, ok=204, refused=400)


def walk_gone(w, ids):
    """The routes gone with nova-network and cells v1: 410 at every
    version, for everybody."""
    from nova_lite.api.openstack.compute import gone
    for method, template in gone.ROUTES:
        path = template
        for param in ROUTE_PARAMS:
            path = path.replace('{%s}' % param, 'walk')
        w(method, path, {} if method in ('POST', 'PUT') else None,
          refused=410)
    for template, _controller, names in gone.ACTION_ROUTES:
        for name in names:
            w('POST', template.replace('{network_id}', 'walk').replace(
                '{address}', 'walk'), {name: None}, refused=410)


WALKS = (walk_flavors, walk_keypairs, walk_server_groups, walk_aggregates,
         walk_quotas, walk_services, walk_server_subresources,
         walk_server_actions, walk_legacy, walk_proxies, walk_gone)


@pytest.fixture(scope='module')
def walk_ids(walk):
    api, ids = walk
    ids = dict(ids)
    assert api('POST', '/flavors', {'flavor': {
        'name': 'priv', 'id': 'priv', 'ram': 64, 'vcpus': 1, 'disk': 0,
        'os-flavor-access:is_public': False}},
        token=ADMIN).status_code == 200
    assert api('POST', '/flavors/priv/action', {'addTenantAccess': {
        'tenant': 'project-a'}}, token=ADMIN).status_code == 200
    assert api('POST', '/flavors/priv/os-extra_specs', {'extra_specs': {
        'hw:numa_nodes': '1'}}, token=ADMIN).status_code == 200
    shown = api('GET', '/servers/%s' % ids['server'], token=ADMIN).json()[
        'server']
    ids['host'] = shown['OS-EXT-SRV-ATTR:host']
    ids['hypervisor_name'] = shown['OS-EXT-SRV-ATTR:hypervisor_hostname']
    ids['hypervisor_int'] = api('GET', '/os-hypervisors', token=ADMIN).json()[
        'hypervisors'][0]['id']
    ids['service_uuid'] = next(
        s['id'] for s in api('GET', '/os-services', version='2.53',
                             token=ADMIN).json()['services']
        if s['host'] == ids['host'] and s['binary'] == 'nova-compute')
    ids['aggregate'] = api('GET', '/os-aggregates', token=ADMIN).json()[
        'aggregates'][0]['id']
    ids['missing'] = '9b6e3f0c-3a43-4f7a-9d1c-5d8f26a0e1aa'
    made = api('POST', '/servers', {'server': {
        'name': 'walk-error', 'flavorRef': 'small', 'imageRef': IMAGE,
        'networks': 'none'}}, version='2.37')
    assert made.status_code == 202, made.text
    ids['error_server'] = made.json()['server']['id']
    wait_for(lambda: api('GET', '/servers/%s' % ids['error_server']).json()[
        'server']['status'] == 'ACTIVE', timeout=30, message='ACTIVE')
    assert api('POST', '/servers/%s/action' % ids['error_server'], {
        'os-resetState': {'state': 'error'}},
        token=ADMIN).status_code == 202
    return api, ids


@pytest.mark.parametrize('token', [ADMIN, MEMBER], ids=['admin', 'member'])
def test_every_route_is_walked_at_every_version(walk_ids, token):
    """Every route and action of routes.ROUTES, at every version, as
    this caller: the reads of ROUTES above and the walks of WALKS. A
    route nobody walks fails the test."""
    api, ids = walk_ids
    walked, failures = set(), []
    for version in os.environ.get('WALK_VERSIONS', ' '.join(
            VERSIONS)).split():
        w = Walker(api, version, token, walked, failures)
        for walk_one in WALKS:
            walk_one(w, ids)
    # One line per route and what went wrong, at its first version.
    first = {}
    for failure in failures:
        first.setdefault(failure[:3], failure)
    assert not failures, '\n'.join(map(str, first.values()))
    for template, *_rest in ROUTES:
        walked.add(('GET', route_of('GET', template.format(
            server=ids['server'], hypervisor=ids['hypervisor'],
            request=ids['request'], volume=ids['volume'])), None))
    missing = route_keys() - walked
    assert not missing, '\n'.join(map(str, sorted(missing)))
