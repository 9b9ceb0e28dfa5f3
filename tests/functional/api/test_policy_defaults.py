"""Default policies, persona by persona, against the running seeded.

The API runs behind the keystone pipeline (keystonemiddleware's own
AuthTokenFixture stands in for Keystone's token validation), so each
persona is a real token with the roles Keystone would give it. Every rule
is in policy_table.py with the status Nova 34 answers (the same table
replayed against Nova 34 gives no mismatch), except the access-list reads,
which follow Nova's deprecated admin-or-owner default (issue 13).
"""
import json
import types

from keystonemiddleware import auth_token  # noqa: F401 (its options)
from keystonemiddleware import fixture as ks_fixture
import pytest
import webtest

from nova_lite import allinone
from nova_lite.api import app as api_app
from nova_lite import context as nova_context
from nova_lite.network import api as network_api
from nova_lite import objects
from nova_lite import policy
from tests.conftest import set_override
from tests.functional.api import policy_table as table
from tests.functional.api import server_fixtures


def _servers_of_project_a():
    """Three servers of the member's project in the first cell, written
    in the databases (the boot flow is not what these rows test): one
    active, one in error (both on a host no compute serves: casts to
    them go nowhere), and one active on the cell's first compute, for
    the rows whose answer that compute gives."""
    ctxt = nova_context.get_admin_context()
    cells = {c.name: c for c in objects.CellMappingList.get_all(ctxt)}
    env = types.SimpleNamespace(ctxt=ctxt, cells=cells)
    flavor = server_fixtures.flavor(ctxt, 'policy-server')
    uuids = [server_fixtures.add_server(
        env, 'cell1', flavor, project_id='project-a', vm_state=state,
        network_info=server_fixtures.network_info('10.0.0.7'))
        for state in ('active', 'error')]
    host = allinone.compute_hosts('cell1', 1)[0]
    uuids.append(server_fixtures.add_server(
        env, 'cell1', flavor, project_id='project-a', host=host,
        node=host))
    # The active one's port, in the project's default security group.
    network_api.API().allocate_for_instance(
        nova_context.RequestContext('bob', 'project-a'), uuids[0],
        'project-a', 'auto', 'cell1-compute1')
    return uuids


@pytest.fixture
def as_persona(plane_no_api):
    """call(persona, method, path, body, version) -> response, through
    the keystone pipeline of the seeded cells' API."""
    set_override('auth_strategy', 'keystone', group='api')
    set_override('www_authenticate_uri', 'http://keystone.test/identity',
                 group='keystone_authtoken')
    tokens = ks_fixture.AuthTokenFixture()
    tokens.setUp()
    for persona, (project, roles) in table.PERSONAS.items():
        tokens.add_token_data(token_id=persona, user_id='user-' + persona,
                              project_id=project, role_list=roles)
    policy.reset()
    app = webtest.TestApp(api_app.load_app())
    names = {}

    def call(persona, method, path, body, version):
        return app.request(
            '/v2.1' + table.expand(path, names), method=method,
            headers={'X-Auth-Token': persona,
                     'OpenStack-API-Version': 'compute ' + version,
                     'Content-Type': 'application/json'},
            body=None if body is None else
            json.dumps(table.expand(body, names)).encode(),
            expect_errors=True)

    for method, path, body, version in table.SETUP:
        assert call(table.ADMIN, method, path, body, version).status_int \
            == 200, (method, path)
    node = call(table.ADMIN, 'GET', '/os-hypervisors/detail', None,
                '2.53').json['hypervisors'][0]
    service = [s for s in call(table.ADMIN, 'GET', '/os-services', None,
                               '2.53').json['services']
               if s['id'] == node['service']['id']][0]
    server, error_server, wired_server = _servers_of_project_a()
    names.update(compute=service['id'], host=service['host'],
                 binary=service['binary'], node=node['id'],
                 hostname=node['hypervisor_hostname'],
                 server=server, error_server=error_server,
                 wired_server=wired_server)
    group = call(table.MEMBER, 'POST', '/os-server-groups',
                 {'server_group': {'name': 'policy-group',
                                   'policy': 'affinity'}}, '2.64')
    names.update(group=group.json['server_group']['id'])
    yield lambda *args: call(*args).status_int
    tokens.cleanUp()
    policy.reset()


def test_every_persona_gets_nova_default_policy_answers(as_persona):
    assert table.mismatches(table.ROWS, as_persona) == []


def test_a_project_manager_gets_nova_default_policy_answers(as_persona):
    assert table.mismatches(table.MANAGER_ROWS, as_persona) == []


def test_legacy_defaults_let_a_project_read_its_flavor_access(as_persona):
    set_override('enforce_new_defaults', False, group='oslo_policy')
    policy.reset()
    assert table.mismatches(table.LEGACY_ROWS, as_persona) == []
