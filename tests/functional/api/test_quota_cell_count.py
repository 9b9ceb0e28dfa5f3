"""A boot counts the cells before its quota transaction and completes the
count under the project's lock (nova_lite.quota.cell_count): the result
is the usage counted all at once, whether servers stayed put, are still
build requests, or went into a cell between the two reads.

check_boot is driven here as the compute API drives it: count_for_boot,
then check_boot in an API DB writer transaction (rolled back: nothing is
written). The servers are booted through the REST API."""
import pytest

from nova_lite.db.api import api as api_db
from nova_lite import quota
from tests.functional.api.test_quotas import active
from tests.functional.api.test_quotas import boot
from tests.functional.api.test_quotas import forbidden
from tests.functional.api.test_quotas import project
from tests.functional.api.test_quotas import running  # noqa: F401
from tests.functional.api.test_quotas import set_quota
from tests.functional.db import inventory_helpers as h


class _Rollback(Exception):
    pass


def _check(running, project_id, user_id, cell_count,  # noqa: F811
           max_count=10):
    """check_boot's answer for max_count small servers (min_count 1), in
    a transaction rolled back; and the statements it ran per engine."""
    answer = []

    @api_db.writer
    def check(context):
        answer.append(quota.check_boot(
            context, project_id, user_id, 1, 512, 1, max_count,
            cell_count=cell_count))
        raise _Rollback()

    counter = h.StatementCounter(api=api_db.get_engines())
    with counter.counting():
        with pytest.raises(_Rollback):
            check(running.ctxt)
    return answer[0], counter


def test_count_outside_then_lock_fits_exactly(running):  # noqa: F811
    api = running.api
    project_id, token = project()
    user_id = token.split(':')[0]
    set_quota(api, project_id, instances=4)
    for _ in range(2):
        active(api, token, boot(api, token).json()['server']['id'])
    counted = quota.count_for_boot(running.ctxt, project_id, user_id)
    assert counted.totals[0] == 2
    fits, _ = _check(running, project_id, user_id, counted)
    assert fits == 2


def test_a_server_gone_into_a_cell_meanwhile_is_counted(running):  # noqa
    api = running.api
    project_id, token = project()
    user_id = token.split(':')[0]
    set_quota(api, project_id, instances=3)
    active(api, token, boot(api, token).json()['server']['id'])
    counted = quota.count_for_boot(running.ctxt, project_id, user_id)
    # Booted (and put in a cell) after the cells were counted: the
    # count is stale, the check under the lock must notice.
    active(api, token, boot(api, token).json()['server']['id'])
    fits, _ = _check(running, project_id, user_id, counted)
    assert fits == 1
    # Through the API: the third fits, the fourth does not.
    active(api, token, boot(api, token).json()['server']['id'])
    assert forbidden(boot(api, token, status=403)).startswith(
        'Quota exceeded for instances')


def test_pending_build_requests_count_once(running):  # noqa: F811
    """A build request whose instance a cell already holds (it is being
    put there) counts once, not twice."""
    api = running.api
    project_id, token = project()
    user_id = token.split(':')[0]
    set_quota(api, project_id, instances=2)
    uuid = boot(api, token).json()['server']['id']
    active(api, token, uuid)
    counted = quota.count_for_boot(running.ctxt, project_id, user_id)
    assert uuid in counted.young
    # As if its build request were still there, its mapping unset.
    pending = {uuid: (1, 512, user_id)}
    assert quota.cell_count.usage(counted, pending, user_id)[0] == 1


def test_unlimited_project_skips_the_count(running):  # noqa: F811
    api = running.api
    project_id, token = project()
    user_id = token.split(':')[0]
    set_quota(api, project_id, instances=-1, cores=-1, ram=-1)
    boot(api, token)
    assert quota.count_for_boot(running.ctxt, project_id, user_id) is None
    # Limited again: the check asks for the count (UsageNeeded), the
    # compute API counts and checks again.
    set_quota(api, project_id, instances=1)
    with pytest.raises(quota.UsageNeeded):
        _check(running, project_id, user_id, None)
    assert forbidden(boot(api, token, status=403)).startswith(
        'Quota exceeded for instances')


def test_an_older_server_moved_meanwhile_is_counted_once(
        running, monkeypatch):  # noqa: F811
    """A server no longer young whose mapping was pointed at a cell
    again after the count (a move): it may be counted in the cells
    already, so the cells are counted again -- once, not twice."""
    import time

    from nova_lite.objects import instance_mapping
    monkeypatch.setattr(quota.cell_count, 'CLOCK_SKEW', 1)
    monkeypatch.setattr(quota.cell_count, 'YOUNG_MARGIN', 0)
    api = running.api
    project_id, token = project()
    user_id = token.split(':')[0]
    set_quota(api, project_id, instances=3)
    uuid = boot(api, token).json()['server']['id']
    active(api, token, uuid)
    time.sleep(3)   # older than the young window
    counted = quota.count_for_boot(running.ctxt, project_id, user_id)
    assert uuid not in counted.young and counted.totals[0] == 1
    mapping = instance_mapping.InstanceMapping.get_by_instance_uuid(
        running.ctxt, uuid)
    time.sleep(1)
    instance_mapping.set_cell(running.ctxt, [uuid],
                              mapping.cell_mapping.uuid)
    fits, _ = _check(running, project_id, user_id, counted)
    assert fits == 2
