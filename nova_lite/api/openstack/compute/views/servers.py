"""Server response bodies at every microversion from 2.1 to 2.88.

Bodies render from server records (the read model,
nova_lite.compute.api.server_records.ServerRecord: its docstring says what
each field holds), never from ORM rows, dicts or objects. A
Builder settles once per request what depends on the microversion and
on policy (extended attributes, host_status, the flavor's extra specs),
so rendering a page is one loop over records with no policy check and
no query per server.

What each microversion changes is tabled in doc/api_version_history.rst.
"""
import hashlib
import itertools
from urllib import parse

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.views import common
from nova_lite.compute.api import servers as compute_servers

COLLECTION = 'servers'

# vm_state -> {task_state: status}, 'default' for any other task state.
_RESIZING = {'resize_prep': 'RESIZE', 'resize_migrating': 'RESIZE',
             'resize_migrated': 'RESIZE', 'resize_finish': 'RESIZE'}
_REBUILDING = {'rebuilding': 'REBUILD',
               'rebuild_block_device_mapping': 'REBUILD',
               'rebuild_spawning': 'REBUILD'}
STATE_MAP = {
    'active': dict(
        default='ACTIVE', rebooting='REBOOT', reboot_pending='REBOOT',
        reboot_started='REBOOT', rebooting_hard='HARD_REBOOT',
        reboot_pending_hard='HARD_REBOOT',
        reboot_started_hard='HARD_REBOOT', updating_password='PASSWORD',
        migrating='MIGRATING', **_REBUILDING, **_RESIZING),
    'building': {'default': 'BUILD'},
    'stopped': dict(default='SHUTOFF', **_RESIZING, **_REBUILDING),
    'resized': {'default': 'VERIFY_RESIZE',
                'resize_reverting': 'REVERT_RESIZE'},
    'paused': {'default': 'PAUSED', 'migrating': 'MIGRATING'},
    'suspended': {'default': 'SUSPENDED'},
    'rescued': {'default': 'RESCUE'},
    'error': dict(default='ERROR', **_REBUILDING),
    'deleted': {'default': 'DELETED'},
    'soft-delete': {'default': 'SOFT_DELETED'},
    'shelved': {'default': 'SHELVED'},
    'shelved_offloaded': {'default': 'SHELVED_OFFLOADED'},
}
_UNKNOWN = {'default': 'UNKNOWN'}
_FAULT_STATUSES = ('ERROR', 'DELETED')
_PROGRESS_STATUSES = ('ACTIVE', 'BUILD', 'REBUILD', 'RESIZE',
                      'VERIFY_RESIZE', 'MIGRATING')
# Host status values (Nova's HostStatus); '' when the server has no host.
HOST_UP, HOST_DOWN, HOST_MAINTENANCE, HOST_UNKNOWN, HOST_NONE = (
    'UP', 'DOWN', 'MAINTENANCE', 'UNKNOWN', '')


def status(vm_state, task_state):
    """The Compute API status of a (vm_state, task_state) pair."""
    tasks = STATE_MAP.get(vm_state, _UNKNOWN)
    return tasks.get(task_state, tasks['default'])


def states_of_statuses(statuses):
    """(vm_states, task_states) whose status is one of statuses (case
    insensitive); task_states holds 'default' when any task state
    matches. Both empty if no status is known."""
    wanted = {s.lower() for s in statuses}
    vm_states, task_states = set(), set()
    for vm_state, tasks in STATE_MAP.items():
        for task_state, name in tasks.items():
            if name.lower() in wanted:
                vm_states.add(vm_state)
                task_states.add(task_state)
    return sorted(vm_states), sorted(task_states)


def host_id(project_id, host):
    """hostId: an opaque per-project digest of the host ('' if none)."""
    if not host:
        return ''
    return hashlib.sha224(((project_id or '') + host).encode()).hexdigest()


def _zulu(value):
    """created/updated: second precision with a Z, as the reference."""
    if not value:
        return None
    # isoformat: the same text as strftime, several times faster.
    return value.replace(tzinfo=None).isoformat(timespec='seconds') + 'Z'


def addresses(network_info, extended):
    """{network label: [{version, addr[, OS-EXT-IPS:type,
    OS-EXT-IPS-MAC:mac_addr]}]} from an info cache, fixed then floating
    addresses per port, ports in order."""
    result = {}
    for vif in network_info or ():
        network = vif.get('network') or {}
        label = network.get('label')
        if label is None:
            continue
        ips = result.setdefault(label, [])
        mac = vif.get('address')
        for subnet in network.get('subnets') or ():
            for ip in subnet.get('ips') or ():
                floating = ip.get('floating_ips') or ()
                for addr, kind in itertools.chain(
                        [(ip, ip.get('type', 'fixed'))],
                        ((f, 'floating') for f in floating)):
                    body = {'version': addr.get('version', ip.get(
                        'version', 4)), 'addr': addr['address']}
                    if extended:
                        body['OS-EXT-IPS:type'] = kind
                        body['OS-EXT-IPS-MAC:mac_addr'] = mac
                    ips.append(body)
    return result


class Builder(object):
    """Renders server records for one request.

    application_url: the API's URL including /v2.1 (bookmarks leave the
    version out). The keyword flags are what policy allowed the caller,
    decided once per request by the controller:
      extended_attrs: OS-EXT-SRV-ATTR:* fields;
      host_status: 'all', 'unknown' (only when UNKNOWN) or None;
      extra_specs: the 2.47 flavor's extra_specs;
      is_admin: fault details of 500 faults.
    """

    def __init__(self, application_url, version, extended_attrs=False,
                 host_status=None, extra_specs=False, is_admin=False,
                 default_zone='nova'):
        base = application_url.rstrip('/')
        self.href = '%s/%s/' % (base, COLLECTION)
        root = common.unversioned(base)
        self.bookmark = '%s/%s/' % (root, COLLECTION)
        self.flavor_bookmark = '%s/flavors/' % root
        self.image_bookmark = '%s/images/' % root
        self.version = version
        self.extended_attrs = extended_attrs
        self.host_status = (host_status if version >= av.SERVER_HOST_STATUS
                            else None)
        self.extra_specs = extra_specs
        self.is_admin = is_admin
        self.default_zone = default_zone
        self.embedded_flavor = version >= av.SERVER_EMBEDDED_FLAVOR
        self.down_cells = version >= av.SERVER_DOWN_CELLS
        # Settled once: a page renders a thousand servers.
        self.has = {name: version >= getattr(av, name) for name in (
            'SERVER_EXTENDED_ATTRS_V23', 'SERVER_LOCKED',
            'SERVER_DESCRIPTION', 'SERVER_TAGS', 'SERVER_TRUSTED_CERTS',
            'SERVER_GROUPS_IN_BODY', 'SERVER_LOCKED_REASON',
            'STRICT_QUERY_EMPTY_SERVERS', 'SERVER_HOSTNAME',
            'SERVER_PINNED_AZ', 'SERVER_IMAGE_PROPERTIES')}

    # --- pieces ---------------------------------------------------------

    def links(self, uuid):
        return [{'rel': 'self', 'href': self.href + uuid},
                {'rel': 'bookmark', 'href': self.bookmark + uuid}]

    def image(self, image_ref, system_metadata=None):
        """{id, links} ('' for a volume-backed server), with the image's
        properties the server keeps from 2.98 (system_metadata given)."""
        if not image_ref:
            return ''
        image_id = image_ref.rstrip('/').rsplit('/', 1)[-1]
        body = {'id': image_id, 'links': [
            {'rel': 'bookmark', 'href': self.image_bookmark + image_id}]}
        if system_metadata is not None:
            body['properties'] = compute_servers.image_properties(
                system_metadata)
        return body

    def flavor(self, flavor):
        """{id, links} below 2.47; the instance's own copy from 2.47."""
        flavor = flavor or {}
        if not self.embedded_flavor:
            flavorid = str(flavor.get('flavorid', ''))
            return {'id': flavorid, 'links': [
                {'rel': 'bookmark',
                 'href': self.flavor_bookmark + parse.quote(flavorid,
                                                            safe='')}]}
        body = {'vcpus': flavor.get('vcpus'), 'ram': flavor.get('memory_mb'),
                'disk': flavor.get('root_gb'),
                'ephemeral': flavor.get('ephemeral_gb'),
                'swap': flavor.get('swap'),
                'original_name': flavor.get('name')}
        if self.extra_specs:
            body['extra_specs'] = dict(flavor.get('extra_specs') or {})
        return body

    def fault(self, fault):
        body = {'code': fault['code'], 'created': _zulu(fault['created_at']),
                'message': fault['message']}
        if fault.get('details') and (self.is_admin or fault['code'] != 500):
            body['details'] = fault['details']
        return body

    def _zone(self, rec):
        if rec.host:
            return rec.availability_zone or self.default_zone
        return rec.availability_zone or ''

    # --- bodies -----------------------------------------------------------

    def summary(self, rec):
        """A server in GET /servers."""
        if rec.cell_down and self.down_cells:
            return {'id': rec.uuid, 'status': 'UNKNOWN',
                    'links': self.links(rec.uuid)}
        return {'id': rec.uuid, 'name': rec.display_name,
                'links': self.links(rec.uuid)}

    def down_cell(self, rec, shown=False):
        """The 2.69 minimal construct of a server whose cell did not
        answer; show (shown=True) adds what the API DB knows."""
        uuid = rec.uuid
        body = {'id': uuid, 'status': 'UNKNOWN',
                'tenant_id': rec.project_id,
                'created': _zulu(rec.created_at),
                'links': self.links(uuid)}
        if shown:
            if rec.flavor:
                body['flavor'] = self.flavor(rec.flavor)
            body['image'] = self.image(rec.image_ref)
            body['OS-EXT-AZ:availability_zone'] = (
                rec.availability_zone or 'UNKNOWN')
            body['OS-EXT-STS:power_state'] = rec.power_state or 0
            body['user_id'] = rec.user_id or 'UNKNOWN'
            if self.has['SERVER_GROUPS_IN_BODY']:
                body['server_groups'] = []
        return body

    def detail(self, rec, full=True, server_groups=False):
        """The body of one server.

        full: everything GET /servers/{id} shows (False: what PUT showed
        before 2.75, without the extension fields); server_groups: the
        2.71 list (show and update, not detail lists).
        """
        if rec.cell_down and self.down_cells:
            return self.down_cell(rec, shown=server_groups)
        has = self.has
        uuid = rec.uuid
        project_id = rec.project_id
        state = status(rec.vm_state, rec.task_state)
        building = rec.vm_state == 'building'
        body = {
            'id': uuid,
            'name': rec.display_name,
            'status': state,
            'tenant_id': project_id or '',
            'user_id': rec.user_id or '',
            'metadata': dict(rec.metadata or {}),
            'hostId': host_id(project_id, rec.host),
            'image': self.image(rec.image_ref, (
                rec.system_metadata or {}
                if has['SERVER_IMAGE_PROPERTIES'] else None)),
            'flavor': self.flavor(rec.flavor),
            'created': _zulu(rec.created_at),
            'updated': _zulu(rec.updated_at or rec.created_at),
            # Addresses stay hidden while the server builds.
            'addresses': {} if building else addresses(
                rec.network_info, extended=full),
            'accessIPv4': rec.access_ip_v4 or '',
            'accessIPv6': rec.access_ip_v6 or '',
            'links': self.links(uuid),
            'OS-DCF:diskConfig': ('AUTO' if rec.auto_disk_config
                                  else 'MANUAL'),
        }
        if state in _FAULT_STATUSES and rec.fault:
            body['fault'] = self.fault(rec.fault)
        if state in _PROGRESS_STATUSES:
            body['progress'] = rec.progress or 0
        if full:
            self._extensions(body, rec)
        if has['SERVER_LOCKED']:
            body['locked'] = bool(rec.locked_by or rec.locked)
        if has['SERVER_LOCKED_REASON']:
            body['locked_reason'] = rec.system_metadata.get(
                'locked_reason')
        if has['SERVER_DESCRIPTION']:
            body['description'] = rec.display_description
        if has['SERVER_TAGS']:
            body['tags'] = list(rec.tags or [])
        if has['SERVER_TRUSTED_CERTS']:
            # Not stored (yet): none.
            body['trusted_image_certificates'] = None
        if server_groups and has['SERVER_GROUPS_IN_BODY']:
            # Filled by the controller (server_common.with_server_groups).
            body['server_groups'] = []
        if full and has['SERVER_PINNED_AZ']:
            # Filled by the controller from the request spec
            # (server_common.with_request_spec_fields).
            body['pinned_availability_zone'] = None
        return body

    def _extensions(self, body, rec):
        """The fields v2.0's extensions added (all of show and detail)."""
        body['OS-EXT-AZ:availability_zone'] = self._zone(rec)
        body['config_drive'] = rec.config_drive or ''
        body['key_name'] = rec.key_name
        body['OS-SRV-USG:launched_at'] = common.isotime(rec.launched_at)
        body['OS-SRV-USG:terminated_at'] = common.isotime(
            rec.terminated_at)
        if rec.security_groups:
            # The groups of the server's ports, as the network service
            # has them.
            body['security_groups'] = [{'name': g['name']}
                                       for g in rec.security_groups]
        if self.extended_attrs:
            body['OS-EXT-SRV-ATTR:host'] = rec.host
            body['OS-EXT-SRV-ATTR:instance_name'] = (
                'instance-%08x' % rec.id if rec.id else '')
            body['OS-EXT-SRV-ATTR:hypervisor_hostname'] = rec.node
            if self.has['SERVER_EXTENDED_ATTRS_V23']:
                body.update({
                    'OS-EXT-SRV-ATTR:reservation_id':
                        rec.reservation_id,
                    'OS-EXT-SRV-ATTR:launch_index':
                        rec.launch_index or 0,
                    'OS-EXT-SRV-ATTR:hostname': rec.hostname or '',
                    # Images carry no kernel or ramdisk (yet).
                    'OS-EXT-SRV-ATTR:kernel_id': '',
                    'OS-EXT-SRV-ATTR:ramdisk_id': '',
                    'OS-EXT-SRV-ATTR:root_device_name':
                        rec.root_device_name,
                    'OS-EXT-SRV-ATTR:user_data': rec.user_data,
                })
        elif self.has['SERVER_HOSTNAME']:
            # 2.90: everyone who sees the server sees its hostname.
            body['OS-EXT-SRV-ATTR:hostname'] = rec.hostname or ''
        body['OS-EXT-STS:task_state'] = rec.task_state
        body['OS-EXT-STS:vm_state'] = rec.vm_state
        body['OS-EXT-STS:power_state'] = rec.power_state or 0
        with_delete = self.has['SERVER_EXTENDED_ATTRS_V23']
        volumes = []
        for bdm in rec.volumes or ():
            volume = {'id': bdm['volume_id']}
            if with_delete:
                volume['delete_on_termination'] = bool(
                    bdm.get('delete_on_termination'))
            volumes.append(volume)
        body['os-extended-volumes:volumes_attached'] = volumes
        if self.host_status is not None:
            value = rec.host_status
            if self.host_status == 'all' or value == HOST_UNKNOWN:
                body['host_status'] = value

    # --- responses --------------------------------------------------------

    def show(self, rec):
        """GET /servers/{id}."""
        return {'server': self.detail(rec, server_groups=True)}

    def updated(self, rec):
        """PUT /servers/{id}: the full show body from 2.75; before, the
        body without the extension fields (nor host_status)."""
        full = self.has['STRICT_QUERY_EMPTY_SERVERS']
        if not full:
            self.extended_attrs, self.host_status = False, None
        return {'server': self.detail(rec, full=full, server_groups=True)}

    def rebuilt(self, rec, admin_pass=None):
        """POST /servers/{id}/action rebuild (202): the body PUT answers
        (the full show body from 2.75, OS-DCF:diskConfig as the rebuild
        left it), with key_name from 2.54, user_data from 2.57 and
        adminPass when given."""
        body = self.updated(rec)
        server = body['server']
        # As Nova: a rebuild's user_data is the top-level key (2.57), never
        # the extended attribute show has.
        server.pop('OS-EXT-SRV-ATTR:user_data', None)
        if self.version >= av.SERVER_REBUILD_KEY_NAME:
            server['key_name'] = rec.key_name
        if self.version >= av.SERVER_REBUILD_USER_DATA:
            server['user_data'] = rec.user_data
        if admin_pass is not None:
            server['adminPass'] = admin_pass
        return body

    def created(self, uuid, admin_pass=None, disk_config='MANUAL',
                security_groups=None):
        """POST /servers (202)."""
        body = {'id': uuid, 'links': self.links(uuid),
                'OS-DCF:diskConfig': disk_config,
                'security_groups': security_groups or [{'name': 'default'}]}
        if admin_pass is not None:
            body['adminPass'] = admin_pass
        return {'server': body}

    def index(self, records, detailed, limit, params):
        """{'servers': [...]} with 'servers_links' (next) when the page
        is full. params: the request's query as (name, value) pairs, kept
        in the next link with the marker replaced."""
        if detailed:
            servers = [self.detail(r) for r in records]
        else:
            servers = [self.summary(r) for r in records]
        body = {'servers': servers}
        if limit and len(records) == limit:
            query = [(k, v) for k, v in params if k != 'marker']
            query.append(('marker', records[-1].uuid))
            url = self.href + 'detail' if detailed else self.href[:-1]
            body['servers_links'] = [{
                'rel': 'next',
                'href': '%s?%s' % (url, parse.urlencode(query))}]
        return body

    @staticmethod
    def ips(rec):
        """GET /servers/{id}/ips."""
        return {'addresses': addresses(rec.network_info,
                                       extended=False)}

    @staticmethod
    def ips_of_network(rec, label):
        """GET /servers/{id}/ips/{label}; None if not on that network."""
        found = addresses(rec.network_info, extended=False)
        if label not in found:
            return None
        return {label: found[label]}
