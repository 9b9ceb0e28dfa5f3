from tests.functional.api.fixtures import api_env  # noqa: F401
from tests.functional.api.fixtures import app  # noqa: F401
from tests.functional.api.fixtures import seeded  # noqa: F401
from tests.functional.api.fixtures import served  # noqa: F401
from tests.functional.api.flavor_fixtures import flavor_app  # noqa: F401
from tests.functional.api.flavor_fixtures import mixed  # noqa: F401
from tests.functional.notification_fixtures import notifications  # noqa: F401,E501
