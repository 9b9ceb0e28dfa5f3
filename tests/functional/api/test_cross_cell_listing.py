"""Never two copies, never none: while cross-cell resizes, confirms and
reverts run, another green thread lists servers (the owner's
/servers/detail and an administrator's all_tenants listing) and
/os-migrations continuously, and fails on a server shown twice or
missing, or a migration shown twice."""
import collections

import eventlet

from tests.functional.api.cross_cell_helpers import xplane  # noqa: F401
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import MEMBER


def _lister(xp, uuids, problems, stop, counts):
    while not stop:
        for path, token in (('/servers/detail', MEMBER),
                            ('/servers/detail?all_tenants=1', ADMIN)):
            body = xp.api('GET', path, version='2.47', token=token).json()
            seen = collections.Counter(s['id'] for s in body['servers'])
            for uuid in uuids:
                if seen[uuid] != 1:
                    problems.append('%s %s shown %d times' % (
                        path, uuid, seen[uuid]))
            counts['servers'] += 1
        body = xp.api('GET', '/os-migrations', version='2.59',
                      token=ADMIN).json()
        seen = collections.Counter(m['uuid'] for m in body['migrations'])
        for uuid, count in seen.items():
            if count > 1:
                problems.append('migration %s shown %d times'
                                % (uuid, count))
        counts['migrations'] += 1
        eventlet.sleep(0)


def test_listings_show_each_server_once_throughout(xplane):  # noqa: F811
    xp = xplane
    uuids = [xp.boot(cell='cell1'), xp.boot(cell='cell2')]
    problems, stop = [], []
    counts = collections.Counter()
    thread = eventlet.spawn(_lister, xp, uuids, problems, stop, counts)
    try:
        for finish in ('confirmResize', 'revertResize'):
            for uuid in uuids:
                other = xp.other_cell(uuid)
                flavor = ('medium' if xp.show(uuid)['flavor'][
                    'original_name'] == 'small' else 'large')
                xp.resize_into(uuid, other, flavor=flavor)
                if finish == 'confirmResize':
                    xp.act(uuid, {finish: None}, status=204)
                else:
                    xp.act(uuid, {finish: None})
                xp.wait_status(uuid, 'ACTIVE')
    finally:
        stop.append(True)
        thread.wait()
    assert problems == []
    assert counts['servers'] > 10 and counts['migrations'] > 5
    for uuid in uuids:
        xp.api('DELETE', '/servers/%s' % uuid, token=ADMIN)
        xp.gone(uuid)
