import pytest
import webob

from nova_lite.api import auth
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import policies
from nova_lite.policies import hypervisors as hv_policies
from nova_lite.policies import services as sv_policies
from nova_lite import policy


def _ctx(roles, project='p1'):
    return nova_context.RequestContext(user_id='u', project_id=project,
                                       roles=roles)


def test_list_rules_names_every_documented_rule():
    names = {r.name for r in policies.list_rules()}
    assert {sv_policies.LIST, sv_policies.UPDATE, sv_policies.DELETE,
            hv_policies.LIST, hv_policies.SHOW} <= names


@pytest.mark.parametrize('action', [sv_policies.LIST, sv_policies.UPDATE,
                                    sv_policies.DELETE, hv_policies.LIST,
                                    hv_policies.LIST_DETAIL, hv_policies.SHOW])
def test_admin_only_by_default(enforcer, action):
    assert _ctx(['admin', 'member', 'reader']).can(action, target={})
    with pytest.raises(exception.PolicyNotAuthorized) as info:
        _ctx(['member', 'reader']).can(action, target={})
    assert info.value.code == 403 and action in info.value.format_message()
    assert _ctx(['reader']).can(action, target={}, fatal=False) is False


def test_personas(enforcer):
    member = _ctx(['member', 'reader'])
    assert policy.authorize(member, 'project_member_api',
                            {'project_id': 'p1'}, fatal=False)
    assert not policy.authorize(member, 'project_member_api',
                                {'project_id': 'p2'}, fatal=False)
    assert not policy.authorize(_ctx(['reader']), 'project_member_api',
                                {'project_id': 'p1'}, fatal=False)


def _seen_context(filter_cls, headers, path='/os-services'):
    seen = {}

    def app(environ, start_response):
        seen['ctx'] = environ[auth.CONTEXT_KEY]
        start_response('200 OK', [])
        return [b'']
    req = webob.Request.blank(path, headers=headers)
    req.get_response(filter_cls(app))
    return seen.get('ctx')


def test_noauth2_admin_and_member():
    ctx = _seen_context(auth.NoAuthMiddleware, {'X-Auth-Token': 'admin:p9'})
    assert (ctx.user_id, ctx.project_id, ctx.is_admin) == ('admin', 'p9',
                                                           True)
    ctx = _seen_context(auth.NoAuthMiddleware, {'X-Auth-Token': 'bob'})
    assert (ctx.user_id, ctx.project_id) == ('bob', 'bob')
    assert not ctx.is_admin and set(ctx.roles) == {'member', 'reader'}


def test_noauth2_without_token_is_401():
    app = auth.NoAuthMiddleware(lambda e, s: [])
    with pytest.raises(exception.Unauthorized):
        webob.Request.blank('/os-services').get_response(app)


def test_keystone_context_reads_auth_token_headers():
    ctx = _seen_context(auth.KeystoneContext, {
        'X-Identity-Status': 'Confirmed', 'X-User-Id': 'u1',
        'X-Project-Id': 'p1', 'X-Roles': 'reader,admin'})
    assert (ctx.user_id, ctx.project_id) == ('u1', 'p1')
    assert ctx.is_admin and 'reader' in ctx.roles


def test_keystone_context_rejects_invalid_identity():
    app = auth.KeystoneContext(lambda e, s: [])
    req = webob.Request.blank('/os-services',
                              headers={'X-Identity-Status': 'Invalid'})
    with pytest.raises(exception.Unauthorized):
        req.get_response(app)
