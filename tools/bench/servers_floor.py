#!/usr/bin/env python3
"""Helper of tools/bench/servers.py, run in its own process over an
all-in-one's state directory (read only):

    python tools/bench/servers_floor.py STATE_DIR RUNS

Prints one JSON line: the SQL statements one GET
/v2.1/servers/detail?limit=200 (microversion 2.47, admin) runs through
the real API app in this process, and the raw floor -- the same page's
rows read per cell with plain SELECTs (instances joined to their
instance_extra and info cache, metadata and tags by IN), merged and
dumped with json.dumps -- p50 over RUNS.
"""
import heapq
import json
import os
import statistics
import sys
import time

import sqlalchemy as sa
import webob

from nova_lite.api import app as api_app
from nova_lite import config
from nova_lite import context as nova_context
from nova_lite import objects


def count_statements(app):
    counted = []

    def before(conn, cursor, statement, *args):
        counted.append(statement)
    sa.event.listen(sa.engine.Engine, 'before_cursor_execute', before)
    req = webob.Request.blank('/v2.1/servers/detail?limit=200', headers={
        'X-Auth-Token': 'admin:admin',
        'OpenStack-API-Version': 'compute 2.47'})
    req.get_response(app)            # warm caches
    counted.clear()
    resp = req.get_response(app)
    sa.event.remove(sa.engine.Engine, 'before_cursor_execute', before)
    assert resp.status_int == 200, resp.body[:300]
    assert len(json.loads(resp.body)['servers']) == 200
    return len(counted)


PAGE = """SELECT i.*, e.flavor, c.network_info FROM instances i
LEFT OUTER JOIN instance_extra e ON e.instance_uuid = i.uuid AND e.deleted = 0
LEFT OUTER JOIN instance_info_caches c ON c.instance_uuid = i.uuid
  AND c.deleted = 0
WHERE i.deleted = 0 AND i.hidden = 0
ORDER BY i.created_at DESC, i.uuid DESC LIMIT 200"""


def floor_once(engines):
    pages = []
    for engine in engines:
        with engine.connect() as conn:
            rows = [dict(r._mapping) for r in conn.execute(sa.text(PAGE))]
            uuids = [r['uuid'] for r in rows]
            by = {r['uuid']: r for r in rows}
            for r in rows:
                r['metadata'], r['tags'] = {}, []
            if uuids:
                marks = ','.join("'%s'" % u for u in uuids)
                for u, k, v in conn.execute(sa.text(
                        'SELECT instance_uuid, "key", value FROM '
                        'instance_metadata WHERE deleted = 0 AND '
                        'instance_uuid IN (%s)' % marks)):
                    by[u]['metadata'][k] = v
                for u, t in conn.execute(sa.text(
                        'SELECT resource_id, tag FROM tags WHERE '
                        'resource_id IN (%s)' % marks)):
                    by[u]['tags'].append(t)
            pages.append(rows)
    merged = list(heapq.merge(*pages, key=lambda r: (r['created_at'],
                                                     r['uuid']),
                              reverse=True))[:200]
    return json.dumps({'servers': merged}, default=str)


def main():
    state, runs = sys.argv[1], int(sys.argv[2])
    config.parse_args(['servers_floor', '--config-file',
                       os.path.join(state, 'nova_lite.conf')],
                      default_config_files=[], configure_logging=False)
    app = api_app.load_app()
    statements = count_statements(app)
    ctxt = nova_context.get_admin_context()
    engines = [sa.create_engine(c.database_connection)
               for c in objects.CellMappingList.get_all(ctxt)
               if not c.is_cell0()]
    floor_once(engines)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        floor_once(engines)
        times.append(time.perf_counter() - start)
    print(json.dumps({'statements': statements,
                      'floor_p50_ms': 1000 * statistics.median(times)}))


if __name__ == '__main__':
    main()
