"""Contexts for tests on cells_env's databases: an administrator and a
user of project p1 (the local-services tests use them)."""
import pytest

from nova_lite import context as nova_context


@pytest.fixture
def admin(cells_env):
    return cells_env.ctxt


@pytest.fixture
def user(cells_env):
    return nova_context.RequestContext(user_id='u1', project_id='p1')
