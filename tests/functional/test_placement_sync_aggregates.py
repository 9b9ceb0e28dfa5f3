"""``nova-lite-manage placement sync_aggregates``: a compute node's
provider that is missing from the placement aggregates of its host's
host aggregates (its provider came later, or they drifted) is made a
member again, as Nova's command does; idempotent; hosts it cannot sync
give Nova's exit codes."""
import json
import sqlite3
import urllib.error
import urllib.request

import pytest
import sqlalchemy as sa

from nova_lite import allinone
from nova_lite.cmd import manage
from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite.placement import aggregates as placement_aggregates
from nova_lite.placement import db as placement_db
from tests.functional.conftest import start_plane
from tests.functional.conftest import stop_plane

ADMIN = {'X-Auth-Token': 'admin:admin', 'Content-Type': 'application/json',
         'OpenStack-API-Version': 'compute 2.41'}


def call(plane, method, path, body=None):
    req = urllib.request.Request(
        plane.endpoint + '/v2.1' + path, method=method, headers=ADMIN,
        data=None if body is None else json.dumps(body).encode())
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            raw = resp.read()
            return resp.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b'null')


@pytest.fixture
def plane(tmp_path, conf):
    p = start_plane(tmp_path / 'state')
    yield p
    stop_plane(p)


def _sync(plane, capsys, *args):
    capsys.readouterr()
    code = manage.main(['--config-file', plane.state_dir + '/nova_lite.conf',
                        'placement', 'sync_aggregates'] + list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _node(host):
    ctxt = nova_context.get_admin_context()
    mapping = objects.HostMapping.get_by_host(ctxt, host)
    with nova_context.target_cell(ctxt, mapping.cell_mapping) as cctxt:
        return objects.ComputeNodeList.get_all_by_host(cctxt, host)[0].uuid


def _members(plane, provider):
    """The provider's placement aggregates, read from the API database
    file (nova-lite-manage leaves this process without its config)."""
    with sqlite3.connect(_api_db(plane)) as conn:
        return sorted(uuid for (uuid,) in conn.execute(
            'SELECT a.uuid FROM placement_aggregates a JOIN '
            'resource_provider_aggregates m ON m.aggregate_id = a.id JOIN '
            'resource_providers p ON p.id = m.resource_provider_id '
            'WHERE p.uuid = ?', (provider,)))


def _api_db(plane):
    return allinone.sqlite_url(plane.state_dir, 'api')[len('sqlite:///'):]


def _drop_memberships(provider):
    """What a provider made after its host joined looks like."""
    ctxt = nova_context.get_admin_context()
    with placement_db.writing(ctxt) as session:
        rp_id = session.execute(sa.select(placement_aggregates.RP.c.id).where(
            placement_aggregates.RP.c.uuid == provider)).scalar_one()
        session.execute(placement_aggregates.RPA.delete().where(
            placement_aggregates.RPA.c.resource_provider_id == rp_id))


def test_sync_aggregates_adds_missing_members(plane, capsys):
    ctxt = nova_context.get_admin_context()
    status, body = call(plane, 'POST', '/os-aggregates',
                        {'aggregate': {'name': 'rack1'}})
    assert status == 200, body
    agg = body['aggregate']
    hosts = sorted(s['host'] for s in call(
        plane, 'GET', '/os-services?binary=nova-compute')[1]['services'])[:2]
    for host in hosts:
        status, body = call(plane, 'POST', '/os-aggregates/%s/action'
                            % agg['id'], {'add_host': {'host': host}})
        assert status == 200, body
    nodes = [_node(h) for h in hosts]
    for node in nodes:
        assert placement_aggregates.aggregates_of(ctxt, node) == [
            agg['uuid']]
    _drop_memberships(nodes[1])
    assert placement_aggregates.aggregates_of(ctxt, nodes[1]) == []

    code, out, err = _sync(plane, capsys, '--verbose')
    assert code == 0, (out, err)
    assert 'Provider %s of host %s added to aggregate %s.' % (
        nodes[1], hosts[1], agg['uuid']) in out
    assert 'Added 1 resource provider(s)' in out
    assert _members(plane, nodes[1]) == _members(plane, nodes[0]) == [
        agg['uuid']]

    code, out, err = _sync(plane, capsys)
    assert code == 0 and 'Added 0 resource provider(s)' in out


def test_sync_aggregates_reports_hosts_it_cannot_sync(plane, capsys):
    status, body = call(plane, 'POST', '/os-aggregates',
                        {'aggregate': {'name': 'rack2'}})
    assert status == 200, body
    host = sorted(s['host'] for s in call(
        plane, 'GET', '/os-services?binary=nova-compute')[1]['services'])[0]
    status, body = call(plane, 'POST', '/os-aggregates/%s/action'
                        % body['aggregate']['id'],
                        {'add_host': {'host': host}})
    assert status == 200, body
    # A member whose host mapping is gone (deleted by hand).
    with sqlite3.connect(_api_db(plane)) as conn:
        conn.execute('DELETE FROM host_mappings WHERE host = ?', (host,))
    code, out, err = _sync(plane, capsys)
    assert code == 4, (out, err)
    assert 'Failed to find host mappings for hosts: %s.' % host in err
