"""Flavor policy defaults: management, extra-spec writes and access-list
changes for administrators; extra-spec and access-list reads for project
readers too."""
import pytest

from nova_lite import exception
from nova_lite import policies
from nova_lite.policies import flavors as fl_policies
from nova_lite import policy
from tests.conftest import set_override
from tests.unit.api.test_policy_and_auth import _ctx

ADMIN_ONLY = [fl_policies.CREATE, fl_policies.UPDATE, fl_policies.DELETE,
              fl_policies.EXTRA_SPECS_CREATE, fl_policies.EXTRA_SPECS_UPDATE,
              fl_policies.EXTRA_SPECS_DELETE, fl_policies.ACCESS_ADD,
              fl_policies.ACCESS_REMOVE]
READERS = [fl_policies.EXTRA_SPECS_INDEX, fl_policies.EXTRA_SPECS_SHOW,
           fl_policies.ACCESS_LIST]


def test_every_flavor_rule_is_registered():
    names = {r.name for r in policies.list_rules()}
    assert set(ADMIN_ONLY + READERS) <= names


@pytest.mark.parametrize('action', ADMIN_ONLY)
def test_admin_only(enforcer, action):
    assert _ctx(['admin', 'member', 'reader']).can(action, target={})
    with pytest.raises(exception.PolicyNotAuthorized):
        _ctx(['member', 'reader']).can(action, target={})


@pytest.mark.parametrize('action', READERS)
def test_reads_for_readers_of_their_project(enforcer, action):
    reader = _ctx(['reader'])
    assert reader.can(action, target={'project_id': 'p1'})
    assert not reader.can(action, target={'project_id': 'p2'}, fatal=False)
    assert not _ctx([]).can(action, target={'project_id': 'p1'},
                            fatal=False)
    assert _ctx(['admin']).can(action, target={'project_id': 'p2'})


def test_access_list_read_is_the_same_under_legacy_defaults(enforcer):
    # Nova's deprecated default (admin or owner), ORed in by oslo.policy
    # only when enforce_new_defaults is False, admits nobody new here
    # beyond a project's users without a reader role.
    member = _ctx(['member', 'reader'])
    own = {'project_id': 'p1'}
    assert member.can(fl_policies.ACCESS_LIST, target=own)
    assert not _ctx([]).can(fl_policies.ACCESS_LIST, target=own,
                            fatal=False)
    set_override('enforce_new_defaults', False, group='oslo_policy')
    policy.reset()
    assert member.can(fl_policies.ACCESS_LIST, target=own)
    assert _ctx([]).can(fl_policies.ACCESS_LIST, target=own)
    assert not member.can(fl_policies.ACCESS_ADD, target={}, fatal=False)
