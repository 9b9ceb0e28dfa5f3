"""Resource classes: {name: id}, cached per process and API database.

Standard classes (os-resource-classes) are written on first use with
id = their index + 1, so every process agrees on them without reading;
custom CUSTOM_* classes are created on demand with ids from 10000 up.
Both are idempotent under concurrent writers.
"""
import re

import os_resource_classes as orc
import sqlalchemy as sa

from nova_lite.db.api import api as api_db
from nova_lite.db.api import models as api_models
from nova_lite import exception
from nova_lite.placement import db as placement_db

RC = api_models.ResourceClass.__table__
CUSTOM_ID_BASE = 10000
CUSTOM_NAME = re.compile(r'^CUSTOM_[A-Z0-9_]{1,248}$')

_cache = {}   # API DB URL -> {name: id}


def is_valid_name(name):
    return isinstance(name, str) and (name in orc.STANDARDS
                                      or bool(CUSTOM_NAME.match(name)))


def _load(ctx):
    with placement_db.reading(ctx) as session:
        return dict((name, rc_id) for rc_id, name in
                    session.execute(sa.select(RC.c.id, RC.c.name)))


def _add(ctx, rows):
    """Insert {id, name} rows (id None: next custom ids) that are not
    there yet."""
    def once():
        with placement_db.writing(ctx) as session:
            present = set(n for (n,) in session.execute(
                sa.select(RC.c.name).where(
                    RC.c.name.in_([r['name'] for r in rows]))))
            todo = [dict(r) for r in rows if r['name'] not in present]
            if not todo:
                return
            if todo[0]['id'] is None:
                top = session.execute(sa.select(sa.func.max(RC.c.id)).where(
                    RC.c.id >= CUSTOM_ID_BASE)).scalar()
                first = max(CUSTOM_ID_BASE, (top or 0) + 1)
                for i, row in enumerate(todo):
                    row['id'] = first + i
            placement_db.insert_rows(session, RC, todo)
    placement_db.retrying(placement_db.duplicates_retry(once), 10)


def all_classes(ctx, refresh=False):
    """{name: id} of every class, the standard ones ensured; cached."""
    key = str(api_db.get_engine().url)
    if refresh or key not in _cache:
        known = _load(ctx)
        missing = [{'id': i + 1, 'name': name}
                   for i, name in enumerate(orc.STANDARDS)
                   if name not in known]
        if missing:
            _add(ctx, missing)
            known = _load(ctx)
        _cache[key] = known
    return _cache[key]


def names_by_id(ctx, ids):
    """{id: name} covering ids (refreshing the cache once if needed)."""
    names = dict((i, n) for n, i in all_classes(ctx).items())
    if not set(ids) <= set(names):
        names = dict((i, n) for n, i in all_classes(ctx, True).items())
    return names


def resource_class_ids(ctx, names=None, create=True):
    """{name: id} for names (every class if None). Missing CUSTOM_* names
    are created (unless create=False); other unknown names raise
    ResourceClassNotFound."""
    known = all_classes(ctx)
    if names is None:
        return dict(known)
    names = list(names)
    if any(n not in known for n in names):
        known = all_classes(ctx, refresh=True)
    missing = sorted(set(n for n in names if n not in known))
    bad = [n for n in missing if not create or not is_valid_name(n)]
    if bad:
        raise exception.ResourceClassNotFound(
            resource_class=', '.join(map(str, bad)))
    if missing:
        _add(ctx, [{'id': None, 'name': n} for n in missing])
        known = all_classes(ctx, refresh=True)
    return dict((n, known[n]) for n in names)
