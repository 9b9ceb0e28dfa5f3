#!/usr/bin/env python3
"""GET /flavors/detail latency through the whole API pipeline (issue 4,
item 5).

    python tools/bench/flavor_api.py [--list-flavors 1000] [--limit 1000]
        [--specs 5] [--projects 3] [--backends sqlite,mysql] [--repeat 5]
        [--json]

L API flavors + L legacy flavors (each with S extra specs and P projects);
the median wall time of GET /flavors/detail?limit=N&is_public=None served
in-process by the paste pipeline (request id, faults, limits, noauth2,
microversion, pecan, controller, FlavorList, view, json) at microversion
2.1 and at 2.61 (extra specs in every flavor), against the floor: a raw
SELECT of the same page of flavor rows from both databases, merged, plus
json.dumps (at 2.61 the floor also selects the page's extra specs).
Target: <= 3x. Also reported: the FlavorList.get_all call alone (the
objects layer), so that what the API adds on top of it shows.

Every figure is printed; nothing is asserted.
"""
import argparse
import json
import os
import sys

import sqlalchemy as sa
import webob

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import flavor_migration as fm  # noqa: E402

from nova_lite.api import app as api_app  # noqa: E402
from nova_lite.conf import CONF  # noqa: E402
from nova_lite import context as nova_context  # noqa: E402
from nova_lite.db.api import api as api_db  # noqa: E402
from nova_lite.db.main import api as main_db  # noqa: E402
from nova_lite import objects  # noqa: E402
from nova_lite.objects import flavor as flavor_obj  # noqa: E402
from nova_lite import policy  # noqa: E402


def _request(app, limit, version):
    req = webob.Request.blank(
        '/v2.1/flavors/detail?is_public=None&limit=%d' % limit,
        headers={'X-Auth-Token': 'admin:admin',
                 'OpenStack-API-Version': 'compute %s' % version})
    resp = req.get_response(app)
    assert resp.status_int == 200, resp.text[:500]
    return resp.body


def _raw(limit, with_specs):
    """The floor: the page's flavor rows (and specs) from both databases,
    merged in flavorid order, as JSON."""
    cols = ', '.join(fm.FLAVOR_COLUMNS)
    rows = []
    for engine, gen in ((api_db.get_engine(), flavor_obj.API),
                        (main_db.get_engine(), flavor_obj.LEGACY)):
        with engine.connect() as conn:
            page = [dict(r._mapping) for r in conn.execute(sa.text(
                'SELECT id, %s FROM %s WHERE deleted = 0 ORDER BY flavorid '
                'LIMIT %d' % (cols, gen.flavors.name, limit)))]
            if with_specs and page:
                by_id = {r['id']: r for r in page}
                for r in page:
                    r['extra_specs'] = {}
                specs = gen.extra_specs
                for fid, key, value in conn.execute(
                        sa.select(specs.c.flavor_id, specs.c.key,
                                  specs.c.value).where(
                            specs.c.deleted == 0,
                            specs.c.flavor_id.in_(list(by_id)))):
                    by_id[fid]['extra_specs'][key] = value
            rows += page
    rows.sort(key=lambda r: r['flavorid'])
    return json.dumps({'flavors': rows[:limit]}, default=str)


def bench(backend, args):
    fm.deployment(backend, args, api_n=args.list_flavors,
                  legacy_n=args.list_flavors)
    app = api_app.load_app()
    result = {'backend': backend.kind, 'flavors_per_generation':
              args.list_flavors, 'limit': args.limit}
    expected = min(args.limit, 2 * args.list_flavors)
    body = json.loads(_request(app, args.limit, '2.61'))
    assert len(body['flavors']) == expected
    assert all(len(f['extra_specs']) == args.specs for f in body['flavors'])
    ctxt = nova_context.get_admin_context()
    result['objects_s'] = fm._median(
        lambda: objects.FlavorList.get_all(
            ctxt, filters={'is_public': None}, limit=args.limit),
        args.repeat)
    for version, with_specs in (('2.1', False), ('2.61', True)):
        api_s = fm._median(lambda: _request(app, args.limit, version),
                           args.repeat)
        raw_s = fm._median(lambda: _raw(args.limit, with_specs),
                           args.repeat)
        key = version.replace('.', '_')
        result.update({'api_%s_s' % key: api_s, 'raw_%s_s' % key: raw_s,
                       'ratio_%s' % key: api_s / raw_s})
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--list-flavors', type=int, default=1000)
    parser.add_argument('--limit', type=int, default=1000)
    parser.add_argument('--specs', type=int, default=5)
    parser.add_argument('--projects', type=int, default=3)
    parser.add_argument('--backends', default='sqlite')
    parser.add_argument('--repeat', type=int, default=5)
    parser.add_argument('--json', action='store_true')
    args = parser.parse_args(argv)
    CONF([], project='nova_lite', default_config_files=[])
    CONF.set_override('auth_strategy', 'noauth2', group='api')
    CONF.set_override('max_limit', max(args.limit, 1), group='api')
    policy.reset()
    results = []
    for kind in args.backends.split(','):
        backend = fm.Backend(kind)
        try:
            results.append(bench(backend, args))
        finally:
            api_db.reset()
            main_db.reset()
            backend.cleanup()
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for r in results:
        print('%(backend)s: GET /flavors/detail?limit=%(limit)d, '
              '%(flavors_per_generation)d API + %(flavors_per_generation)d '
              'legacy flavors' % r)
        for version in ('2.1', '2.61'):
            key = version.replace('.', '_')
            print('  %-5s API %8.4f s   raw SELECT+json.dumps %8.4f s   '
                  '(%.2fx)' % (version, r['api_%s_s' % key],
                               r['raw_%s_s' % key], r['ratio_%s' % key]))
        print('  FlavorList.get_all alone %8.4f s' % r['objects_s'])
    return 0


if __name__ == '__main__':
    sys.exit(main())
