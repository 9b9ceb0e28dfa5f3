"""GET /os-instance_usage_audit_log[/{before_timestamp}] on a running
plane (two cells): before any audit every compute is a host that has
not run; with [DEFAULT] instance_usage_audit each compute's periodic
task audits the last completed period once (a task log per host), and
the API then reports every host done with the servers it counted; a
timestamp chooses another period; bad timestamps are 400s;
administrators only; statements do not grow with servers."""
import datetime

import sqlalchemy as sa

from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.main import api as main_db
from nova_lite.db.main import models
from nova_lite import utils
from tests.functional.api.plane_fixtures import override  # noqa: F401
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.db.flavor_helpers import QueryCounter

PATH = '/os-instance_usage_audit_log'


def _audit(running, suffix=''):
    resp = running.api('GET', PATH + suffix, token=ADMIN)
    assert resp.status_code == 200, resp.text
    return resp.json()


def _managers(running):
    return [(e, s.context) for s in running.plane.services
            for e in s.endpoints if hasattr(e, '_usage_audit')]


def _backdate(running, uuid, days):
    """Make a server look created days ago (what the audit of a past
    period counts)."""
    then = datetime.datetime.utcnow() - datetime.timedelta(days=days)
    for cell in running.cells.values():
        with nova_context.target_cell(running.ctxt, cell) as cctxt:
            with main_db.get_engines(cctxt)[0].begin() as conn:
                conn.execute(sa.update(models.Instance.__table__).where(
                    models.Instance.__table__.c.uuid == uuid).values(
                        created_at=then, launched_at=then))


def test_usage_audit_log(running, override):  # noqa: F811
    computes = sorted(running._computes())
    beginning, ending = utils.last_completed_audit_period('month')
    before = _audit(running)['instance_usage_audit_logs']
    assert before == {
        'period_beginning': str(beginning), 'period_ending': str(ending),
        'num_hosts': len(computes), 'num_hosts_done': 0,
        'num_hosts_running': 0, 'num_hosts_not_run': len(computes),
        'hosts_not_run': computes, 'total_instances': 0,
        'total_errors': 0, 'log': {},
        'overall_status': '0 of %d hosts done. 0 errors.' % len(computes)}

    old = running.boot('cell1')
    running.boot('cell2')       # created after the period: not counted
    _backdate(running, old, days=45)
    old_host = running.host(old)
    managers = _managers(running)
    assert len(managers) == len(computes)
    for manager, ctxt in managers:      # the audit is off by default
        manager.periodic_tasks(ctxt)
    assert _audit(running)['instance_usage_audit_logs'] == before

    override('instance_usage_audit', True)
    for _ in range(2):                  # once per host and period
        for manager, ctxt in managers:
            manager.periodic_tasks(ctxt)
    after = _audit(running)['instance_usage_audit_logs']
    assert after['num_hosts_done'] == len(computes)
    assert after['hosts_not_run'] == [] and after['num_hosts_not_run'] == 0
    assert after['total_instances'] == 1 and after['total_errors'] == 0
    assert after['overall_status'] == 'ALL hosts done. 0 errors.'
    assert sorted(after['log']) == computes
    assert after['log'][old_host]['state'] == 'DONE'
    assert after['log'][old_host]['instances'] == 1
    assert 'Instance usage audit ran for host %s' % old_host in \
        after['log'][old_host]['message']

    # Another period: nothing was audited for it.
    earlier = _audit(running, '/%s' % str(beginning - datetime.timedelta(
        days=1)))['instance_usage_audit_log']
    assert earlier['period_ending'] == str(
        utils.last_completed_audit_period(
            'month', beginning - datetime.timedelta(days=1))[1])
    assert earlier['num_hosts_done'] == 0 and earlier['log'] == {}
    # The microsecond form is read too.
    assert _audit(running, '/%s.000001' % str(ending))[
        'instance_usage_audit_log']['period_ending'] == str(ending)


def test_bad_timestamps_and_policy(running):
    for bad in ('yesterday', '2026-13-01 00:00:00', '2026-11-01T00:00:00'):
        resp = running.api('GET', '%s/%s' % (PATH, bad), token=ADMIN)
        assert resp.status_code == 400, (bad, resp.text)
        assert resp.json()['badRequest']['message'] == (
            'Invalid timestamp for date %s' % bad)
    for path in (PATH, PATH + '/2026-11-01 00:00:00'):
        resp = running.api('GET', path, token=MEMBER)
        assert resp.status_code == 403, resp.text


def test_statements_do_not_grow_with_servers(running):
    engines = api_db.get_engines()
    for cell in running.cells.values():
        with nova_context.target_cell(running.ctxt, cell) as cctxt:
            engines.extend(main_db.get_engines(cctxt))

    def statements():
        with QueryCounter(*engines) as counter:
            _audit(running)
        return counter.count

    few = statements()
    running.boot('cell1')
    running.boot('cell2')
    # The cells (API DB); per cell but cell0 its compute services and
    # task logs.
    assert statements() == few == 1 + 2 * (len(running.cells) - 1)
