"""A project's quota count in a cell (what /limits and the quota-set
reports run per cell) reads instances_quota_usage_idx alone: the
database never reads the project's rows themselves (SQLite's plan says
COVERING INDEX). Adding a column to the count without adding it to the
index (migration 0014) fails here."""
import os

import sqlalchemy as sa

from nova_lite.db import migration
from nova_lite import quota


def _plan(engine, statement, params):
    sql = str(statement.params(**params).compile(
        dialect=engine.dialect, compile_kwargs={'literal_binds': True}))
    with engine.connect() as conn:
        return [row[-1] for row in conn.exec_driver_sql(
            'EXPLAIN QUERY PLAN ' + sql).fetchall()]


def test_a_projects_count_reads_only_its_index(tmp_path):
    url = 'sqlite:///%s' % os.path.join(tmp_path, 'cell.sqlite')
    migration.db_sync('main', url)
    engine = sa.create_engine(url)
    try:
        plan = _plan(engine, quota._cell_counts_statement(False, False),
                     {'project_id': 'p'})
        assert any('COVERING INDEX instances_quota_usage_idx' in step
                   for step in plan), plan
        # A user's sums (quota-set reports with ?user_id=) read the rows:
        # user_id is not in the index (its key would not fit InnoDB's).
        plan = _plan(engine, quota._cell_counts_statement(False, True),
                     {'project_id': 'p', 'user_id': 'u'})
        assert not any('COVERING' in step for step in plan), plan
    finally:
        engine.dispose()
