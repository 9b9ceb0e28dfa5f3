import pytest

from nova_lite.conf import CONF
from nova_lite import policy


@pytest.fixture
def enforcer(conf):
    """A fresh policy enforcer with the registered defaults."""
    CONF([], project='nova_lite', default_config_files=[])
    policy.reset()
    yield
    policy.reset()
