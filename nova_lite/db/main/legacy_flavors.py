"""The legacy flavor tables of the top-level cell database
(instance_types, instance_type_extra_specs, instance_type_projects).

Flavors written by older releases wait here until the migrate_flavors
online migration moves them to the API database; nothing new is written
here, rows only get soft-deleted (moved or destroyed). Every writer of
these rows soft-deletes (so locks) the flavor row before its extra specs
and projects, so that two writers never wait on each other in a cycle.
"""
from oslo_utils import timeutils

from nova_lite.db import driver_sql
from nova_lite.db import flavor_queries as queries
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models

FLAVORS = models.InstanceTypes.__table__
EXTRA_SPECS = models.InstanceTypeExtraSpecs.__table__
PROJECTS = models.InstanceTypeProjects.__table__
GEN = queries.Generation('legacy', FLAVORS, EXTRA_SPECS, PROJECTS)


@main_db.reader
def get(lctx, column, value):
    """The live legacy flavor whose column is value, or None."""
    return queries.get_one(lctx.session, GEN, column, value)


@main_db.reader
def id_of(lctx, flavorid):
    """The id of the live legacy flavor with this flavorid, or None."""
    return queries.id_of(lctx.session, GEN, flavorid)


@main_db.connection_reader
def named_or_numbered(lctx, name, flavorid):
    """(name, flavorid) of the live legacy flavors with this name or this
    flavorid."""
    return queries.named_or_numbered(lctx.connection, GEN,
                                     ('name', 'flavorid'), name, flavorid)


# --- soft-deletes -----------------------------------------------------------

def soft_delete_rows(conn, sql, table, column, ids, now):
    """UPDATE the live rows of table whose column is in ids (a list or an
    IdRange) to soft-deleted. Returns the rows changed."""
    update = 'UPDATE %s SET deleted = id, deleted_at = %s WHERE ' \
        'deleted = 0 AND {ids}' % (sql.table(table), sql.mark)
    return driver_sql.run_by_ids(conn, sql, update, column, ids, [now])


def now_for(dialect):
    """The current time as dialect's driver takes it for deleted_at."""
    return driver_sql.Sql(dialect).bind(FLAVORS.c.deleted_at.type,
                                        timeutils.utcnow())


@main_db.writer
def destroy(lctx, ids):
    """Soft-delete legacy flavors (by id) with their specs and projects, in
    one transaction, flavor rows first. Returns the flavors soft-deleted."""
    conn = lctx.session.connection()
    sql, now = driver_sql.Sql(conn.dialect), now_for(conn.dialect)
    ids = driver_sql.id_set(ids)
    count = soft_delete_rows(conn, sql, FLAVORS, 'id', ids, now)
    if count:
        for table in (EXTRA_SPECS, PROJECTS):
            soft_delete_rows(conn, sql, table, 'flavor_id', ids, now)
    return count
