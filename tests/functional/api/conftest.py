from tests.functional.api.fixtures import api_env, app, plane  # noqa: F401
from tests.functional.api.flavor_fixtures import flavor_app  # noqa: F401
from tests.functional.api.flavor_fixtures import mixed  # noqa: F401
