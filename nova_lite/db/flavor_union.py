"""Flavors across their two generations: the API DB (db.api.flavors) and
the legacy tables of the top-level cell DB (db.main.legacy_flavors), where
flavors of older releases wait for the online migration.

- reads look in the API DB first, then in the legacy tables;
- lists are the union (a legacy row whose flavorid is in the API DB too is
  hidden: the API copy wins), filtered, sorted and paginated across both;
- writes go to the API DB only (a legacy flavor is moved first, by
  online_migrations.flavors); a new flavor's name and flavorid are unique
  across both;
- destroy removes the flavor from both.

A flavor is identified across generations by its flavorid; the integer id
is per database. A host without [database] connection sees no legacy
flavors.
"""
import copy
import heapq

from nova_lite.conf import CONF
from nova_lite.db.api import api as api_db
from nova_lite.db.api import flavors as api_flavors
from nova_lite.db import flavor_queries as queries
from nova_lite.db.main import api as main_db
from nova_lite.db.main import legacy_flavors
from nova_lite import exception


def legacy_context(context):
    """A copy of context aimed at the top-level cell DB, or None if this
    host has none (then there are no legacy flavors to see)."""
    if not CONF.database.connection:
        return None
    lctx = copy.copy(context)
    lctx.db_connection = None
    return lctx


def get(context, column, value):
    """The flavor row whose column is value: API DB first, then the
    legacy tables; None if in neither."""
    row = api_flavors.get(context, column, value)
    if row is None:
        lctx = legacy_context(context)
        row = legacy_flavors.get(lctx, column, value) if lctx else None
    return row


def legacy_id_to_move(context, flavorid):
    """The legacy id of the flavor with this flavorid when it is only in
    the legacy tables (it must move before a write); None when it is in
    the API DB; FlavorNotFound when in neither."""
    if api_flavors.flavorids_present(context, [flavorid]):
        return None
    lctx = legacy_context(context)
    legacy_id = legacy_flavors.id_of(lctx, flavorid) if lctx else None
    if legacy_id is None:
        raise exception.FlavorNotFound(flavor_id=flavorid)
    return legacy_id


# --- one page of the union ------------------------------------------------

@main_db.reader
def _merge_legacy(lctx, context, rows, filters, sort_key, asc, limit,
                  marker, related):
    """Merge into rows (API rows, in order) the legacy rows not yet in
    the API DB, cut to limit. Returns (page, ids of its legacy rows).

    The legacy candidates are read with only what ordering needs (id,
    flavorid, sort key); whole rows, specs and projects are then read for
    the ones that made the page.
    """
    gen = legacy_flavors.GEN
    keys = ('id', 'flavorid', sort_key)
    legacy = []
    while limit is None or len(legacy) < limit:
        want = None if limit is None else limit - len(legacy)
        found = queries.page(lctx.session, gen, context, filters, sort_key,
                             asc, want, marker, columns=keys)
        if not found:
            break
        migrated = api_flavors.flavorids_present(
            context, [r['flavorid'] for r in found])
        legacy += [r for r in found if r['flavorid'] not in migrated]
        if want is None or len(found) < want:
            break
        marker = found[-1]
    if not legacy:
        return rows, set()
    page = list(heapq.merge(rows, legacy, key=queries.sort_tuple(sort_key),
                            reverse=not asc))[:limit]
    candidates = {id(r) for r in legacy}
    full = queries.get_by_ids(
        lctx.session, gen, [r['id'] for r in page if id(r) in candidates],
        related)
    # A candidate missing now was migrated meanwhile (only possible where
    # reads in one transaction are not one snapshot); it is left out of
    # this page rather than shown twice or failing the listing.
    page = [full.get(r['id']) if id(r) in candidates else r for r in page]
    return [r for r in page if r is not None], {id(r) for r in full.values()}


@api_db.reader
def _list_union(context, lctx, filters, sort_key, asc, limit, marker,
                related):
    """One API DB transaction around the page; the legacy part (if any)
    in one cell DB transaction inside it."""
    gen = api_flavors.GEN
    page = queries.page(context.session, gen, context, filters, sort_key,
                        asc, limit, marker)
    from_legacy = set()
    if lctx is not None:
        page, from_legacy = _merge_legacy(lctx, context, page, filters,
                                          sort_key, asc, limit, marker,
                                          related)
    queries.attach_related(context.session, gen,
                           [r for r in page if id(r) not in from_legacy],
                           related)
    return page


def list_page(context, filters=None, sort_key='flavorid', sort_dir='asc',
              limit=None, marker=None, related=queries.RELATED):
    """One page of the union of both generations, as row dicts.

    Each generation gives at most `limit` rows in order; the page is their
    merge, cut to `limit`, and only then are the related rows named in
    related (extra_specs, projects) loaded, for the rows on the page (one
    query each per generation); the others' keys are left out.
    InvalidSortKey, InvalidInput (sort_dir), MarkerNotFound.
    """
    filters = filters or {}
    if sort_key not in queries.SORT_KEYS:
        raise exception.InvalidSortKey(sort_key=sort_key)
    if sort_dir not in ('asc', 'desc'):
        raise exception.InvalidInput(reason='sort_dir must be asc or desc')
    marker_row = None
    if marker is not None:
        marker_row = get(context, 'flavorid', marker)
        if marker_row is None:
            raise exception.MarkerNotFound(marker=marker)
    return _list_union(context, legacy_context(context), filters, sort_key,
                       sort_dir == 'asc', limit, marker_row, related)


# --- create and destroy -----------------------------------------------------

def create(context, values, extra_specs=None, projects=None):
    """Insert into the API DB; name and flavorid unique across both
    generations (a not-yet-migrated legacy flavor counts). Returns the
    row."""
    lctx = legacy_context(context)
    if lctx is not None:
        clashes = legacy_flavors.named_or_numbered(
            lctx, values.get('name'), values['flavorid'])
        migrated = api_flavors.flavorids_present(
            context, [fid for _name, fid in clashes]) if clashes else ()
        for _name, flavorid in clashes:
            if flavorid not in migrated:
                api_flavors.raise_exists(values.get('name'),
                                         values['flavorid'], flavorid)
    return api_flavors.create(context, values, extra_specs, projects)


def destroy(context, flavorid):
    """Legacy row first, API row second: a crash in between leaves the
    flavor in the API DB only, never a stale legacy copy resurfacing. A
    legacy flavor that a migration batch holds makes the legacy
    soft-delete wait for the batch to commit; it then finds nothing and
    the API row, the batch's copy, goes. FlavorNotFound if in neither."""
    lctx = legacy_context(context)
    legacy = False
    if lctx is not None:
        legacy_id = legacy_flavors.id_of(lctx, flavorid)
        if legacy_id is not None:
            legacy = bool(legacy_flavors.destroy(lctx, [legacy_id]))
    if not api_flavors.destroy(context, flavorid) and not legacy:
        raise exception.FlavorNotFound(flavor_id=flavorid)
