"""Canary of nova_lite._compat.oslo_policy: oslo.policy's checks read
signatures through the inspect module its _checks module imported."""
import inspect

from oslo_config import cfg
from oslo_policy import _checks
from oslo_policy import policy

from nova_lite._compat import oslo_policy as policy_compat


def test_checks_read_signatures_through_checks_inspect(monkeypatch):
    assert _checks.inspect.getfullargspec.__name__ in (
        'getfullargspec', 'getargspec')
    monkeypatch.setattr(_checks, 'inspect', inspect)
    read = []

    def counting(reader):
        def getfullargspec(func):
            read.append(func)
            return reader(func)
        getfullargspec.memoized = True
        return getfullargspec

    policy_compat.memoize_check_signatures(counting)
    assert _checks.inspect is not inspect
    assert _checks.inspect.signature is inspect.signature
    enforcer = policy.Enforcer(cfg.ConfigOpts(), use_conf=False,
                               rules=policy.Rules.from_dict(
                                   {'canary': 'role:admin or rule:other',
                                    'other': 'role:member'}))
    assert enforcer.enforce('canary', {}, {'roles': ['member']})
    assert read, 'oslo.policy no longer reads check signatures there'
    # Once per process: a second call keeps the first reader.
    reader = policy_compat.check_signature_reader()
    policy_compat.memoize_check_signatures(counting)
    assert policy_compat.check_signature_reader() is reader
