"""Flavor rows for tests: legacy rows written with plain SQL, API flavors
through the object, and a statement counter."""
import sqlalchemy as sa

from nova_lite.db.main import api as main_db
from nova_lite.db.main import legacy_flavors
from nova_lite import objects


def add_legacy(flavors, specs=None, projects=None, engine=None):
    """Insert legacy flavors (dicts with at least name and flavorid) and
    their specs/projects ({flavorid: {...}} / {flavorid: [...]})."""
    engine = engine or main_db.get_engine()
    t = legacy_flavors.GEN
    rows = [dict({'memory_mb': 512, 'vcpus': 1, 'swap': 0, 'root_gb': 1,
                  'ephemeral_gb': 0, 'disabled': False, 'is_public': True,
                  'rxtx_factor': 1.0, 'deleted': 0}, **f) for f in flavors]
    with engine.begin() as conn:
        conn.execute(t.flavors.insert(), rows)
        ids = dict((fid, i) for i, fid in conn.execute(
            sa.select(t.flavors.c.id, t.flavors.c.flavorid).where(
                t.flavors.c.deleted == 0)))
        spec_rows = [{'flavor_id': ids[fid], 'key': k, 'value': v,
                      'deleted': 0}
                     for fid, kv in (specs or {}).items()
                     for k, v in kv.items()]
        if spec_rows:
            conn.execute(t.extra_specs.insert(), spec_rows)
        project_rows = [{'flavor_id': ids[fid], 'project_id': p,
                         'deleted': 0}
                        for fid, ps in (projects or {}).items() for p in ps]
        if project_rows:
            conn.execute(t.projects.insert(), project_rows)


def legacy_rows(engine=None, deleted=False):
    t = legacy_flavors.GEN.flavors
    with (engine or main_db.get_engine()).connect() as conn:
        query = sa.select(t.c.flavorid)
        query = query.where(t.c.deleted != 0 if deleted else t.c.deleted == 0)
        return sorted(r[0] for r in conn.execute(query))


def api_flavor(ctxt, flavorid, name=None, **kw):
    values = dict(name=name or 'api-%s' % flavorid, flavorid=flavorid,
                  memory_mb=1024, vcpus=2, root_gb=10)
    values.update(kw)
    flavor = objects.Flavor(ctxt, **values)
    flavor.create()
    return flavor


class QueryCounter:
    def __init__(self, *engines):
        self.engines = engines
        self.count = 0

    def _count(self, *args, **kwargs):
        self.count += 1

    def __enter__(self):
        for engine in self.engines:
            sa.event.listen(engine, 'before_cursor_execute', self._count)
        return self

    def __exit__(self, *exc):
        for engine in self.engines:
            sa.event.remove(engine, 'before_cursor_execute', self._count)
