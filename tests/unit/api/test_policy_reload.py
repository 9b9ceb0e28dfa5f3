"""The enforcer reads changed policy files while the service runs, at
most once per policy.RELOAD_INTERVAL, and oslo.policy's reading of
each check's signature is remembered (nova_lite.policy)."""
import inspect
import os

from oslo_policy import _checks

from nova_lite import exception
from nova_lite import policy
from tests.conftest import set_override
from tests.unit.api.test_policy_and_auth import _ctx

RULE = 'os_compute_api:os-services:list'


def test_an_edited_policy_file_takes_effect_after_the_interval(
        enforcer, tmp_path, monkeypatch):
    policy_file = tmp_path / 'policy.yaml'
    policy_file.write_text('"%s": "role:reader"\n' % RULE)
    policy.init()       # registers [oslo_policy]
    set_override('policy_file', str(policy_file), group='oslo_policy')
    policy.reset()
    clock = [1000.0]
    monkeypatch.setattr(policy.time, 'monotonic', lambda: clock[0])
    searches = []
    real_find = policy.CONF.find_file
    monkeypatch.setattr(policy.CONF, 'find_file',
                        lambda path: searches.append(path) or real_find(path))
    reader = _ctx(['reader'])
    assert reader.can(RULE, target={})
    looked = len(searches)
    assert looked

    # Edited (a new mtime): not looked at within the interval ...
    policy_file.write_text('"%s": "role:admin"\n' % RULE)
    stat = policy_file.stat()
    os.utime(policy_file, (stat.st_atime, stat.st_mtime + 10))
    clock[0] += policy.RELOAD_INTERVAL / 2
    for _ in range(5):
        assert reader.can(RULE, target={})
    assert len(searches) == looked

    # ... and in force once it has passed.
    clock[0] += policy.RELOAD_INTERVAL
    assert not reader.can(RULE, target={}, fatal=False)
    assert len(searches) > looked
    assert _ctx(['admin']).can(RULE, target={})


def test_a_reset_enforcer_reads_the_files_again(enforcer, tmp_path):
    policy_file = tmp_path / 'policy.yaml'
    policy_file.write_text('"%s": "role:reader"\n' % RULE)
    policy.init()       # registers [oslo_policy]
    set_override('policy_file', str(policy_file), group='oslo_policy')
    policy.reset()
    assert _ctx(['reader']).can(RULE, target={})
    policy.reset()
    policy_file.write_text('"%s": "role:admin"\n' % RULE)
    try:
        _ctx(['reader']).can(RULE, target={})
    except exception.PolicyNotAuthorized:
        pass
    else:
        raise AssertionError('the reset enforcer kept the old rule')


def test_check_signatures_are_read_once(enforcer, monkeypatch):
    policy.init()
    reads = []
    getfullargspec = _checks.inspect.getfullargspec
    assert getfullargspec.memoized
    spec = getfullargspec(_checks.RuleCheck.__call__)
    assert spec == inspect.getfullargspec(_checks.RuleCheck.__call__)
    admin = _ctx(['admin', 'member', 'reader'])
    assert admin.can(RULE, target={})
    assert not _ctx([]).can(RULE, target={}, fatal=False)
    monkeypatch.setattr(inspect, 'getfullargspec',
                        lambda fn: reads.append(fn))
    for _ in range(3):
        assert admin.can(RULE, target={})
        assert not _ctx([]).can(RULE, target={}, fatal=False)
    # The checks' classes were read by the first check: inspect itself
    # is not asked again.
    assert reads == []
