#!/usr/bin/env python3
"""Helpers of tools/bench/servers.py over an all-in-one's state
directory (read only).

- Floor(state_dir)(): the raw floor of GET /v2.1/servers/detail?limit=200
  -- the same page's rows read per cell with plain SELECTs (instances
  joined to their instance_extra and info cache, metadata and tags by
  IN), merged and dumped with json.dumps. servers.py times it
  alternately with the HTTP listings.
- ``python tools/bench/servers_floor.py STATE_DIR`` prints one JSON
  line: the SQL statements one such listing (microversion 2.47, admin)
  runs through the real API app in this process.
"""
import configparser
import heapq
import json
import os
import sys

import sqlalchemy as sa
import webob

from nova_lite.api import app as api_app
from nova_lite import config


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


class Floor(object):
    """One engine per cell (cell0 aside) of the all-in-one in state_dir,
    found with plain SQL in its API database; calling it runs the floor
    once."""

    def __init__(self, state_dir):
        conf = configparser.ConfigParser(interpolation=None)
        conf.read(os.path.join(state_dir, 'nova_lite.conf'))
        api = sa.create_engine(conf['api_database']['connection'])
        with api.connect() as conn:
            urls = [row[0] for row in conn.execute(sa.text(
                "SELECT database_connection FROM cell_mappings WHERE uuid "
                "!= '00000000-0000-0000-0000-000000000000'"))]
        api.dispose()
        self.engines = [sa.create_engine(url) for url in urls]
        self()      # warm

    def __call__(self):
        return floor_once(self.engines)


def main():
    config.parse_args(['servers_floor', '--config-file',
                       os.path.join(sys.argv[1], 'nova_lite.conf')],
                      default_config_files=[], configure_logging=False)
    print(json.dumps({'statements': count_statements(api_app.load_app())}))


if __name__ == '__main__':
    main()
