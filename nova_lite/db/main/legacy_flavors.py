"""The legacy flavor tables of the top-level cell database
(instance_types, instance_type_extra_specs, instance_type_projects).

Flavors written by older releases wait here until the migrate_flavors
online migration moves them to the API database; nothing new is written
here. Every writer of these rows takes the flavor row's lock (its
soft-delete) before touching its extra specs and projects, so that two
writers never wait on each other in a cycle.
"""
from oslo_utils import timeutils

from nova_lite.db import driver_sql
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models

FLAVORS = models.InstanceTypes.__table__
EXTRA_SPECS = models.InstanceTypeExtraSpecs.__table__
PROJECTS = models.InstanceTypeProjects.__table__


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
