"""Plain SQL text built from table metadata and run with the driver's own
parameter style, for hot paths where per-row ORM/Core processing is most
of the cost (bulk flavor reads and the flavor move).

Ids are given to SQL either as IN (...) lists of at most IN_CHUNK ids (under
every backend's bound-parameter limit) or, when they are nearly contiguous,
as one range minus a few holes (IdRange).
"""
from nova_lite import utils

IN_CHUNK = utils.IN_CHUNK
chunks = utils.chunks


class Sql(object):
    """SQL text for one dialect: quoted names, the driver's placeholder."""

    def __init__(self, dialect):
        self.dialect = dialect
        self.quote = dialect.identifier_preparer.quote
        self.mark = '?' if dialect.paramstyle in ('qmark', 'numeric') \
            else '%s'

    def table(self, table, schema=None):
        name = self.quote(table.name)
        return '%s.%s' % (self.quote(schema), name) if schema else name

    def names(self, columns, alias=None):
        prefix = alias + '.' if alias else ''
        return ', '.join(prefix + self.quote(c) for c in columns)

    def marks(self, n):
        return ', '.join([self.mark] * n)

    def bind(self, type_, value):
        process = type_.dialect_impl(self.dialect).bind_processor(
            self.dialect)
        return process(value) if process else value

    def id_conditions(self, column, ids):
        """[(SQL condition, params)] selecting ids on column: one for an
        IdRange, one per IN_CHUNK ids for a list."""
        if isinstance(ids, IdRange):
            cond = '%s BETWEEN %s AND %s' % (column, self.mark, self.mark)
            if ids.excluded:
                cond += ' AND %s NOT IN (%s)' % (
                    column, self.marks(len(ids.excluded)))
            return [(cond, [ids.lo, ids.hi] + ids.excluded)]
        return [('%s IN (%s)' % (column, self.marks(len(part))), part)
                for part in chunks(ids)]


class IdRange(list):
    """Ids given to SQL as `lo <= id <= hi` minus the few other integers
    in that span (excluded): one statement per table instead of IN lists
    of IN_CHUNK ids."""

    def __init__(self, ids, lo, hi, excluded):
        super(IdRange, self).__init__(ids)
        self.lo, self.hi, self.excluded = lo, hi, excluded


def id_set(ids):
    """ids (distinct integers) as an IdRange when the integers between
    the smallest and the largest that are not ids are at most IN_CHUNK,
    else as a sorted list."""
    ids = sorted(ids)
    if not ids or ids[-1] - ids[0] + 1 - len(ids) > IN_CHUNK:
        return ids
    keep = set(ids)
    return IdRange(ids, ids[0], ids[-1],
                   [i for i in range(ids[0], ids[-1] + 1) if i not in keep])


def run(conn, sql, params=()):
    return conn.exec_driver_sql(sql, tuple(params))


def run_by_ids(conn, sql, statement, column, ids, params=()):
    """statement with {ids} replaced by a condition on column for ids, in
    as many statements as ids need; returns the rows they matched."""
    return sum(run(conn, statement.replace('{ids}', cond),
                   list(params) + cond_params).rowcount
               for cond, cond_params in sql.id_conditions(column, ids))


def fetch(conn, sql, params=()):
    """All rows as the driver's own tuples (no Row objects)."""
    result = run(conn, sql, params)
    try:
        return result.cursor.fetchall()
    finally:
        result.close()


def fetch_in_chunks(conn, sql_text, values):
    """Rows of sql_text (with one IN (%(marks)s)) per IN_CHUNK values, as
    the driver's tuples."""
    sql = Sql(conn.dialect)
    for part in chunks(values):
        yield from fetch(conn, sql_text % {'marks': sql.marks(len(part))},
                         part)


def read_committed(conn):
    """conn at READ COMMITTED isolation (SQLite: as it is)."""
    if conn.dialect.name == 'sqlite':
        return conn
    return conn.execution_options(isolation_level='READ COMMITTED')
