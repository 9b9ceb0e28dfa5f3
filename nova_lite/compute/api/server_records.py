"""Server records: what one server looks like to the REST layer (a plain
dict; see nova_lite.compute.server_listing for the fields), made from a
cell's instance row, a build request or the instance mapping of a cell
that does not answer; and how records are ordered and filtered outside
SQL (build requests live in the API DB as serialized instances).
"""
import datetime
import re

from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import timeutils

from nova_lite.db.api import server_listing as api_rows
from nova_lite.db.main import instance_pages as cell_pages
from nova_lite.db.main import instances as cell_rows
from nova_lite import exception

LOG = logging.getLogger(__name__)

DEFAULT_SORT_KEYS = ('created_at', 'uuid')
# Columns filtered by regular expression.
REGEX_FILTERS = cell_pages.REGEX_FILTERS
_OBJ_DATA = 'nova_lite_object.data'
_DATETIMES = ('created_at', 'updated_at', 'deleted_at', 'launched_at',
              'terminated_at')


# --- records ----------------------------------------------------------------

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
