"""The server read model: what one server looks like to the REST layer
(ServerRecord; its docstring is the contract), and the one module of the
compute API that reads the rows it is built from -- a cell's instance
row with its related rows, a build request (a server not yet in a
cell), the instance mapping of a server whose cell does not answer --
and orders and filters them outside SQL (build requests live in the
API DB as serialized instances; ip filters are regular expressions).

Listing and show (nova_lite.compute.api.server_listing) read *rows* here
(plain dicts: instance columns plus what hangs off them, as
nova_lite.db.main.instances reads them), merge and page them across
cells, and turn each row of the answer into a ServerRecord with
record(): one builder, one set of fields, whatever the row's source.
Records are read-only views: the compute API writes through Instance
objects, except PUT /servers/{id}'s column update (update_in_cell,
update_build_request), which writes the row and reads it back here.
"""
import dataclasses
import datetime
import operator
import re
import typing

from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import timeutils

from nova_lite import constants
from nova_lite.db.api import server_listing as api_rows
from nova_lite.db.main import api as main_db
from nova_lite.db.main import instance_pages as cell_pages
from nova_lite.db.main import instance_volumes
from nova_lite.db.main import instances as cell_rows
from nova_lite import exception
from nova_lite import objects

LOG = logging.getLogger(__name__)

DEFAULT_SORT_KEYS = ('created_at', 'uuid')
# Keys a list can be sorted by: instance columns.
SORTABLE = frozenset(cell_rows.COLUMNS)
# Columns filtered by regular expression.
REGEX_FILTERS = cell_pages.REGEX_FILTERS
# Host status of a server's compute (Nova's HostStatus values).
HOST_UP, HOST_DOWN, HOST_MAINTENANCE, HOST_UNKNOWN, HOST_NONE = (
    'UP', 'DOWN', 'MAINTENANCE', 'UNKNOWN', '')
_OBJ_DATA = 'nova_lite_object.data'
_DATETIMES = ('created_at', 'updated_at', 'deleted_at', 'launched_at',
              'terminated_at')

Opt = typing.Optional
Json = typing.Dict[str, typing.Any]


@dataclasses.dataclass(slots=True)
class ServerRecord:
    """One server as the REST layer reads it (the read model).

    Built only by record() below, from a cell's instance row, a build
    request or the instance mapping of a server whose cell did not
    answer. Views render from these fields alone; a field the body of
    some microversion needs is added here (and to the test that pins
    this list: tests/unit/test_server_record.py).

    Identity and ownership:
      uuid: the server's id.
      id: the instance row's id in its cell (instance-%08x); None for a
        build request or a server whose cell is down.
      project_id, user_id: owner (None where unknown).
    Names:
      display_name, display_description: name and description.
      hostname: the guest's host name (None before scheduling).
    State:
      vm_state, task_state: Nova's states (status is derived from them).
      power_state: the hypervisor's power state (an int; 0 unknown).
      progress: percent of a build or move (None: 0).
      locked: locked against non-admin actions; locked_by: 'owner' or
        'admin' (who locked it), or None.
    Placement:
      host, node: the compute host and hypervisor node (None before
        scheduling).
      availability_zone: the zone asked for or landed in (None: the
        default zone once scheduled).
    What it was booted with:
      image_ref: the image id ('' or None when booted from a volume).
      flavor: the instance's own flavor copy, flat: id, flavorid, name,
        memory_mb, vcpus, root_gb, ephemeral_gb, swap, extra_specs (a
        dict); None if unknown.
      key_name, user_data, config_drive, root_device_name,
      reservation_id, launch_index: as given or settled at boot.
    Network:
      access_ip_v4, access_ip_v6: the user-set access addresses.
    Disk:
      auto_disk_config: OS-DCF:diskConfig AUTO (True) or MANUAL (False
        or None).
      network_info: the info cache, a list of VIFs (dicts: id, address
        (MAC), network: {id, label, subnets: [{cidr, ips: [{address,
        version, type, floating_ips}]}]}).
    Times (naive UTC datetimes or None):
      created_at, updated_at, launched_at, terminated_at.
    Related rows:
      metadata, system_metadata: {key: value} (str to str).
      tags: sorted list of str.
      fault: the newest fault of a server in error, {code, message,
        details, host, created_at}, else None.
      volumes: attached volumes in boot order, [{volume_id,
        delete_on_termination}] (filled for show and detail lists only;
        [] otherwise).
      security_groups: the security groups applied to the server's
        ports, [{id, name}] each once, by name (filled for show and
        detail lists only, by server_listing from the network service;
        [] otherwise and for a server without ports).
    Derived:
      host_status: UP, DOWN, MAINTENANCE, UNKNOWN or '' (HOST_*), of
        the server's compute; '' when it has none or it was not asked
        for.
      cell_down: the server's cell did not answer: only uuid,
        project_id, user_id and created_at are known (and on show,
        flavor, image_ref, availability_zone and power_state 0, from
        its request spec); every other field is empty.
      build_request: not yet in a cell (vm_state building, task state
        scheduling, no host).
    """
    uuid: str
    id: Opt[int]
    project_id: Opt[str]
    user_id: Opt[str]
    display_name: Opt[str]
    display_description: Opt[str]
    hostname: Opt[str]
    vm_state: Opt[str]
    task_state: Opt[str]
    power_state: Opt[int]
    progress: Opt[int]
    locked: bool
    locked_by: Opt[str]
    host: Opt[str]
    node: Opt[str]
    availability_zone: Opt[str]
    image_ref: Opt[str]
    flavor: Opt[Json]
    key_name: Opt[str]
    user_data: Opt[str]
    config_drive: Opt[str]
    root_device_name: Opt[str]
    reservation_id: Opt[str]
    launch_index: Opt[int]
    access_ip_v4: Opt[str]
    access_ip_v6: Opt[str]
    auto_disk_config: Opt[bool]
    network_info: typing.List[Json]
    created_at: Opt[datetime.datetime]
    updated_at: Opt[datetime.datetime]
    launched_at: Opt[datetime.datetime]
    terminated_at: Opt[datetime.datetime]
    metadata: typing.Dict[str, str]
    system_metadata: typing.Dict[str, str]
    tags: typing.List[str]
    fault: Opt[Json]
    volumes: typing.List[Json]
    security_groups: typing.List[Json]
    host_status: str
    cell_down: bool
    build_request: bool


# The fields' values of a row that has every one, in order.
_VALUES = operator.itemgetter(
    *[f.name for f in dataclasses.fields(ServerRecord)])


def record(row):
    """The ServerRecord of a row (cell_record, build_request_record or
    down_record's dict, with what a listing or show filled in). A row
    with every field (cell_record and build_request_record make them
    so, with values of the fields' types) is taken as it is: a page
    builds hundreds of records; a partial one (down_record, or a row
    from elsewhere) gets empty values of the fields' types."""
    try:
        return ServerRecord(*_VALUES(row))
    except KeyError:
        pass
    get = row.get
    return ServerRecord(
        uuid=row['uuid'], id=get('id'), project_id=get('project_id'),
        user_id=get('user_id'), display_name=get('display_name'),
        display_description=get('display_description'),
        hostname=get('hostname'), vm_state=get('vm_state'),
        task_state=get('task_state'), power_state=get('power_state'),
        progress=get('progress'), locked=bool(get('locked')),
        locked_by=get('locked_by'), host=get('host'), node=get('node'),
        availability_zone=get('availability_zone'),
        image_ref=get('image_ref'), flavor=get('flavor'),
        key_name=get('key_name'), user_data=get('user_data'),
        config_drive=get('config_drive'),
        root_device_name=get('root_device_name'),
        reservation_id=get('reservation_id'),
        launch_index=get('launch_index'),
        access_ip_v4=get('access_ip_v4'), access_ip_v6=get('access_ip_v6'),
        auto_disk_config=get('auto_disk_config'),
        network_info=get('network_info') or [],
        created_at=get('created_at'), updated_at=get('updated_at'),
        launched_at=get('launched_at'), terminated_at=get('terminated_at'),
        metadata=get('metadata') or {},
        system_metadata=get('system_metadata') or {},
        tags=get('tags') or [], fault=get('fault'),
        volumes=get('volumes') or [],
        security_groups=get('security_groups') or [],
        host_status=get('host_status') or HOST_NONE,
        cell_down=bool(get('cell_down')),
        build_request=bool(get('build_request')))


# --- rows -------------------------------------------------------------------

def data(primitive):
    """The field values of a versioned object's primitive (or a dict)."""
    if isinstance(primitive, dict) and _OBJ_DATA in primitive:
        return primitive[_OBJ_DATA]
    return primitive


def flat_flavor(flavor):
    """The instance's current flavor copy as a flat dict (None if none),
    from a record's {"cur": primitive, ...} or an already flat dict."""
    if not flavor:
        return None
    if 'cur' in flavor or 'old' in flavor or 'new' in flavor:
        flavor = flavor.get('cur')
    flavor = data(flavor)
    return dict(flavor) if flavor else None


def naive(value):
    if isinstance(value, str):
        value = timeutils.parse_isotime(value)
    if isinstance(value, datetime.datetime) and value.tzinfo is not None:
        value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return value


def cell_record(rec):
    """A cell DB record as the REST layer reads it."""
    rec['flavor'] = flat_flavor(rec.get('flavor'))
    rec.setdefault('fault', None)
    rec.setdefault('tags', [])
    rec.setdefault('metadata', {})
    rec.setdefault('system_metadata', {})
    rec.setdefault('volumes', [])
    rec.setdefault('security_groups', [])
    rec.setdefault('host_status', HOST_NONE)
    rec['cell_down'] = False
    rec['build_request'] = False
    return rec


def build_request_record(row):
    """A build request row as a server record (vm_state building, task
    scheduling, no host), or None if its instance cannot be read."""
    try:
        inst = dict(data(jsonutils.loads(row['instance'] or '{}')) or {})
    except ValueError:
        LOG.warning('Build request of %s holds no readable instance; it '
                    'is not listed.', row['instance_uuid'])
        return None
    for key in _DATETIMES:
        inst[key] = naive(inst.get(key))
    rec = {key: inst.get(key) for key in cell_rows.COLUMNS}
    rec.update(
        uuid=row['instance_uuid'], project_id=row['project_id'],
        user_id=row['user_id'] or inst.get('user_id'),
        # The instance's own created_at: its cell copy will carry it.
        created_at=inst.get('created_at') or naive(row['created_at']),
        updated_at=inst.get('updated_at'), deleted_at=None, deleted=False,
        vm_state=inst.get('vm_state') or 'building',
        task_state=inst.get('task_state') or 'scheduling',
        host=None, node=None, hidden=False,
        locked=bool(inst.get('locked')),
        metadata=dict(inst.get('metadata') or {}),
        system_metadata=dict(inst.get('system_metadata') or {}),
        flavor=flat_flavor(inst.get('flavor')),
        network_info=[], fault=None,
        tags=[*(jsonutils.loads(row['tags']) if row.get('tags')
                else inst.get('tags') or [])],
        volumes=[], security_groups=[], host_status=HOST_NONE,
        cell_down=False, build_request=True)
    return rec


def down_record(mapping, spec=None):
    """The minimal record of a server whose cell did not answer: what
    the API DB knows (its mapping; with its request spec, the flavor,
    image and zone it asked for)."""
    rec = {'uuid': mapping['instance_uuid'],
           'project_id': mapping['project_id'],
           'user_id': mapping.get('user_id'),
           'created_at': naive(mapping.get('created_at')),
           'cell_down': True, 'build_request': False}
    if spec:
        fields = data(spec)
        rec['flavor'] = flat_flavor(fields.get('flavor'))
        image = fields.get('image') or {}
        rec['image_ref'] = image.get('id')
        rec['availability_zone'] = fields.get('availability_zone')
        rec['power_state'] = 0
    return rec


# --- ordering ------------------------------------------------------------

def sort_params(sort_keys, sort_dirs):
    """(keys, dirs) completed as the database does: one direction given
    applies to every key; created_at and uuid end every sort (in the
    first key's direction, desc by default). Fewer directions than keys:
    the rest take the first's; more: a 400."""
    keys = [*(sort_keys or ())]
    dirs = [*(sort_dirs or ())]
    if len(dirs) > max(len(keys), 1):
        raise exception.InvalidInput(
            reason='Sort direction size exceeds sort key size')
    default_dir = dirs[0] if dirs else 'desc'
    dirs += [default_dir] * (len(keys) - len(dirs))
    for key in DEFAULT_SORT_KEYS:
        if key not in keys:
            keys.append(key)
            dirs.append(default_dir)
    return keys, dirs[:len(keys)]


def comparator(keys, dirs):
    """cmp(a, b) of records in (keys, dirs) order, NULLs first when
    ascending (as the per-cell queries sort)."""
    def compare(a, b):
        for key, direction in zip(keys, dirs):
            x, y = a.get(key), b.get(key)
            if x == y:
                continue
            if x is None:
                result = -1
            elif y is None:
                result = 1
            else:
                try:
                    result = -1 if x < y else 1
                except TypeError:
                    result = -1 if str(x) < str(y) else 1
            return result if direction == 'asc' else -result
        return 0
    return compare


def after(rec, marker, compare):
    return compare(rec, marker) > 0


# --- build requests --------------------------------------------------------

def matches(rec, filters):
    """Whether a build request record passes the filters a cell query
    would apply (filters on what a build request cannot have exclude
    it)."""
    if filters.get('deleted') is True or filters.get('host') or \
            filters.get('node'):
        return False
    for key in ('project_id', 'user_id', 'image_ref', 'instance_type_id',
                'availability_zone', 'key_name', 'reservation_id'):
        if filters.get(key) is not None and rec.get(key) != filters[key]:
            return False
    if filters.get('uuid') is not None and rec['uuid'] not in set(
            filters['uuid']):
        return False
    if filters.get('vm_state') is not None and \
            rec['vm_state'] not in filters['vm_state']:
        return False
    if 'task_state' in filters and \
            rec['task_state'] not in filters['task_state']:
        return False
    searched = [('name', 'display_name')] + [(k, k) for k in REGEX_FILTERS]
    for key, column in searched:
        if filters.get(key) is None:
            continue
        value = rec.get(column)
        if isinstance(value, datetime.datetime):
            value = value.isoformat(' ')
        try:
            if value is None or not re.search(str(filters[key]),
                                              str(value)):
                return False
        except re.error:
            return False
    if filters.get('locked') is not None and \
            bool(rec.get('locked')) != bool(filters['locked']):
        return False
    changed = rec.get('updated_at') or rec.get('created_at')
    if filters.get('changes_since') is not None and (
            changed is None or changed < filters['changes_since']):
        return False
    if filters.get('changes_before') is not None and (
            changed is None or changed > filters['changes_before']):
        return False
    if filters.get('ip') or filters.get('ip6'):
        return False
    tags = set(rec.get('tags') or ())
    if filters.get('tags') and not set(filters['tags']) <= tags:
        return False
    if filters.get('tags_any') and not set(filters['tags_any']) & tags:
        return False
    if filters.get('not_tags') and set(filters['not_tags']) <= tags:
        return False
    if filters.get('not_tags_any') and set(filters['not_tags_any']) & tags:
        return False
    return True


# Filters a build request row answers in SQL: with only these, a page
# in the default order reads at most `limit` build requests.
_SQL_ONLY = frozenset(['project_id', 'uuid', 'deleted', 'hidden'])


def build_request_records(context, filters, keys=None, dirs=None,
                          limit=None, marker=None):
    """Build request records passing filters. In the default order
    (created_at, uuid descending) with no filter but project and uuids,
    only the first `limit` after marker (a record) are read."""
    newest = before = None
    if (limit is not None and list(keys or ()) == ['created_at', 'uuid']
            and list(dirs or ()) == ['desc', 'desc']
            and not filters.get('deleted')
            and set(k for k, v in filters.items()
                    if v is not None) <= _SQL_ONLY):
        newest = limit
        if marker is not None:
            if marker.get('created_at') is None:
                return []
            before = (naive(marker['created_at']), marker['uuid'])
    rows = api_rows.build_requests(
        context, project_id=filters.get('project_id'),
        uuids=filters.get('uuid'), newest=newest, before=before)
    records = (build_request_record(r) for r in rows)
    return [r for r in records if r is not None and matches(r, filters)]


# --- ip filters ------------------------------------------------------------

def _fixed_ips(rec):
    for vif in rec.get('network_info') or ():
        for subnet in (vif.get('network') or {}).get('subnets') or ():
            for ip in subnet.get('ips') or ():
                yield ip.get('version', 4), ip.get('address') or ''


def ip_matcher(filters):
    """A predicate of rows for the ip / ip6 filters (regular expressions
    searched in the server's fixed addresses), or None. InvalidInput
    (400) for a pattern that is no regular expression."""
    patterns = []
    for key, version in (('ip', 4), ('ip6', 6)):
        if filters.get(key):
            try:
                patterns.append((version, re.compile(filters[key])))
            except re.error:
                raise exception.InvalidInput(
                    reason='Invalid %s filter: %s' % (key, filters[key]))
    if not patterns:
        return None

    def matches(rec):
        return any(version == v and pattern.search(address)
                   for v, address in _fixed_ips(rec)
                   for version, pattern in patterns)
    return matches


# An ip/ip6 pattern the info cache's text can be narrowed by (digits,
# hex, dots, colons, anchors): anything else is matched in Python only.
_PLAIN_ADDRESS = re.compile(r'^\^?(?:[0-9a-fA-F:]|\\?\.)*\$?$')


def _sql_filters(filters):
    """filters without ip / ip6 patterns the database's substring test
    would get wrong (character classes, alternatives, ...)."""
    if all(_PLAIN_ADDRESS.match(filters[k]) for k in ('ip', 'ip6')
           if filters.get(k)):
        return filters
    return {k: v for k, v in filters.items() if k not in ('ip', 'ip6')}


# --- reading rows ------------------------------------------------------------
# The compute API reads servers' rows here and nowhere else.

def mapping(context, server_id):
    """The server's instance mapping as a row ({instance_uuid,
    project_id, user_id, created_at, queued_for_delete, cell_uuid (None
    before scheduling)}), or None."""
    return api_rows.get_mapping(context, server_id)


def build_request_row(context, server_id):
    """The row of the server's build request, or None (none, or its
    instance cannot be read)."""
    rows = api_rows.build_requests(context, uuids=[server_id])
    return build_request_record(rows[0]) if rows else None


def down_rows(context, cell_uuids, project_id=None, limit=None,
              after=None):
    """Minimal rows (down_record) of the live servers mapped to
    cell_uuids, in (created_at, uuid) order after `after`."""
    return [down_record(m) for m in api_rows.mappings_in_cells(
        context, cell_uuids, project_id=project_id, limit=limit,
        after=after)]


def down_row_with_spec(context, server_id, server_mapping):
    """The minimal row of one server whose cell is down, with what its
    request spec says (flavor, image, zone)."""
    blob = api_rows.request_spec(context, server_id)
    return down_record(server_mapping,
                       jsonutils.loads(blob) if blob else None)


def request_spec_fields(context, server_ids):
    """{server id: {'pinned_availability_zone': the zone its request
    spec pins it to (the zone asked for at create, unshelve or update;
    None: unpinned), 'scheduler_hints': the hints it was booted with,
    each value a list (as Nova's request spec keeps them)}} for those of
    server_ids that have a request spec, in one API DB query."""
    found = {}
    for uuid, blob in api_rows.request_specs(context, server_ids).items():
        spec = data(jsonutils.loads(blob))
        found[uuid] = {
            'pinned_availability_zone': spec.get('availability_zone'),
            'scheduler_hints': {
                key: value if isinstance(value, list) else [value]
                for key, value in (spec.get('scheduler_hints') or
                                   {}).items()}}
    return found


def pinned_zones(context, server_ids):
    """{server id: its pinned availability zone or None}
    (request_spec_fields)."""
    return {uuid: fields['pinned_availability_zone'] for uuid, fields in
            request_spec_fields(context, server_ids).items()}


def _host_statuses(cctxt, hosts):
    """{host: host status} of the compute services of hosts."""
    if not hosts:
        return {}
    statuses = {}
    # The page's hosts only: reading every compute service of the cell
    # cost a row and an object per host of the cell on every listing.
    for service in objects.ServiceList.get_by_binary_and_hosts(
            cctxt, constants.COMPUTE_BINARY, hosts):
        if service.forced_down:
            statuses[service.host] = HOST_DOWN
        elif service.disabled:
            statuses[service.host] = HOST_MAINTENANCE
        else:
            statuses[service.host] = (HOST_UP if service.is_up()
                                      else HOST_UNKNOWN)
    return statuses


def _with_host_status(cctxt, records):
    statuses = _host_statuses(cctxt, {r['host'] for r in records
                                      if r.get('host')})
    for rec in records:
        rec['host_status'] = (statuses.get(rec['host'], HOST_NONE)
                              if rec.get('host') else HOST_NONE)
    return records


def _with_volumes(cctxt, records):
    volumes = instance_volumes.volumes_by_instance(
        cctxt, [r['uuid'] for r in records])
    for rec in records:
        rec['volumes'] = volumes.get(rec['uuid'], [])
    return records


def decoded(raw):
    """A page row read raw (page_in_cell), decoded as cell_record."""
    return cell_record(cell_rows.decode(raw))


def page_in_cell(cctxt, filters, keys, dirs, limit, marker, narrow):
    """One cell's page: instance rows with their 1:1 extras only, as
    read (the merge keeps at most limit of all the cells' rows: those
    are decoded, and get their related rows, after it). narrow: the
    sort keys and uuid only, flagged _narrow -- finish_in_cell reads
    the rest for the rows that made the page (with many cells, most
    rows read here are dropped by the merge). Rows carry their cell's
    uuid as _cell."""
    matches = ip_matcher(filters)
    if narrow and matches is None:
        records = cell_pages.list_records(
            cctxt, filters, keys, dirs, limit, marker,
            columns=sorted(set(keys) | {'uuid'}))
        for rec in records:
            rec['_cell'] = cctxt.cell_uuid
            rec['_narrow'] = True
        return records
    records = cell_pages.list_records(
        cctxt, _sql_filters(filters), keys, dirs, limit, marker, raw=True)
    # The query narrows by substring; the addresses decide.
    if matches is not None:
        records = [r for r in map(decoded, records) if matches(r)]
    for rec in records:
        rec['_cell'] = cctxt.cell_uuid
    return records


@main_db.reader
def finish_in_cell(cctxt, records, host_status, detailed):
    """What the page's rows of one cell still need: the rest of the
    narrow ones, related rows (detail), attached volumes (detail), host
    status; one transaction."""
    narrow = [r for r in records if r.get('_narrow')]
    if narrow:
        full = {r['uuid']: r for r in cell_rows.get_records(
            cctxt, [r['uuid'] for r in narrow], read_deleted='yes',
            related=())}
        for rec in narrow:
            if rec['uuid'] in full:
                del rec['_narrow']
                rec.update(cell_record(full[rec['uuid']]))
        # Gone meanwhile (hard deleted): the caller leaves it out.
        records = [r for r in records if not r.get('_narrow')]
    if detailed:
        cell_rows.fill_related(cctxt, records)
        _with_volumes(cctxt, records)
    if host_status:
        _with_host_status(cctxt, records)
    return records


def marker_in_cell(cctxt, marker):
    """The row of the marker's instance in this cell, deleted or not,
    without related rows (InstanceNotFound if it is not here)."""
    return cell_rows.get_record(cctxt, marker, read_deleted='yes',
                                related=())


def probe(cctxt):
    """A query that answers only if the cell does."""
    return cell_pages.list_records(cctxt, {}, ['uuid'], ['asc'], 0, None,
                                   related=())


@main_db.reader
def get_in_cell(cctxt, server_id, host_status):
    """The whole row of one server in this cell (InstanceNotFound)."""
    rec = cell_record(cell_rows.get_record(cctxt, server_id))
    _with_volumes(cctxt, [rec])
    if host_status:
        _with_host_status(cctxt, [rec])
    return rec


def update_in_cell(cctxt, server_id, values, host_status):
    """Write instance columns of one server in this cell; its whole row
    as written."""
    cell_rows.update(cctxt, server_id, values)
    rec = cell_record(cell_rows.get_record(cctxt, server_id))
    _with_volumes(cctxt, [rec])
    if host_status:
        _with_host_status(cctxt, [rec])
    return rec


def update_build_request(context, server_id, values):
    """Write instance columns into the server's build request; False if
    it has none (scheduled meanwhile)."""
    rows = api_rows.build_requests(context, uuids=[server_id])
    if not rows:
        return False
    primitive = jsonutils.loads(rows[0]['instance'] or '{}')
    fields = data(primitive)
    fields.update(values)
    changes = primitive.get('nova_lite_object.changes')
    if isinstance(changes, (tuple, type([]))):
        primitive['nova_lite_object.changes'] = sorted(
            set(changes) | set(values))
    return api_rows.update_build_request(context, server_id,
                                         jsonutils.dumps(primitive))
