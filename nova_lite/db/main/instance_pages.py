"""Listing instances of a cell database: the filters a listing
understands, sort keys, and pages after a marker (list_records).

Invariants: a page is a constant number of statements whatever its size
and however deep its marker (read in index order, ties on the last
sort value read apart); records come back as nova_lite.db.main.instances
shapes them (raw rows until decode() when asked).
"""
import sqlalchemy as sa

from nova_lite.db.main import api as main_db
from nova_lite.db.main import instances

INST, CACHE, TAGS = instances.INST, instances.CACHE, instances.TAGS
RELATED = instances.RELATED
# The vm_state of a soft-deleted server (as Nova's).
SOFT_DELETED = 'soft-delete'
# Columns the API filters by regular expression (administrators, and
# everyone for some from microversion 2.83).
REGEX_FILTERS = ('power_state', 'progress', 'launch_index', 'config_drive',
                 'hostname', 'display_description', 'locked_by',
                 'access_ip_v4', 'access_ip_v6', 'root_device_name',
                 'created_at', 'launched_at', 'terminated_at')
SORT_KEYS = ('access_ip_v4', 'access_ip_v6', 'availability_zone',
             'config_drive', 'created_at', 'display_description',
             'display_name', 'host', 'hostname', 'image_ref',
             'instance_type_id', 'kernel_id', 'key_name', 'launch_index',
             'launched_at', 'locked', 'locked_by', 'node', 'power_state',
             'progress', 'project_id', 'ramdisk_id', 'root_device_name',
             'task_state', 'terminated_at', 'updated_at', 'user_id',
             'uuid', 'vm_state')


def _filters(filters):
    """SQL criteria for the filters a listing understands (all optional):
    uuid (list), project_id, user_id, host, node, vm_state (list),
    task_state (list; None matches NULL), image_ref, instance_type_id,
    name (regular expression), the REGEX_FILTERS columns (regular
    expressions), changes_since, changes_before, locked,
    tags / tags_any / not_tags / not_tags_any (lists), deleted
    (True/False; default live only), hidden (default False)."""
    crit = []
    deleted = filters.get('deleted')
    soft = INST.c.vm_state == SOFT_DELETED
    if deleted is None or deleted is False:
        crit.append(INST.c.deleted == 0)
        if deleted is False and not filters.get('soft_deleted'):
            # As the Compute API lists: not deleted means not soft
            # deleted either (unless asked for).
            crit.append(sa.or_(INST.c.vm_state.is_(None), ~soft))
    elif deleted is True:
        crit.append(sa.or_(INST.c.deleted != 0, soft)
                    if filters.get('soft_deleted', True)
                    else INST.c.deleted != 0)
    crit.append(INST.c.hidden == sa.sql.expression.literal(
        bool(filters.get('hidden', False))))
    for key in ('project_id', 'user_id', 'host', 'node', 'image_ref',
                'instance_type_id', 'availability_zone', 'key_name',
                'reservation_id'):
        if filters.get(key) is not None:
            crit.append(INST.c[key] == filters[key])
    for key in REGEX_FILTERS:
        if filters.get(key) is not None:
            # As Nova's other filters: a regular expression searched in
            # the column's text.
            crit.append(sa.cast(INST.c[key], sa.String).regexp_match(
                str(filters[key])))
    if filters.get('uuid') is not None:
        crit.append(INST.c.uuid.in_(list(filters['uuid'])))
    if filters.get('vm_state') is not None:
        crit.append(INST.c.vm_state.in_(list(filters['vm_state'])))
    if 'task_state' in filters:
        states = list(filters['task_state'])
        named = [s for s in states if s is not None]
        either = [INST.c.task_state.in_(named)] if named else []
        if None in states:
            either.append(INST.c.task_state.is_(None))
        crit.append(sa.or_(*either))
    if filters.get('name'):
        crit.append(INST.c.display_name.regexp_match(filters['name']))
    if filters.get('locked') is not None:
        crit.append(sa.func.coalesce(INST.c.locked, False)
                    == bool(filters['locked']))
    if filters.get('changes_since') is not None:
        crit.append(INST.c.updated_at >= filters['changes_since'])
    if filters.get('changes_before') is not None:
        crit.append(INST.c.updated_at <= filters['changes_before'])
    if filters.get('ip') or filters.get('ip6'):
        # The info cache holds the fixed IPs as JSON text; a substring of
        # it narrows the rows, the caller checks the pattern exactly.
        crit.append(CACHE.c.network_info.like(
            '%' + (filters.get('ip') or filters.get('ip6')).strip('^$')
            .replace('\\.', '.') + '%'))
    crit.extend(_tag_filters(filters))
    return crit


def _tag_filters(filters):
    crit = []

    def having(tags):
        return (sa.select(TAGS.c.resource_id)
                .where(TAGS.c.tag.in_(tags))
                .group_by(TAGS.c.resource_id)
                .having(sa.func.count(sa.distinct(TAGS.c.tag))
                        == len(set(tags))))

    def anyof(tags):
        return sa.select(TAGS.c.resource_id).where(TAGS.c.tag.in_(tags))

    if filters.get('tags'):
        crit.append(INST.c.uuid.in_(having(filters['tags'])))
    if filters.get('tags_any'):
        crit.append(INST.c.uuid.in_(anyof(filters['tags_any'])))
    if filters.get('not_tags'):
        crit.append(INST.c.uuid.not_in(having(filters['not_tags'])))
    if filters.get('not_tags_any'):
        crit.append(INST.c.uuid.not_in(anyof(filters['not_tags_any'])))
    return crit


def _after(keys, dirs, marker):
    """Keyset condition: rows strictly after marker ({key: value}) in
    the order (keys, dirs). NULLs sort first ascending (as a value
    smaller than any other), on every backend."""
    either = []
    for i, key in enumerate(keys):
        col, value = INST.c[key], marker.get(key)
        same = [(INST.c[k].is_(None) if marker.get(k) is None
                 else INST.c[k] == marker.get(k)) for k in keys[:i]]
        if dirs[i] == 'asc':
            step = (col.is_not(None) if value is None
                    else col > value)
        else:
            if value is None:
                continue
            step = sa.or_(col < value, col.is_(None))
        either.append(sa.and_(*same, step))
    return sa.or_(*either)


def _default_order(sort_keys, sort_dirs):
    return (list(sort_keys) == ['created_at', 'uuid']
            and sort_dirs[0] == sort_dirs[1])


def _page_by_created_at(session, query, direction, limit, marker):
    """(result, rows) of the page of query in the default order
    (created_at, uuid) without sorting the whole cell: the
    (deleted, created_at, id) index gives rows in created_at order and
    the scan stops after limit rows; the rows sharing the last one's
    created_at are read in full by a second statement (only when the
    page is full) and uuid orders them here. Ordering by created_at and
    uuid in SQL sorts every row after the marker instead (a filesort of
    the cell: the cost followed the cell's size, not the page's)."""
    col = INST.c.created_at
    desc = direction == 'desc'
    if marker is not None:
        # What _after() says, as a range an index can seek to.
        query = query.where(col <= marker['created_at'] if desc
                            else col >= marker['created_at'])
    result = session.execute(query.order_by(
        col.desc() if desc else col.asc()).limit(limit))
    rows = result.fetchall()
    if len(rows) >= limit:
        at = rows[-1].created_at
        rows = [r for r in rows if r.created_at != at] + \
            session.execute(query.where(col == at)).fetchall()
    rows.sort(key=lambda r: (r.created_at, r.uuid), reverse=desc)
    return result, rows[:limit]


# Sort keys never NULL in a row (written by create()): ordered without
# the NULLs-first term, so the (deleted, created_at, id) index can serve
# the default order instead of a sort of the whole cell.
NOT_NULL = frozenset(['created_at', 'uuid', 'id'])


def _order(keys, dirs):
    order = []
    for key, direction in zip(keys, dirs):
        col = INST.c[key]
        if key not in NOT_NULL:
            order.append(col.is_not(None) if direction == 'asc'
                         else col.is_(None))
        order.append(col.asc() if direction == 'asc' else col.desc())
    return order


@main_db.reader
def list_records(context, filters, sort_keys, sort_dirs, limit=None,
                 marker=None, related=RELATED, raw=False, columns=None):
    """One page of records in (sort_keys, sort_dirs) order, the last key
    being uuid (the tie-breaker across cells); marker: the sort key
    values of the row to start after. A constant number of statements.
    raw: rows as read (JSON text, integer flags; no related rows) for a
    caller that keeps only some of them and decode()s those.
    columns: instance columns to read instead of whole records (implies
    raw): a merge across cells that keeps few of the rows it reads
    reads the rest of the winners with get_records()."""
    if columns is not None:
        source = INST
        if filters.get('ip') or filters.get('ip6'):
            source = INST.outerjoin(CACHE,
                                    CACHE.c.instance_uuid == INST.c.uuid)
        query = sa.select(*[INST.c[c] for c in columns]).select_from(
            source).where(*_filters(filters))
        raw = True
    else:
        query = instances.select_page().where(*_filters(filters))
    if marker is not None:
        query = query.where(_after(sort_keys, sort_dirs, marker))
    if limit and _default_order(sort_keys, sort_dirs):
        result, rows = _page_by_created_at(context.session, query,
                                           sort_dirs[0], limit, marker)
        records = instances.records(result, raw=raw, rows=rows)
    else:
        query = query.order_by(*_order(sort_keys, sort_dirs))
        if limit is not None:
            query = query.limit(limit)
        records = instances.records(context.session.execute(query), raw=raw)
    if columns is not None:
        return records
    if raw:
        return records
    return instances.attach_related(context.session, records, related)


# --- writes ---------------------------------------------------------------
