from tests.functional.api.fixtures import app, plane  # noqa: F401
