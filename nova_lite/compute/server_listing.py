"""The read side of servers: get, list and update, across every cell.

Everything here returns *server records* (plain dicts, the contract with
the REST layer; see /tmp/lead/server_record.md in the issue notes):
instance columns plus metadata, system_metadata, flavor (the instance's
own copy, flat: id, flavorid, name, memory_mb, vcpus, root_gb,
ephemeral_gb, swap, extra_specs), network_info, tags, fault, and the
flags cell_down and build_request. Listing rules:

- One sorted k-way merge (heapq.merge) of one page per cell, read in
  parallel (scatter-gather, ``[api] list_cell_timeout``), and of the
  build requests (servers not yet in a cell) from the API DB. Each cell
  is asked for at most ``limit`` rows after the marker; the merge keeps
  the first ``limit``.
- The sort always ends with created_at and uuid (the tie-breaker that is
  global across cells); the marker is any server's uuid, wherever it
  lives (a cell or a build request): its sort values bound every
  cell's page. An unknown marker is a 400.
- Hidden instances (copies of a cross-cell move) are never listed; a
  uuid is listed once (a cell's row wins over its build request).
- A cell that does not answer is left out with a warning, or (with
  cell_down_support, microversion 2.69) its servers of the project
  follow the answering cells' rows as minimal records (cell_down).
- Statements per request do not depend on the number of servers: per
  cell one page query plus one per kind of related row (and one for the
  compute services when host_status is wanted); in the API DB one for
  the cells, one for the build requests, one for the marker.
"""
import datetime
import functools
import heapq
import re

from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import timeutils

from nova_lite.compute import flavors as compute_flavors
from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite.db.api import server_listing as api_rows
from nova_lite.db.main import instance_volumes
from nova_lite.db.main import instances as cell_rows
from nova_lite import exception
from nova_lite import objects

LOG = logging.getLogger(__name__)

DEFAULT_SORT_KEYS = ('created_at', 'uuid')
# Keys a list can be sorted by: instance columns.
SORTABLE = frozenset(cell_rows.COLUMNS)
# Columns filtered by regular expression.
REGEX_FILTERS = cell_rows.REGEX_FILTERS
_OBJ_DATA = 'nova_lite_object.data'
_DATETIMES = ('created_at', 'updated_at', 'deleted_at', 'launched_at',
              'terminated_at')
# Host status of a server's compute (Nova's HostStatus values).
HOST_UP, HOST_DOWN, HOST_MAINTENANCE, HOST_UNKNOWN, HOST_NONE = (
    'UP', 'DOWN', 'MAINTENANCE', 'UNKNOWN', '')


# --- records ----------------------------------------------------------------

def _data(primitive):
    """The field values of a versioned object's primitive (or a dict)."""
    if isinstance(primitive, dict) and _OBJ_DATA in primitive:
        return primitive[_OBJ_DATA]
    return primitive


def _flat_flavor(flavor):
    """The instance's current flavor copy as a flat dict (None if none),
    from a record's {"cur": primitive, ...} or an already flat dict."""
    if not flavor:
        return None
    if 'cur' in flavor or 'old' in flavor or 'new' in flavor:
        flavor = flavor.get('cur')
    flavor = _data(flavor)
    return dict(flavor) if flavor else None


def _naive(value):
    if isinstance(value, str):
        value = timeutils.parse_isotime(value)
    if isinstance(value, datetime.datetime) and value.tzinfo is not None:
        value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return value


def _cell_record(rec):
    """A cell DB record as the REST layer reads it."""
    rec['flavor'] = _flat_flavor(rec.get('flavor'))
    rec.setdefault('fault', None)
    rec.setdefault('tags', [])
    rec.setdefault('metadata', {})
    rec.setdefault('system_metadata', {})
    rec['cell_down'] = False
    rec['build_request'] = False
    return rec


def _build_request_record(row):
    """A build request row as a server record (vm_state building, task
    scheduling, no host), or None if its instance cannot be read."""
    try:
        inst = dict(_data(jsonutils.loads(row['instance'] or '{}')) or {})
    except ValueError:
        LOG.warning('Build request of %s holds no readable instance; it '
                    'is not listed.', row['instance_uuid'])
        return None
    for key in _DATETIMES:
        inst[key] = _naive(inst.get(key))
    rec = {key: inst.get(key) for key in cell_rows.COLUMNS}
    rec.update(
        uuid=row['instance_uuid'], project_id=row['project_id'],
        user_id=row['user_id'] or inst.get('user_id'),
        # The instance's own created_at: its cell copy will carry it.
        created_at=inst.get('created_at') or _naive(row['created_at']),
        updated_at=inst.get('updated_at'), deleted_at=None, deleted=False,
        vm_state=inst.get('vm_state') or 'building',
        task_state=inst.get('task_state') or 'scheduling',
        host=None, node=None, hidden=False,
        locked=bool(inst.get('locked')),
        metadata=dict(inst.get('metadata') or {}),
        system_metadata=dict(inst.get('system_metadata') or {}),
        flavor=_flat_flavor(inst.get('flavor')),
        network_info=[], fault=None,
        tags=[*(jsonutils.loads(row['tags']) if row.get('tags')
                else inst.get('tags') or [])],
        cell_down=False, build_request=True)
    return rec


def _down_record(mapping, spec=None):
    """The minimal record of a server whose cell did not answer: what
    the API DB knows (its mapping; with its request spec, the flavor,
    image and zone it asked for)."""
    rec = {'uuid': mapping['instance_uuid'],
           'project_id': mapping['project_id'],
           'user_id': mapping.get('user_id'),
           'created_at': _naive(mapping.get('created_at')),
           'cell_down': True, 'build_request': False}
    if spec:
        data = _data(spec)
        rec['flavor'] = _flat_flavor(data.get('flavor'))
        image = data.get('image') or {}
        rec['image_ref'] = image.get('id')
        rec['availability_zone'] = data.get('availability_zone')
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


def _comparator(keys, dirs):
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


def _after(rec, marker, compare):
    return compare(rec, marker) > 0


# --- build requests --------------------------------------------------------

def _matches(rec, filters):
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


def _build_request_records(context, filters):
    rows = api_rows.build_requests(
        context, project_id=filters.get('project_id'),
        uuids=filters.get('uuid'))
    records = (_build_request_record(r) for r in rows)
    return [r for r in records if r is not None and _matches(r, filters)]


# --- cells -------------------------------------------------------------------

def _cells(context):
    return objects.CellMappingList.get_all(context)


def _host_statuses(cctxt, hosts):
    """{host: host status} of the compute services of hosts."""
    if not hosts:
        return {}
    statuses = {}
    for service in objects.ServiceList.get_by_binary(
            cctxt, constants.COMPUTE_BINARY):
        if service.host not in hosts:
            continue
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


def _fixed_ips(rec):
    for vif in rec.get('network_info') or ():
        for subnet in (vif.get('network') or {}).get('subnets') or ():
            for ip in subnet.get('ips') or ():
                yield ip.get('version', 4), ip.get('address') or ''


def _ip_matcher(filters):
    """A predicate for the ip / ip6 filters (regular expressions
    searched in the server's fixed addresses), or None."""
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


def _with_volumes(cctxt, records):
    volumes = instance_volumes.volumes_by_instance(
        cctxt, [r['uuid'] for r in records])
    for rec in records:
        rec['volumes'] = volumes.get(rec['uuid'], [])
    return records


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


def _page_in_cell(cctxt, filters, keys, dirs, limit, marker):
    """One cell's page: instance rows with their 1:1 extras only (the
    related rows come after the merge, for the records that stay)."""
    records = [_cell_record(r) for r in cell_rows.list_records(
        cctxt, _sql_filters(filters), keys, dirs, limit, marker,
        related=())]
    # The query narrows by substring; the addresses decide.
    matches = _ip_matcher(filters)
    if matches is not None:
        records = [r for r in records if matches(r)]
    for rec in records:
        rec['_cell'] = cctxt.cell_uuid
    return records


def _finish_in_cell(cctxt, records, host_status, detailed):
    """What the page's records of one cell still need: related rows
    (detail), attached volumes (detail), host status."""
    if detailed:
        cell_rows.fill_related(cctxt, records)
        _with_volumes(cctxt, records)
    if host_status:
        _with_host_status(cctxt, records)
    return records


def _marker_values(context, marker, cells):
    """The record of the server named by marker, wherever it lives, and
    whether its cell is down; MarkerNotFound if it is nowhere."""
    mapping = api_rows.get_mapping(context, marker)
    if mapping is None:
        raise exception.MarkerNotFound(marker=marker)
    if mapping['cell_uuid'] is None:
        rows = api_rows.build_requests(context, uuids=[marker])
        rec = _build_request_record(rows[0]) if rows else None
        if rec is None:
            raise exception.MarkerNotFound(marker=marker)
        return rec, False
    cell = next((c for c in cells if c.uuid == mapping['cell_uuid']), None)
    if cell is None:
        raise exception.MarkerNotFound(marker=marker)
    result = nova_context.scatter_gather_cells(
        context, [cell], CONF.api.list_cell_timeout,
        _marker_in_cell, marker)[cell.uuid]
    if nova_context.is_cell_failure(result):
        if isinstance(result, exception.InstanceNotFound):
            raise exception.MarkerNotFound(marker=marker)
        return _down_record(mapping), True
    return _cell_record(result), False


def _marker_in_cell(cctxt, marker):
    return cell_rows.get_record(cctxt, marker, read_deleted='yes',
                                related=())


def list(context, search_opts, sort_keys=None, sort_dirs=None, limit=None,
         marker=None, all_tenants=False, cell_down_support=False,
         host_status=False, detailed=True):
    """One page of servers across every cell and the build requests.

    search_opts: filters as nova_lite.db.main.instances.list_records
    takes them (project_id set unless all_tenants), plus 'flavor' (a
    flavorid, matched through the flavor's id). limit: the page size
    (None: no limit). marker: the uuid of the server to start after.
    host_status: fill each record's host_status (a query per cell).
    detailed: read what a detail body shows (metadata, tags, faults,
    volumes: a query per kind and cell); without it, the instance rows
    alone. Returns records in order.
    """
    filters = dict(search_opts or {})
    filters['hidden'] = False
    _ip_matcher(filters)   # a bad pattern is a 400 before any query
    if 'flavor' in filters:
        flavorid = filters.pop('flavor')
        try:
            flavor = compute_flavors.get(context, flavorid)
        except exception.FlavorNotFound:
            return []
        filters['instance_type_id'] = flavor.id
    keys, dirs = sort_params(sort_keys, sort_dirs)
    compare = _comparator(keys, dirs)
    if limit == 0:
        return []
    cells = _cells(context)
    marker_rec, marker_down = (None, False)
    if marker is not None:
        marker_rec, marker_down = _marker_values(context, marker, cells)
        if marker_down and not cell_down_support:
            raise exception.MarkerNotFound(marker=marker)

    if marker_down:
        # Servers of down cells follow every other: none is after it.
        records, down = [], _down_cells(context, cells)
    else:
        records, down = _merged(context, cells, filters, keys, dirs,
                                compare, limit, marker_rec, host_status,
                                detailed)
    if not down:
        return records
    for cell in down:
        LOG.warning('Cell %s did not answer within %ss when listing '
                    'servers; its servers are %s.', cell.identity,
                    CONF.api.list_cell_timeout,
                    'shown as UNKNOWN' if cell_down_support else 'left out')
    if not cell_down_support or (limit is not None and
                                 len(records) >= limit):
        return records
    if set(filters) - {'project_id', 'hidden', 'deleted'} or \
            filters.get('deleted'):
        # A down cell's servers cannot be checked against other filters.
        return records
    after = None
    if marker_down:
        after = (marker_rec['created_at'], marker_rec['uuid'])
    remaining = None if limit is None else limit - len(records)
    seen = {r['uuid'] for r in records}
    mappings = api_rows.mappings_in_cells(
        context, [c.uuid for c in down],
        project_id=filters.get('project_id'), limit=remaining,
        after=after)
    return records + [_down_record(m) for m in mappings
                      if m['instance_uuid'] not in seen]


def _probe(cctxt):
    return cell_rows.list_records(cctxt, {}, ['uuid'], ['asc'], 0, None,
                                  related=())


def _down_cells(context, cells):
    results = nova_context.scatter_gather_cells(
        context, cells, CONF.api.list_cell_timeout, _probe)
    return [c for c in cells
            if nova_context.is_cell_failure(results[c.uuid])]


def _merged(context, cells, filters, keys, dirs, compare, limit, marker_rec,
            host_status, detailed):
    """(records, down cells): the first limit servers after marker_rec
    of the answering cells and the build requests, merged."""
    marker_values = None if marker_rec is None else {
        k: marker_rec.get(k) for k in keys}
    results = nova_context.scatter_gather_cells(
        context, cells, CONF.api.list_cell_timeout, _page_in_cell,
        filters, keys, dirs, limit, marker_values)
    pages, down = [], []
    for cell in cells:
        result = results[cell.uuid]
        if nova_context.is_cell_failure(result):
            down.append(cell)
        else:
            pages.append(result)
    in_cells = {r['uuid'] for page in pages for r in page}
    building = [r for r in _build_request_records(context, filters)
                if r['uuid'] not in in_cells and (
                    marker_rec is None or _after(r, marker_rec, compare))]
    if host_status:
        for rec in building:
            rec['host_status'] = HOST_NONE
    key = functools.cmp_to_key(compare)
    building.sort(key=key)
    pages.append(building)
    records, seen = [], set()
    for rec in heapq.merge(*pages, key=key):
        if rec['uuid'] in seen:
            continue
        seen.add(rec['uuid'])
        records.append(rec)
        if limit is not None and len(records) >= limit:
            break
    _finish(context, cells, records, host_status, detailed)
    return records, down


def _finish(context, cells, records, host_status, detailed):
    """_finish_in_cell for the records of each cell that made the page,
    in parallel (a cell that stops answering now keeps them bare)."""
    by_cell = {}
    for rec in records:
        cell = rec.pop('_cell', None)
        if cell is not None:
            by_cell.setdefault(cell, []).append(rec)
    if not by_cell or not (detailed or host_status):
        return
    nova_context.scatter_gather_cells(
        context, [c for c in cells if c.uuid in by_cell],
        CONF.api.list_cell_timeout,
        lambda cctxt: _finish_in_cell(cctxt, by_cell[cctxt.cell_uuid],
                                      host_status, detailed))


# --- one server ------------------------------------------------------------

def _mapping(context, server_id):
    # A mapping queued for delete still shows its server until the cell
    # says it is deleted (as lists do).
    mapping = api_rows.get_mapping(context, server_id)
    if mapping is None:
        raise exception.InstanceNotFound(instance_id=server_id)
    return mapping


def _check_owner(context, rec, server_id):
    """Another project's server does not exist for a non-admin."""
    if not context.is_admin and rec.get('project_id') != context.project_id:
        raise exception.InstanceNotFound(instance_id=server_id)


def _get_in_cell(cctxt, server_id, host_status):
    rec = _cell_record(cell_rows.get_record(cctxt, server_id))
    _with_volumes(cctxt, [rec])
    if host_status:
        _with_host_status(cctxt, [rec])
    return rec


def get(context, server_id, cell_down_support=False, host_status=False):
    """The record of one server: a build request, or the instance in its
    cell. InstanceNotFound (404) if there is none, or if it belongs to
    another project and the caller is no administrator. A cell that
    does not answer: the minimal record (cell_down) with
    cell_down_support, else InstanceCellNotResponding (503)."""
    mapping = _mapping(context, server_id)
    _check_owner(context, mapping, server_id)
    if mapping['cell_uuid'] is None:
        rows = api_rows.build_requests(context, uuids=[server_id])
        rec = _build_request_record(rows[0]) if rows else None
        if rec is None:
            # Scheduled meanwhile: the mapping now names a cell.
            mapping = _mapping(context, server_id)
            if mapping['cell_uuid'] is None:
                raise exception.InstanceNotFound(instance_id=server_id)
        else:
            if host_status:
                rec['host_status'] = HOST_NONE
            return rec
    cell = objects.CellMapping.get_by_uuid(context, mapping['cell_uuid'])
    result = nova_context.scatter_gather_cells(
        context, [cell], CONF.api.list_cell_timeout, _get_in_cell,
        server_id, host_status)[cell.uuid]
    if isinstance(result, exception.InstanceNotFound):
        raise exception.InstanceNotFound(instance_id=server_id)
    if nova_context.is_cell_failure(result):
        LOG.warning('Cell %s did not answer for server %s.',
                    cell.identity, server_id)
        if not cell_down_support:
            raise exception.InstanceCellNotResponding(instance_id=server_id)
        blob = api_rows.request_spec(context, server_id)
        return _down_record(mapping, jsonutils.loads(blob) if blob
                            else None)
    _check_owner(context, result, server_id)
    return result


def update(context, server_id, check=None, host_status=False, **values):
    """Update a server's instance columns (display_name,
    display_description, access_ip_v4, access_ip_v6) wherever it is;
    returns its record (with host_status if asked). check(record): the
    caller's policy check on the server (raises to refuse), run before
    anything is written."""
    rec = get(context, server_id, host_status=host_status)
    if check is not None:
        check(rec)
    if not values:
        return rec
    if rec['build_request']:
        return _update_build_request(context, server_id, values,
                                     host_status)
    mapping = _mapping(context, server_id)
    cell = objects.CellMapping.get_by_uuid(context, mapping['cell_uuid'])
    with nova_context.target_cell(context, cell) as cctxt:
        rec = _cell_record(cell_rows.update(cctxt, server_id, values))
        _with_volumes(cctxt, [rec])
        if host_status:
            _with_host_status(cctxt, [rec])
    return rec


def _update_build_request(context, server_id, values, host_status):
    rows = api_rows.build_requests(context, uuids=[server_id])
    if rows:
        primitive = jsonutils.loads(rows[0]['instance'] or '{}')
        data = _data(primitive)
        data.update(values)
        changes = primitive.get('nova_lite_object.changes')
        if isinstance(changes, (tuple, type([]))):
            primitive['nova_lite_object.changes'] = sorted(
                set(changes) | set(values))
        if api_rows.update_build_request(context, server_id,
                                         jsonutils.dumps(primitive)):
            return get(context, server_id, host_status=host_status)
    # Scheduled meanwhile: update it in its cell.
    return update(context, server_id, host_status=host_status, **values)
