"""Formatting shared by views."""
import re

# The version part that ends an API URL: /v2.1, or /v2 (the legacy v2
# compatible endpoint).
_VERSION_SUFFIX = re.compile(r'/v2(\.1)?$')


def unversioned(application_url):
    """The API's root URL for bookmark links: application_url without
    its trailing slash and /v2.1 (or /v2)."""
    return _VERSION_SUFFIX.sub('', application_url.rstrip('/'))


def isotime(value):
    """A datetime as the Compute API prints it (no zone, microseconds)."""
    if value is None:
        return None
    return value.replace(tzinfo=None).isoformat(timespec='microseconds')
