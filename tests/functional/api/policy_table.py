"""The policy table: the status each persona gets, with the default
policies, for every flavor, extra-spec, flavor-access, os-services,
os-hypervisors, os-keypairs, servers (with their metadata and tags),
server action (resize and migrate included), os-instance-actions,
os-volume_attachments, server shares, os-availability-zone,
os-migrations, server
migrations and os-aggregates rule.

migrations, limits, quota-set and quota-class-set rule.

migrations and os-server-groups rule.

migrations, server security groups, os-interface and external events
rule; and the floating-IP and volume proxies and IP actions.
Plain data, so that the
same table can be replayed against real Nova.

Every row is what Nova 34 answers with its default policies except the
access-list reads (GET /flavors/{id}/os-flavor-access): there our default
gives what Nova answers under its deprecated admin-or-owner rule (Nova 34
with ``enforce_new_defaults = False``), as issue 13 asks; Nova 34's own
default answers 403 to every non-administrator (NOVA34_ACCESS_ROWS).

Requests of a row run as MANAGER (in the rows that name it), MEMBER,
READER and OTHER first, ADMIN last (the
administrator's writes succeed, and later rows see them). Paths may name
``{compute}`` (a compute service's uuid), ``{host}`` and ``{binary}``
(its host and binary), ``{node}`` (a hypervisor uuid) and ``{hostname}``
(its hypervisor_hostname), ``{server}`` (a server of project-a, in a
cell, on the network "private"), ``{error_server}`` (another, in vm_state
error), ``{wired_server}`` (another, active on a running compute:
rows whose answer that compute gives), ``{group}`` (a server group of
project-a); SETUP runs as ADMIN first.
"""

ADMIN, MEMBER, READER, OTHER = 'admin', 'member', 'reader', 'other'
ORDER = (MEMBER, READER, OTHER, ADMIN)
# A project's manager: only the rules Nova 34 gives managers
# (MANAGER_ROWS) ask for this persona.
MANAGER = 'manager'
# persona: (project, roles), as Keystone issues them (admin implies
# manager implies member implies reader).
PERSONAS = {
    ADMIN: ('admin-project', ['admin', 'manager', 'member', 'reader']),
    MANAGER: ('project-a', ['manager', 'member', 'reader']),
    MEMBER: ('project-a', ['member', 'reader']),
    READER: ('project-a', ['reader']),
    OTHER: ('project-b', ['member', 'reader']),
}

PRIVATE = '/flavors/policy-private'
PUBLIC = '/flavors/policy-public'
MISSING_UUID = '8a6d3d1e-4b8e-4e0e-9d7f-1c2b3a4d5e6f'
CIRROS = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
# The first of the images the embedded image service ships.
IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'


def _flavor(flavor_id, is_public=True):
    return {'flavor': {'name': flavor_id, 'id': flavor_id, 'ram': 512,
                       'vcpus': 1, 'disk': 1,
                       'os-flavor-access:is_public': is_public}}


# (method, path, body, microversion), as ADMIN.
SETUP = [
    ('POST', '/flavors', _flavor('policy-private', False), '2.1'),
    ('POST', '/flavors', _flavor('policy-public'), '2.1'),
    ('POST', '/flavors', _flavor('policy-doomed'), '2.1'),
    ('POST', PRIVATE + '/action',
     {'addTenantAccess': {'tenant': 'project-a'}}, '2.1'),
    ('POST', PRIVATE + '/os-extra_specs',
     {'extra_specs': {'k': 'v', 'gone': 'v'}}, '2.1'),
    ('POST', PUBLIC + '/os-extra_specs', {'extra_specs': {'k': 'v'}}, '2.1'),
]


def _all(status):
    return {persona: status for persona in ORDER}


def _admin_only(status, others=403):
    return {ADMIN: status, MEMBER: others, READER: others, OTHER: others}


# A public key every persona may import.
PUBLIC_KEY = ('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHt+d1/dWektvXf3GGys0BVE5d'
              'c9lP0e/vNv7qe8QR0T')


def _keypair(name, **extra):
    return {'keypair': dict(name=name, public_key=PUBLIC_KEY, **extra)}


def _member_keys(status):
    """The member's key pairs: the member and administrators."""
    return {ADMIN: status, MEMBER: status, READER: 403, OTHER: 403}


# Private flavors, their extra specs included, exist only for the projects
# that may use them.
_PRIVATE_READ = {ADMIN: 200, MEMBER: 200, READER: 200, OTHER: 404}


def _boot(name):
    return {'server': {'name': name, 'flavorRef': 'policy-public',
                       'imageRef': IMAGE, 'networks': 'none'}}


def _server_group(name, policy='anti-affinity'):
    return {'server_group': {'name': name, 'policy': policy}}


# A server of the member's project.
_OWN_SERVER = {ADMIN: 200, MEMBER: 200, READER: 200, OTHER: 404}
# Changes to it: its members and administrators.
_OWN_SERVER_WRITE = {ADMIN: 200, MEMBER: 200, READER: 403, OTHER: 404}

# (method, path, body, microversion, {persona: status})
ROWS = [
    # flavors: reading needs no rule; managing is for administrators.
    ('GET', '/flavors', None, '2.1', _all(200)),
    ('GET', '/flavors/detail', None, '2.61', _all(200)),
    ('GET', PUBLIC, None, '2.61', _all(200)),
    ('GET', PRIVATE, None, '2.61', _PRIVATE_READ),
    ('GET', '/flavors/no-such-flavor', None, '2.1', _all(404)),
    ('POST', '/flavors', _flavor('policy-created'), '2.1', _admin_only(200)),
    # A malformed body is a 400 whoever sends it: validation comes first.
    ('POST', '/flavors', {'flavor': {}}, '2.1', _all(400)),
    ('PUT', PRIVATE, {'flavor': {'description': 'd'}}, '2.55',
     _admin_only(200)),
    ('PUT', '/flavors/no-such-flavor', {'flavor': {'description': 'd'}},
     '2.55', _admin_only(404)),
    ('DELETE', '/flavors/policy-doomed', None, '2.1', _admin_only(202)),
    # extra specs: readers of any project read those of the flavors they
    # see; writing them is for administrators.
    ('GET', PUBLIC + '/os-extra_specs', None, '2.1', _all(200)),
    ('GET', PUBLIC + '/os-extra_specs/k', None, '2.1', _all(200)),
    ('GET', PRIVATE + '/os-extra_specs', None, '2.1', _PRIVATE_READ),
    ('GET', PRIVATE + '/os-extra_specs/k', None, '2.1', _PRIVATE_READ),
    ('GET', PRIVATE + '/os-extra_specs/missing', None, '2.1', _all(404)),
    ('POST', PRIVATE + '/os-extra_specs', {'extra_specs': {'k2': 'v'}},
     '2.1', _admin_only(200)),
    ('PUT', PRIVATE + '/os-extra_specs/k', {'k': 'v2'}, '2.1',
     _admin_only(200)),
    ('DELETE', PRIVATE + '/os-extra_specs/gone', None, '2.1',
     _admin_only(200)),
    ('PUT', PRIVATE + '/os-extra_specs/k', {'k': 'v', 'j': 'w'}, '2.1',
     _all(400)),
    # access lists: readers and members of a project that may use a
    # private flavor read its list; to anyone else that flavor does not
    # exist; public flavors have no list. Changing a list is for
    # administrators.
    ('GET', PRIVATE + '/os-flavor-access', None, '2.1', _PRIVATE_READ),
    ('GET', PUBLIC + '/os-flavor-access', None, '2.1', _all(404)),
    ('GET', '/flavors/no-such-flavor/os-flavor-access', None, '2.1',
     _all(404)),
    ('POST', PRIVATE + '/action',
     {'addTenantAccess': {'tenant': 'project-c'}}, '2.7', _admin_only(200)),
    ('POST', PRIVATE + '/action',
     {'removeTenantAccess': {'tenant': 'project-c'}}, '2.7',
     _admin_only(200)),
    ('POST', '/flavors/no-such-flavor/action',
     {'addTenantAccess': {'tenant': 'project-c'}}, '2.7', _admin_only(404)),
    ('POST', PRIVATE + '/action', {'addTenantAccess': {}}, '2.7', _all(400)),
    ('POST', PRIVATE + '/action', {'noSuchAction': {}}, '2.7', _all(400)),
    # os-services: administrators only.
    ('GET', '/os-services', None, '2.1', _admin_only(200)),
    ('GET', '/os-services', None, '2.53', _admin_only(200)),
    ('GET', '/os-services?unknown=1', None, '2.75', _all(400)),
    ('PUT', '/os-services/disable', {'host': '{host}', 'binary': '{binary}'},
     '2.1', _admin_only(200)),
    ('PUT', '/os-services/enable', {'host': '{host}', 'binary': '{binary}'},
     '2.1', _admin_only(200)),
    ('PUT', '/os-services/force-down',
     {'host': '{host}', 'binary': '{binary}', 'forced_down': False},
     '2.11', _admin_only(200)),
    ('PUT', '/os-services/enable', {'host': '{host}'}, '2.1', _all(400)),
    # An unknown action is looked up after the policy check.
    ('PUT', '/os-services/no-such-action',
     {'host': '{host}', 'binary': '{binary}'}, '2.1', _admin_only(404)),
    ('PUT', '/os-services/{compute}', {'status': 'enabled'}, '2.53',
     _admin_only(200)),
    ('PUT', '/os-services/' + MISSING_UUID, {'status': 'enabled'}, '2.53',
     _admin_only(404)),
    # The uuid is checked before the policy (as the body is).
    ('PUT', '/os-services/not-a-uuid', {'status': 'enabled'}, '2.53',
     _all(400)),
    ('DELETE', '/os-services/' + MISSING_UUID, None, '2.53',
     _admin_only(404)),
    ('DELETE', '/os-services/not-a-uuid', None, '2.53', _admin_only(400)),
    # os-hypervisors: administrators only.
    ('GET', '/os-hypervisors', None, '2.1', _admin_only(200)),
    ('GET', '/os-hypervisors/detail', None, '2.53', _admin_only(200)),
    ('GET', '/os-hypervisors/{node}', None, '2.53', _admin_only(200)),
    ('GET', '/os-hypervisors/' + MISSING_UUID, None, '2.53',
     _admin_only(404)),
    ('GET', '/os-hypervisors/not-a-uuid', None, '2.53', _admin_only(400)),
    ('GET', '/os-hypervisors/{node}/uptime', None, '2.53', _admin_only(200)),
    ('GET', '/os-hypervisors/%s/uptime' % MISSING_UUID, None, '2.53',
     _admin_only(404)),
    ('GET', '/os-hypervisors/not-a-uuid/uptime', None, '2.53',
     _admin_only(400)),
    ('GET', '/os-hypervisors/statistics', None, '2.1', _admin_only(200)),
    ('GET', '/os-hypervisors/{hostname}/search', None, '2.1',
     _admin_only(200)),
    ('GET', '/os-hypervisors/{hostname}/servers', None, '2.1',
     _admin_only(200)),
    ('GET', '/os-hypervisors?unknown=1', None, '2.53', _all(400)),
    # os-keypairs: an administrator, or the key pair's user (the caller,
    # or the user_id an administrator names at 2.10+). Each persona is its
    # own user, so each creates and deletes its own 'policy-kp'.
    ('POST', '/os-keypairs', _keypair('policy-kp'), '2.1', _all(200)),
    ('POST', '/os-keypairs', _keypair('policy-kp'), '2.1', _all(409)),
    ('POST', '/os-keypairs', {'keypair': {}}, '2.1', _all(400)),
    ('GET', '/os-keypairs', None, '2.1', _all(200)),
    ('GET', '/os-keypairs/policy-kp', None, '2.2', _all(200)),
    ('GET', '/os-keypairs/no-such-kp', None, '2.1', _all(404)),
    ('GET', '/os-keypairs?user_id=user-member', None, '2.10',
     _member_keys(200)),
    ('GET', '/os-keypairs/policy-kp?user_id=user-member', None, '2.10',
     _member_keys(200)),
    ('POST', '/os-keypairs', _keypair('policy-kp2', user_id='user-member'),
     '2.10', dict(_member_keys(201), admin=409)),
    ('DELETE', '/os-keypairs/policy-kp?user_id=user-member', None, '2.10',
     dict(_member_keys(204), admin=404)),
    ('DELETE', '/os-keypairs/policy-kp', None, '2.1',
     dict(_all(202), member=404)),
    # The image proxy has no rules: every persona reads public images.
    ('GET', '/images', None, '2.1', _all(200)),
    ('GET', '/images/detail', None, '2.35', _all(200)),
    ('GET', '/images/' + CIRROS, None, '2.1', _all(200)),
    ('GET', '/images/' + CIRROS + '/metadata', None, '2.38', _all(200)),
    ('GET', '/images/' + CIRROS, None, '2.36', _all(404)),
    # servers: readers list and show their project's servers, members
    # change them; another project's server does not exist (404); every
    # project's servers, and sorting by host, are for administrators.
    ('GET', '/servers', None, '2.1', _all(200)),
    ('GET', '/servers/detail', None, '2.47', _all(200)),
    ('GET', '/servers?all_tenants=1', None, '2.1', _admin_only(200)),
    ('GET', '/servers/detail?all_tenants=1', None, '2.1', _admin_only(200)),
    ('GET', '/servers?sort_key=host', None, '2.1', _admin_only(200)),
    ('GET', '/servers?unknown=1', None, '2.75', _all(400)),
    ('GET', '/servers/{server}', None, '2.47', _OWN_SERVER),
    ('GET', '/servers/{server}/ips', None, '2.1', _OWN_SERVER),
    ('GET', '/servers/{server}/ips/private', None, '2.1', _OWN_SERVER),
    ('GET', '/servers/' + MISSING_UUID, None, '2.1', _all(404)),
    ('PUT', '/servers/{server}', {'server': {'name': 'renamed'}}, '2.1',
     {ADMIN: 200, MEMBER: 200, READER: 403, OTHER: 404}),
    ('PUT', '/servers/{server}', {'server': {'bogus': 1}}, '2.1', _all(400)),
    # /os-volumes_boot: the alias of /servers, with its rules, to 2.102.
    ('GET', '/os-volumes_boot/{server}', None, '2.102', _OWN_SERVER),
    ('GET', '/os-volumes_boot/{server}', None, '2.103', _all(404)),
    ('POST', '/servers', _boot('policy-vm'), '2.37',
     {ADMIN: 202, MEMBER: 202, READER: 403, OTHER: 202}),
    ('POST', '/servers', {'server': {'name': 'x'}}, '2.37', _all(400)),
    ('DELETE', '/servers/' + MISSING_UUID, None, '2.1', _all(404)),
    # server metadata: readers read it, members change it.
    ('GET', '/servers/{server}/metadata', None, '2.1', _OWN_SERVER),
    ('POST', '/servers/{server}/metadata', {'metadata': {'k': 'v'}}, '2.1',
     _OWN_SERVER_WRITE),
    ('GET', '/servers/{server}/metadata/k', None, '2.1', _OWN_SERVER),
    ('PUT', '/servers/{server}/metadata',
     {'metadata': {'k': 'v', 'gone': 'v'}}, '2.1', _OWN_SERVER_WRITE),
    ('PUT', '/servers/{server}/metadata/k', {'meta': {'k': 'v2'}}, '2.1',
     _OWN_SERVER_WRITE),
    ('PUT', '/servers/{server}/metadata', {'metadata': {'a/b': 'v'}}, '2.1',
     _all(400)),
    # The member deletes it first: the administrator finds it gone.
    ('DELETE', '/servers/{server}/metadata/gone', None, '2.1',
     {ADMIN: 404, MEMBER: 204, READER: 403, OTHER: 404}),
    # server tags (2.26): readers read them, members change them.
    ('GET', '/servers/{server}/tags', None, '2.26', _OWN_SERVER),
    ('GET', '/servers/{server}/tags', None, '2.25', _all(404)),
    ('PUT', '/servers/{server}/tags/t1', None, '2.26',
     {ADMIN: 204, MEMBER: 201, READER: 403, OTHER: 404}),
    ('GET', '/servers/{server}/tags/t1', None, '2.26',
     {ADMIN: 204, MEMBER: 204, READER: 204, OTHER: 404}),
    ('PUT', '/servers/{server}/tags', {'tags': ['t1', 't2']}, '2.26',
     _OWN_SERVER_WRITE),
    ('PUT', '/servers/{server}/tags', {'tags': ['a/b']}, '2.26', _all(400)),
    ('DELETE', '/servers/{server}/tags/t2', None, '2.26',
     {ADMIN: 404, MEMBER: 204, READER: 403, OTHER: 404}),
    ('DELETE', '/servers/{server}/tags', None, '2.26',
     {ADMIN: 204, MEMBER: 204, READER: 403, OTHER: 404}),
    # os-availability-zone: anyone lists the zones; the detail is for
    # administrators.
    ('GET', '/os-availability-zone', None, '2.1', _all(200)),
    ('GET', '/os-availability-zone/detail', None, '2.1', _admin_only(200)),
    # rebuild and createImage: members and administrators; the answers
    # after the policy check leave the servers as they are (an image
    # that does not exist is a 400, a server in error a 409).
    ('POST', '/servers/{server}/action',
     {'rebuild': {'imageRef': MISSING_UUID}}, '2.1',
     {ADMIN: 400, MEMBER: 400, READER: 403, OTHER: 404}),
    ('POST', '/servers/{server}/action',
     {'rebuild': {'imageRef': MISSING_UUID,
                  'trusted_image_certificates': ['cert']}}, '2.63',
     {ADMIN: 400, MEMBER: 400, READER: 403, OTHER: 404}),
    ('POST', '/servers/{error_server}/action',
     {'createImage': {'name': 'policy-snap'}}, '2.45',
     {ADMIN: 409, MEMBER: 409, READER: 403, OTHER: 404}),
    # resize, confirmResize and revertResize: members and
    # administrators; migrate: administrators and the project's managers
    # (MANAGER_ROWS), with a host at 2.56: administrators. The
    # server in error then refuses each (409) and stays as it is.
    ('POST', '/servers/{error_server}/action',
     {'resize': {'flavorRef': 'policy-public'}}, '2.1',
     {ADMIN: 409, MEMBER: 409, READER: 403, OTHER: 404}),
    ('POST', '/servers/{error_server}/action', {'confirmResize': None},
     '2.1', {ADMIN: 409, MEMBER: 409, READER: 403, OTHER: 404}),
    ('POST', '/servers/{error_server}/action', {'revertResize': None},
     '2.1', {ADMIN: 409, MEMBER: 409, READER: 403, OTHER: 404}),
    ('POST', '/servers/{error_server}/action', {'migrate': None}, '2.1',
     _admin_only(409, 403) | {OTHER: 404}),
    ('POST', '/servers/{error_server}/action',
     {'migrate': {'host': 'c1-host1'}}, '2.56',
     _admin_only(409, 403) | {OTHER: 404}),
    # evacuate: administrators only (to a host that does not exist: the
    # administrator's is then refused with 404, the server unchanged).
    ('POST', '/servers/{error_server}/action',
     {'evacuate': {'onSharedStorage': False, 'host': 'nosuch'}}, '2.1',
     _admin_only(404, 403) | {OTHER: 404}),
    ('POST', '/servers/{error_server}/action',
     {'evacuate': {'host': 'nosuch'}}, '2.14',
     _admin_only(404, 403) | {OTHER: 404}),
    # os-migrateLive: administrators and the project's managers
    # (MANAGER_ROWS); naming the host: administrators. The server in
    # error refuses it (409).
    ('POST', '/servers/{error_server}/action',
     {'os-migrateLive': {'host': None, 'block_migration': 'auto'}},
     '2.25', _admin_only(409, 403) | {OTHER: 404}),
    ('POST', '/servers/{error_server}/action',
     {'os-migrateLive': {'host': '{host}', 'block_migration': False,
                         'disk_over_commit': False}},
     '2.1', _admin_only(409, 403) | {OTHER: 404}),
    # server actions: members of the project act (the server then has a
    # task, so the administrator's stop comes too late: 409); resetState
    # is for administrators (resetNetwork is gone for everyone: 410); the
    # administrator's lock is the one in force, so the member's unlock
    # needs unlock_override.
    ('POST', '/servers/{server}/action', {'os-stop': None}, '2.1',
     {ADMIN: 409, MEMBER: 202, READER: 403, OTHER: 404}),
    ('POST', '/servers/{server}/action',
     {'os-resetState': {'state': 'active'}}, '2.1', _admin_only(202, 403)
     | {OTHER: 404}),
    ('POST', '/servers/{server}/action', {'resetNetwork': None}, '2.1',
     _all(410)),
    ('POST', '/servers/{server}/action', {'lock': None}, '2.1',
     {ADMIN: 202, MEMBER: 202, READER: 403, OTHER: 404}),
    ('POST', '/servers/{server}/action', {'unlock': None}, '2.1',
     _admin_only(202, 403) | {OTHER: 404}),
    ('POST', '/servers/{server}/action', {'reboot': {'type': 'x'}}, '2.1',
     _all(400)),
    ('POST', '/servers/' + MISSING_UUID + '/action', {'pause': None}, '2.1',
     _all(404)),
    # os-volume_attachments: readers list and show, members attach,
    # update and detach (the volume does not exist: 404 after the
    # policy check), a swap is the service role's.
    ('GET', '/servers/{server}/os-volume_attachments', None, '2.1',
     _OWN_SERVER),
    ('GET', '/servers/{server}/os-volume_attachments/' + MISSING_UUID,
     None, '2.1', _all(404)),
    ('POST', '/servers/{server}/os-volume_attachments',
     {'volumeAttachment': {'volumeId': MISSING_UUID}}, '2.1',
     {ADMIN: 404, MEMBER: 404, READER: 403, OTHER: 404}),
    ('PUT', '/servers/{server}/os-volume_attachments/' + MISSING_UUID,
     {'volumeAttachment': {'volumeId': MISSING_UUID,
                           'delete_on_termination': True}}, '2.85',
     {ADMIN: 404, MEMBER: 404, READER: 403, OTHER: 404}),
    ('PUT', '/servers/{server}/os-volume_attachments/' + MISSING_UUID,
     {'volumeAttachment': {'volumeId': CIRROS}}, '2.85',
     {ADMIN: 403, MEMBER: 403, READER: 403, OTHER: 404}),
    ('DELETE', '/servers/{server}/os-volume_attachments/' + MISSING_UUID,
     None, '2.1', {ADMIN: 404, MEMBER: 404, READER: 403, OTHER: 404}),
    # /servers/{id}/shares (2.97): the project's readers list and show,
    # its members attach and detach, and an administrator does all
    # (Nova 34's defaults, checked against it). The server is active
    # (attach: 409) and the share missing (404).
    ('GET', '/servers/{server}/shares', None, '2.97',
     {ADMIN: 200, MEMBER: 200, READER: 200, OTHER: 404}),
    ('GET', '/servers/{server}/shares/' + MISSING_UUID, None, '2.97',
     {ADMIN: 404, MEMBER: 404, READER: 404, OTHER: 404}),
    ('POST', '/servers/{server}/shares',
     {'share': {'share_id': MISSING_UUID}}, '2.97',
     {ADMIN: 409, MEMBER: 409, READER: 403, OTHER: 404}),
    ('DELETE', '/servers/{error_server}/shares/' + MISSING_UUID, None,
     '2.97', {ADMIN: 404, MEMBER: 404, READER: 403, OTHER: 404}),
    # os-instance-actions: readers of the project list and show.
    ('GET', '/servers/{server}/os-instance-actions', None, '2.84',
     _OWN_SERVER),
    ('GET', '/servers/{server}/os-instance-actions/no-such-request', None,
     '2.84', _all(404)),
    # os-migrations: administrators (a project's managers list their own
    # project's: MANAGER_ROWS); the query is checked first.
    ('GET', '/os-migrations', None, '2.1', _admin_only(200)),
    ('GET', '/os-migrations?project_id=project-a', None, '2.80',
     _admin_only(200)),
    ('GET', '/os-migrations?bogus=1', None, '2.59', _all(400)),
    # A server's in-progress live migrations (2.23): listed by
    # administrators (and the project's managers), shown by
    # administrators; there are none, so showing one is a 404.
    ('GET', '/servers/{server}/migrations', None, '2.22', _all(404)),
    ('GET', '/servers/{server}/migrations', None, '2.23',
     _admin_only(200, 403) | {OTHER: 404}),
    ('GET', '/servers/{server}/migrations/1', None, '2.23',
     _admin_only(404, 403) | {OTHER: 404}),
    # force_complete (2.22) and abort (DELETE, 2.24) of one:
    # administrators and the project's managers (MANAGER_ROWS); the
    # server is not migrating (409).
    ('POST', '/servers/{server}/migrations/1/action',
     {'force_complete': None}, '2.21', _all(404)),
    ('POST', '/servers/{server}/migrations/1/action',
     {'force_complete': None}, '2.22',
     _admin_only(409, 403) | {OTHER: 404}),
    ('DELETE', '/servers/{server}/migrations/1', None, '2.23', _all(404)),
    ('DELETE', '/servers/{server}/migrations/1', None, '2.24',
     _admin_only(409, 403) | {OTHER: 404}),
    # os-aggregates: administrators only (schemas first: 400 for all).
    ('GET', '/os-aggregates', None, '2.1', _admin_only(200)),
    ('POST', '/os-aggregates', {'aggregate': {'name': 'policy-agg'}}, '2.1',
     _admin_only(200)),
    ('POST', '/os-aggregates', {'aggregate': {'name': 'policy-agg'}}, '2.1',
     _admin_only(409)),
    ('POST', '/os-aggregates', {'aggregate': {}}, '2.1', _all(400)),
    ('GET', '/os-aggregates/999999', None, '2.1', _admin_only(404)),
    ('GET', '/os-aggregates/not-an-id', None, '2.1', _admin_only(400)),
    ('PUT', '/os-aggregates/999999', {'aggregate': {'name': 'x'}}, '2.1',
     _admin_only(404)),
    ('PUT', '/os-aggregates/999999', {'aggregate': {}}, '2.1', _all(400)),
    ('DELETE', '/os-aggregates/999999', None, '2.1', _admin_only(404)),
    ('POST', '/os-aggregates/999999/action', {'add_host': {'host': '{host}'}},
     '2.1', _admin_only(404)),
    ('POST', '/os-aggregates/999999/action',
     {'remove_host': {'host': '{host}'}}, '2.1', _admin_only(404)),
    ('POST', '/os-aggregates/999999/action',
     {'set_metadata': {'metadata': {'k': 'v'}}}, '2.1', _admin_only(404)),
    ('POST', '/os-aggregates/999999/action', {'add_host': {}}, '2.1',
     _all(400)),
    ('POST', '/os-aggregates/999999/images', {'cache': [{'id': IMAGE}]},
     '2.81', _admin_only(404)),
    ('POST', '/os-aggregates/999999/images', {'cache': [{'id': IMAGE}]},
     '2.80', _all(404)),

    # Limits: anyone's own; another project's for administrators. Quota
    # sets: the project's readers see them, administrators set, revert
    # and see all; defaults for anyone; quota classes for administrators.
    ('GET', '/limits', None, '2.1', _all(200)),
    ('GET', '/limits?tenant_id=project-b', None, '2.1',
     _admin_only(200) | {OTHER: 200}),
    ('GET', '/os-quota-sets/project-a', None, '2.1',
     _admin_only(200, 403) | {MEMBER: 200, READER: 200}),
    ('GET', '/os-quota-sets/project-a/detail', None, '2.1',
     _admin_only(200, 403) | {MEMBER: 200, READER: 200}),
    ('GET', '/os-quota-sets/project-a/defaults', None, '2.1', _all(200)),
    ('PUT', '/os-quota-sets/project-a', {'quota_set': {'key_pairs': 100}},
     '2.1', _admin_only(200)),
    ('PUT', '/os-quota-sets/project-a', {'quota_set': {'bogus': 1}},
     '2.1', _all(400)),
    ('DELETE', '/os-quota-sets/project-c', None, '2.1', _admin_only(202)),
    ('GET', '/os-quota-class-sets/default', None, '2.1', _admin_only(200)),
    ('PUT', '/os-quota-class-sets/policy-class',
     {'quota_class_set': {'instances': 10}}, '2.1', _admin_only(200)),

    # os-server-groups: a project's members create and delete its groups,
    # its readers list and show them; another project's group is a 404
    # (administrators see every project's). {group} is project-a's.
    ('POST', '/os-server-groups', _server_group('policy-sg'), '2.64',
     {ADMIN: 200, MEMBER: 200, READER: 403, OTHER: 200}),
    ('POST', '/os-server-groups', {'server_group': {}}, '2.64', _all(400)),
    ('GET', '/os-server-groups', None, '2.64', _all(200)),
    ('GET', '/os-server-groups?all_projects=1', None, '2.64', _all(200)),
    ('GET', '/os-server-groups/{group}', None, '2.64', _OWN_SERVER),
    ('GET', '/os-server-groups/' + MISSING_UUID, None, '2.64', _all(404)),
    ('DELETE', '/os-server-groups/' + MISSING_UUID, None, '2.64',
     _all(404)),
    # (the member deletes it first: the others then find none)
    ('DELETE', '/os-server-groups/{group}', None, '2.64',
     {MEMBER: 204, READER: 404, OTHER: 404, ADMIN: 404}),

    # extensions: anyone.
    ('GET', '/extensions', None, '2.1', _all(200)),
    ('GET', '/extensions/os-rescue', None, '2.1', _all(200)),
    ('GET', '/extensions/no-such-alias', None, '2.1', _all(404)),
    # os-simple-tenant-usage: every project's for administrators, one
    # project's for its readers.
    ('GET', '/os-simple-tenant-usage', None, '2.1', _admin_only(200)),
    ('GET', '/os-simple-tenant-usage/project-a', None, '2.40',
     {ADMIN: 200, MEMBER: 200, READER: 200, OTHER: 403}),
    # os-instance_usage_audit_log: administrators only.
    ('GET', '/os-instance_usage_audit_log', None, '2.1', _admin_only(200)),
    ('GET', '/os-instance_usage_audit_log/2026-11-01%2000:00:00', None,
     '2.1', _admin_only(200)),
    # Consoles and introspection: console output, remote consoles and
    # crash dumps for members; tokens, diagnostics and injectNetworkInfo
    # for administrators; the topology for readers. The server's host
    # runs no compute here: a read it must answer is refused once policy
    # allows it (409; Nova's own server would answer 200).
    ('POST', '/servers/{server}/action', {'os-getConsoleOutput': {}},
     '2.1', {ADMIN: 409, MEMBER: 409, READER: 403, OTHER: 404}),
    ('POST', '/servers/{server}/remote-consoles',
     {'remote_console': {'protocol': 'vnc', 'type': 'novnc'}}, '2.6',
     {ADMIN: 409, MEMBER: 409, READER: 403, OTHER: 404}),
    ('POST', '/servers/{server}/action',
     {'os-getVNCConsole': {'type': 'novnc'}}, '2.1',
     {ADMIN: 409, MEMBER: 409, READER: 403, OTHER: 404}),
    ('GET', '/os-console-auth-tokens/no-such-token', None, '2.31',
     _admin_only(404)),
    ('GET', '/servers/{server}/diagnostics', None, '2.48',
     _admin_only(409) | {OTHER: 404}),
    ('GET', '/servers/{server}/topology', None, '2.78', _OWN_SERVER),
    ('POST', '/servers/{error_server}/action', {'trigger_crash_dump': None},
     '2.17', {ADMIN: 409, MEMBER: 409, READER: 403, OTHER: 404}),
    ('POST', '/servers/{server}/action', {'injectNetworkInfo': None}, '2.1',
     _admin_only(202) | {OTHER: 404}),

    # shelve, unshelve, rescue and unrescue: members and administrators;
    # shelveOffload: administrators. The server in error then refuses
    # each (409) but rescue, whose missing image is a 400.
    ('POST', '/servers/{error_server}/action', {'shelve': None}, '2.1',
     {ADMIN: 409, MEMBER: 409, READER: 403, OTHER: 404}),
    ('POST', '/servers/{error_server}/action', {'shelveOffload': None},
     '2.1', _admin_only(409, 403) | {OTHER: 404}),
    ('POST', '/servers/{error_server}/action', {'unshelve': None}, '2.77',
     {ADMIN: 409, MEMBER: 409, READER: 403, OTHER: 404}),
    # 2.91: unshelving to a host is for any administrator (Nova 34's
    # rule:context_is_admin; the server in error then refuses it).
    ('POST', '/servers/{error_server}/action',
     {'unshelve': {'host': 'nowhere'}}, '2.91',
     {ADMIN: 409, MEMBER: 403, READER: 403, OTHER: 404}),
    ('POST', '/servers/{error_server}/action',
     {'rescue': {'rescue_image_ref': MISSING_UUID}}, '2.1',
     {ADMIN: 400, MEMBER: 400, READER: 403, OTHER: 404}),
    ('POST', '/servers/{error_server}/action', {'unrescue': None}, '2.1',
     {ADMIN: 409, MEMBER: 409, READER: 403, OTHER: 404}),
    # createBackup and changePassword: members and administrators (the
    # server in error refuses both: 409); the password a guest posted:
    # readers read it, members clear it.
    ('POST', '/servers/{error_server}/action',
     {'createBackup': {'name': 'b', 'backup_type': 'daily',
                       'rotation': 1}}, '2.45',
     {ADMIN: 409, MEMBER: 409, READER: 403, OTHER: 404}),
    ('POST', '/servers/{error_server}/action',
     {'changePassword': {'adminPass': 'x'}}, '2.1',
     {ADMIN: 409, MEMBER: 409, READER: 403, OTHER: 404}),
    ('GET', '/servers/{server}/os-server-password', None, '2.1',
     _OWN_SERVER),
    ('DELETE', '/servers/{server}/os-server-password', None, '2.1',
     {ADMIN: 204, MEMBER: 204, READER: 403, OTHER: 404}),
    # restore (a server not soft-deleted: 409) and forceDelete (of a
    # server that does not exist: 404): members and administrators.
    ('POST', '/servers/{error_server}/action', {'restore': None}, '2.1',
     {ADMIN: 409, MEMBER: 409, READER: 403, OTHER: 404}),
    ('POST', '/servers/' + MISSING_UUID + '/action', {'forceDelete': None},
     '2.1', _all(404)),

    # A server's security groups: readers list them, members add and
    # remove them (a group the caller's project does not have: 404).
    ('GET', '/servers/{server}/os-security-groups', None, '2.1',
     _OWN_SERVER),
    ('POST', '/servers/{server}/action',
     {'addSecurityGroup': {'name': 'default'}}, '2.1',
     {ADMIN: 202, MEMBER: 202, READER: 403, OTHER: 404}),
    ('POST', '/servers/{server}/action',
     {'removeSecurityGroup': {'name': 'no-such-group'}}, '2.1',
     {ADMIN: 404, MEMBER: 404, READER: 403, OTHER: 404}),
    # os-interface: readers list and show, members attach and detach (a
    # port or network that does not exist: 404 after the policy check;
    # an attach's port is looked up by the server's compute, so this
    # server's compute runs).
    ('GET', '/servers/{server}/os-interface', None, '2.1', _OWN_SERVER),
    ('GET', '/servers/{server}/os-interface/' + MISSING_UUID, None, '2.1',
     _all(404)),
    ('POST', '/servers/{wired_server}/os-interface',
     {'interfaceAttachment': {'port_id': MISSING_UUID}}, '2.1',
     {ADMIN: 404, MEMBER: 404, READER: 403, OTHER: 404}),
    ('DELETE', '/servers/{server}/os-interface/' + MISSING_UUID, None,
     '2.1', {ADMIN: 404, MEMBER: 404, READER: 403, OTHER: 404}),
    # Server external events: administrators (no such server: 404).
    ('POST', '/os-server-external-events',
     {'events': [{'name': 'network-changed',
                  'server_uuid': MISSING_UUID}]}, '2.1',
     _admin_only(404)),
    # os-hosts below 2.43: administrators (501 for what the driver does
    # not do; an unknown host is a 404).
    ('GET', '/os-hosts', None, '2.42', _admin_only(200)),
    ('GET', '/os-hosts/{host}', None, '2.1', _admin_only(200)),
    ('GET', '/os-hosts/nohost', None, '2.1', _admin_only(404)),
    ('PUT', '/os-hosts/{host}', {'status': 'enable'}, '2.42',
     _admin_only(200)),
    ('PUT', '/os-hosts/{host}', {'maintenance_mode': 'enable'}, '2.1',
     _admin_only(501)),
    ('GET', '/os-hosts/{host}/reboot', None, '2.1', _admin_only(501)),
    ('GET', '/os-hosts/{host}/shutdown', None, '2.1', _admin_only(501)),
    ('GET', '/os-hosts/{host}/startup', None, '2.1', _admin_only(501)),
    # Network proxies below 2.36: readers of any project (and anyone for
    # the pools); an unknown network is a 404 once the policy passed.
    ('GET', '/os-networks', None, '2.1', _all(200)),
    ('GET', '/os-networks/nope', None, '2.35', _all(404)),
    ('GET', '/os-tenant-networks', None, '2.35', _all(200)),
    ('GET', '/os-tenant-networks/nope', None, '2.1', _all(404)),
    ('GET', '/os-floating-ip-pools', None, '2.1', _all(200)),
    # The floating-IP proxy below 2.36: readers list and show, members
    # allocate and release (an unknown pool or floating IP: 404).
    ('GET', '/os-floating-ips', None, '2.1', _all(200)),
    ('GET', '/os-floating-ips/' + MISSING_UUID, None, '2.35', _all(404)),
    ('POST', '/os-floating-ips', {'pool': 'no-such-pool'}, '2.1',
     {ADMIN: 404, MEMBER: 404, READER: 403, OTHER: 404}),
    ('DELETE', '/os-floating-ips/' + MISSING_UUID, None, '2.35',
     {ADMIN: 404, MEMBER: 404, READER: 403, OTHER: 404}),
    ('GET', '/os-floating-ips', None, '2.36', _all(404)),
    # The floating and fixed IP actions below 2.44: the server's members
    # (an unknown floating IP: 404, before the policy for the removal,
    # whose target is the server it is on; a network or address the
    # server cannot use: 400).
    ('POST', '/servers/{server}/action',
     {'addFloatingIp': {'address': '192.0.2.1'}}, '2.43',
     {ADMIN: 404, MEMBER: 404, READER: 403, OTHER: 404}),
    ('POST', '/servers/{server}/action',
     {'removeFloatingIp': {'address': '192.0.2.1'}}, '2.1', _all(404)),
    ('POST', '/servers/{server}/action',
     {'addFixedIp': {'networkId': 'no-such-network'}}, '2.1',
     {ADMIN: 400, MEMBER: 400, READER: 403, OTHER: 404}),
    ('POST', '/servers/{server}/action',
     {'removeFixedIp': {'address': '192.0.2.1'}}, '2.43',
     {ADMIN: 400, MEMBER: 400, READER: 403, OTHER: 404}),
    ('POST', '/servers/{server}/action',
     {'removeFixedIp': {'address': '192.0.2.1'}}, '2.44', _all(404)),
    # The volume proxies below 2.36: readers list and show, members
    # create and delete (their own project's; unknown ones: 404).
    ('GET', '/os-volumes', None, '2.1', _all(200)),
    ('GET', '/os-volumes/detail', None, '2.35', _all(200)),
    ('GET', '/os-volumes/' + MISSING_UUID, None, '2.1', _all(404)),
    ('POST', '/os-volumes', {'volume': {'size': 1}}, '2.1',
     {ADMIN: 200, MEMBER: 200, READER: 403, OTHER: 200}),
    ('DELETE', '/os-volumes/' + MISSING_UUID, None, '2.35',
     {ADMIN: 404, MEMBER: 404, READER: 403, OTHER: 404}),
    ('GET', '/os-snapshots', None, '2.35', _all(200)),
    ('GET', '/os-snapshots/detail', None, '2.1', _all(200)),
    ('GET', '/os-snapshots/' + MISSING_UUID, None, '2.1', _all(404)),
    ('POST', '/os-snapshots', {'snapshot': {'volume_id': MISSING_UUID}},
     '2.1', {ADMIN: 404, MEMBER: 404, READER: 403, OTHER: 404}),
    ('DELETE', '/os-snapshots/' + MISSING_UUID, None, '2.1',
     {ADMIN: 404, MEMBER: 404, READER: 403, OTHER: 404}),
    ('GET', '/os-volumes', None, '2.36', _all(404)),
    # The security-group proxy below 2.36: readers of a project read,
    # members write (their own project's groups; unknown ones: 404).
    ('GET', '/os-security-groups', None, '2.35', _all(200)),
    ('POST', '/os-security-groups', {'security_group': {'name': 'pt-sg'}},
     '2.1', {ADMIN: 200, MEMBER: 200, READER: 403, OTHER: 200}),
    ('GET', '/os-security-groups/' + MISSING_UUID, None, '2.1', _all(404)),
    ('PUT', '/os-security-groups/' + MISSING_UUID,
     {'security_group': {'name': 'pt-sg2'}}, '2.35',
     {ADMIN: 404, MEMBER: 404, READER: 403, OTHER: 404}),
    ('DELETE', '/os-security-groups/' + MISSING_UUID, None, '2.1',
     {ADMIN: 404, MEMBER: 404, READER: 403, OTHER: 404}),
    ('POST', '/os-security-group-rules', {'security_group_rule': {
        'parent_group_id': MISSING_UUID, 'ip_protocol': 'tcp',
        'from_port': 1, 'to_port': 2}}, '2.1',
     {ADMIN: 404, MEMBER: 404, READER: 403, OTHER: 404}),
    ('DELETE', '/os-security-group-rules/' + MISSING_UUID, None, '2.35',
     {ADMIN: 404, MEMBER: 404, READER: 403, OTHER: 404}),
    # Gone (410 for everyone at every version, before any policy):
    # nova-network's APIs, cells v1, cloudpipe, agents, certificates
    # and default security-group rules (as Nova 34).
    ('GET', '/os-security-group-default-rules', None, '2.1', _all(410)),
    ('GET', '/os-security-group-default-rules', None, '2.36', _all(410)),
    ('POST', '/os-security-group-default-rules', {}, '2.1', _all(410)),
    ('POST', '/os-security-group-default-rules', {}, '2.36', _all(410)),
    ('GET', '/os-security-group-default-rules/x1', None, '2.1', _all(410)),
    ('GET', '/os-security-group-default-rules/x1', None, '2.36', _all(410)),
    ('DELETE', '/os-security-group-default-rules/x1', None, '2.1', _all(410)),
    ('DELETE', '/os-security-group-default-rules/x1', None, '2.36', _all(410)),
    ('POST', '/os-networks', {}, '2.1', _all(410)),
    ('POST', '/os-networks', {}, '2.36', _all(410)),
    ('POST', '/os-networks/add', {}, '2.1', _all(410)),
    ('POST', '/os-networks/add', {}, '2.36', _all(410)),
    ('DELETE', '/os-networks/x1', None, '2.1', _all(410)),
    ('DELETE', '/os-networks/x1', None, '2.36', _all(410)),
    ('POST', '/os-tenant-networks', {}, '2.1', _all(410)),
    ('POST', '/os-tenant-networks', {}, '2.36', _all(410)),
    ('DELETE', '/os-tenant-networks/x1', None, '2.1', _all(410)),
    ('DELETE', '/os-tenant-networks/x1', None, '2.36', _all(410)),
    ('GET', '/os-fixed-ips/x1', None, '2.1', _all(410)),
    ('GET', '/os-fixed-ips/x1', None, '2.36', _all(410)),
    ('GET', '/os-floating-ips-bulk', None, '2.1', _all(410)),
    ('GET', '/os-floating-ips-bulk', None, '2.36', _all(410)),
    ('POST', '/os-floating-ips-bulk', {}, '2.1', _all(410)),
    ('POST', '/os-floating-ips-bulk', {}, '2.36', _all(410)),
    ('GET', '/os-floating-ips-bulk/x1', None, '2.1', _all(410)),
    ('GET', '/os-floating-ips-bulk/x1', None, '2.36', _all(410)),
    ('PUT', '/os-floating-ips-bulk/x1', {}, '2.1', _all(410)),
    ('PUT', '/os-floating-ips-bulk/x1', {}, '2.36', _all(410)),
    ('GET', '/os-floating-ip-dns', None, '2.1', _all(410)),
    ('GET', '/os-floating-ip-dns', None, '2.36', _all(410)),
    ('PUT', '/os-floating-ip-dns/x1', {}, '2.1', _all(410)),
    ('PUT', '/os-floating-ip-dns/x1', {}, '2.36', _all(410)),
    ('DELETE', '/os-floating-ip-dns/x1', None, '2.1', _all(410)),
    ('DELETE', '/os-floating-ip-dns/x1', None, '2.36', _all(410)),
    ('GET', '/os-floating-ip-dns/x1/entries/x1', None, '2.1', _all(410)),
    ('GET', '/os-floating-ip-dns/x1/entries/x1', None, '2.36', _all(410)),
    ('PUT', '/os-floating-ip-dns/x1/entries/x1', {}, '2.1', _all(410)),
    ('PUT', '/os-floating-ip-dns/x1/entries/x1', {}, '2.36', _all(410)),
    ('DELETE', '/os-floating-ip-dns/x1/entries/x1', None, '2.1', _all(410)),
    ('DELETE', '/os-floating-ip-dns/x1/entries/x1', None, '2.36', _all(410)),
    ('GET', '/os-fping', None, '2.1', _all(410)),
    ('GET', '/os-fping', None, '2.36', _all(410)),
    ('GET', '/os-fping/x1', None, '2.1', _all(410)),
    ('GET', '/os-fping/x1', None, '2.36', _all(410)),
    ('GET', '/os-cells', None, '2.1', _all(410)),
    ('GET', '/os-cells', None, '2.36', _all(410)),
    ('POST', '/os-cells', {}, '2.1', _all(410)),
    ('POST', '/os-cells', {}, '2.36', _all(410)),
    ('GET', '/os-cells/x1', None, '2.1', _all(410)),
    ('GET', '/os-cells/x1', None, '2.36', _all(410)),
    ('PUT', '/os-cells/x1', {}, '2.1', _all(410)),
    ('PUT', '/os-cells/x1', {}, '2.36', _all(410)),
    ('DELETE', '/os-cells/x1', None, '2.1', _all(410)),
    ('DELETE', '/os-cells/x1', None, '2.36', _all(410)),
    ('GET', '/os-cells/x1/capacities', None, '2.1', _all(410)),
    ('GET', '/os-cells/x1/capacities', None, '2.36', _all(410)),
    ('GET', '/os-cells/sync_instances', None, '2.1', _all(410)),
    ('GET', '/os-cells/sync_instances', None, '2.36', _all(410)),
    ('POST', '/os-cells/sync_instances', {}, '2.1', _all(410)),
    ('POST', '/os-cells/sync_instances', {}, '2.36', _all(410)),
    ('PUT', '/os-cells/sync_instances', {}, '2.1', _all(410)),
    ('PUT', '/os-cells/sync_instances', {}, '2.36', _all(410)),
    ('DELETE', '/os-cells/sync_instances', None, '2.1', _all(410)),
    ('DELETE', '/os-cells/sync_instances', None, '2.36', _all(410)),
    ('GET', '/os-cloudpipe', None, '2.1', _all(410)),
    ('GET', '/os-cloudpipe', None, '2.36', _all(410)),
    ('POST', '/os-cloudpipe', {}, '2.1', _all(410)),
    ('POST', '/os-cloudpipe', {}, '2.36', _all(410)),
    ('PUT', '/os-cloudpipe/configure-project', {}, '2.1', _all(410)),
    ('PUT', '/os-cloudpipe/configure-project', {}, '2.36', _all(410)),
    ('GET', '/os-agents', None, '2.1', _all(410)),
    ('GET', '/os-agents', None, '2.36', _all(410)),
    ('POST', '/os-agents', {}, '2.1', _all(410)),
    ('POST', '/os-agents', {}, '2.36', _all(410)),
    ('PUT', '/os-agents/x1', {}, '2.1', _all(410)),
    ('PUT', '/os-agents/x1', {}, '2.36', _all(410)),
    ('DELETE', '/os-agents/x1', None, '2.1', _all(410)),
    ('DELETE', '/os-agents/x1', None, '2.36', _all(410)),
    ('POST', '/os-certificates', {}, '2.1', _all(410)),
    ('POST', '/os-certificates', {}, '2.36', _all(410)),
    ('GET', '/os-certificates/x1', None, '2.1', _all(410)),
    ('GET', '/os-certificates/x1', None, '2.36', _all(410)),
    ('GET', '/servers/{server}/os-virtual-interfaces', None, '2.1',
     _all(410)),
    ('GET', '/servers/{server}/os-virtual-interfaces', None, '2.44',
     _all(410)),
    ('POST', '/servers/{server}/consoles', {}, '2.1', _all(410)),
    ('GET', '/os-cells/detail', None, '2.1', _all(410)),
    ('PUT', '/os-cloudpipe/x1', {}, '2.1', _all(410)),
    ('POST', '/os-networks/x1/action', {'disassociate': None},
     '2.1', _all(410)),
    ('POST', '/os-networks/x1/action', {'disassociate_host': None},
     '2.1', _all(410)),
    ('POST', '/os-networks/x1/action', {'disassociate_project': None},
     '2.1', _all(410)),
    ('POST', '/os-networks/x1/action', {'associate_host': None},
     '2.1', _all(410)),
    ('POST', '/os-fixed-ips/x1/action', {'reserve': None}, '2.1', _all(410)),
    ('POST', '/os-fixed-ips/x1/action', {'unreserve': None}, '2.1', _all(410)),
]

# What a project's manager (project-a) gets: the rules Nova 34 gives
# managers, and those it does not.
MANAGER_ROWS = [
    ('GET', '/os-migrations', None, '2.80', {MANAGER: 403}),
    ('GET', '/os-migrations?project_id=project-a', None, '2.80',
     {MANAGER: 200}),
    ('GET', '/os-migrations?project_id=project-b', None, '2.80',
     {MANAGER: 403}),
    ('GET', '/servers/{server}/migrations', None, '2.23', {MANAGER: 200}),
    ('GET', '/servers/{server}/migrations/1', None, '2.23', {MANAGER: 403}),
    # Cold migration: a project's managers may ask (the server in error
    # then refuses: 409); naming the host stays for administrators.
    ('POST', '/servers/{error_server}/action', {'migrate': None}, '2.1',
     {MANAGER: 409}),
    ('POST', '/servers/{error_server}/action',
     {'migrate': {'host': 'c1-host1'}}, '2.56', {MANAGER: 403}),
    # Evacuate stays for administrators.
    ('POST', '/servers/{error_server}/action',
     {'evacuate': {'host': 'nosuch'}}, '2.14', {MANAGER: 403}),
    # Live migration, its force-complete and abort: the same.
    ('POST', '/servers/{error_server}/action',
     {'os-migrateLive': {'host': None, 'block_migration': 'auto'}},
     '2.25', {MANAGER: 409}),
    ('POST', '/servers/{error_server}/action',
     {'os-migrateLive': {'host': '{host}', 'block_migration': 'auto'}},
     '2.25', {MANAGER: 403}),
    ('POST', '/servers/{server}/migrations/1/action',
     {'force_complete': None}, '2.22', {MANAGER: 409}),
    ('DELETE', '/servers/{server}/migrations/1', None, '2.24',
     {MANAGER: 409}),
]

# The access-list reads as Nova 34 answers them with its own default
# (administrators only, checked before the flavor is looked up), for
# replaying against real Nova 34; ROWS holds ours.
NOVA34_ACCESS_ROWS = [
    ('GET', PRIVATE + '/os-flavor-access', None, '2.1', _admin_only(200)),
    ('GET', PUBLIC + '/os-flavor-access', None, '2.1', _admin_only(404)),
    ('GET', '/flavors/no-such-flavor/os-flavor-access', None, '2.1',
     _admin_only(404)),
]

# With [oslo_policy] enforce_new_defaults = False the deprecated defaults
# (admin or owner) are ORed in, which changes no answer of ours: a project
# may read the access list of a private flavor it may use, and a flavor it
# may not use is a 404. Nova 34 answers these rows the same way.
LEGACY_ROWS = [
    ('GET', PRIVATE + '/os-flavor-access', None, '2.1', _PRIVATE_READ),
    ('GET', PUBLIC + '/os-flavor-access', None, '2.1', _all(404)),
    ('POST', PRIVATE + '/action',
     {'addTenantAccess': {'tenant': 'project-c'}}, '2.7', _admin_only(200)),
    ('GET', '/os-services', None, '2.1', _admin_only(200)),
    ('GET', '/os-hypervisors', None, '2.1', _admin_only(200)),
]


def expand(value, names):
    """value with {placeholders} of strings, lists and dicts filled in."""
    if isinstance(value, str):
        return value.format(**names)
    if isinstance(value, dict):
        return {expand(k, names): expand(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [expand(v, names) for v in value]
    return value


def mismatches(rows, call):
    """Run rows with call(persona, method, path, body, version) -> status;
    return [(persona, method, path, version, expected, got)] that differ."""
    found = []
    for method, path, body, version, expected in rows:
        for persona in (MANAGER,) + ORDER:
            if persona not in expected:
                continue
            got = call(persona, method, path, body, version)
            if got != expected[persona]:
                found.append((persona, method, path, version,
                              expected[persona], got))
    return found
