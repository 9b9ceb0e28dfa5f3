"""The Compute API microversions nova_lite speaks: one table, named constants.

Code branches on these names (``if version >= SERVICE_HYPERVISOR_UUID_IDS``),
never on bare strings; a range that ends where a version begins ends at
``before(NAME)``. Each entry is described in doc/api_version_history.rst. MAX
only grows when every implemented resource behaves at it as the Compute API
reference says.
"""
import re

from nova_lite import exception

MIN = '2.1'
# flavors: adding access to a public flavor is a 409.
FLAVOR_ACCESS_PUBLIC_CONFLICT = '2.7'
# os-services: forced_down in responses; PUT /os-services/force-down.
SERVICE_FORCED_DOWN = '2.11'
# os-hypervisors: cpu_info is a JSON object instead of a string.
HYPERVISOR_CPU_INFO_OBJECT = '2.28'
# os-hypervisors: limit and marker on list and detail.
HYPERVISOR_PAGING = '2.33'
# os-services and os-hypervisors: ids are UUIDs; PUT /os-services/{id};
# hypervisor_hostname_pattern and with_servers; /search and /servers gone.
SERVICE_HYPERVISOR_UUID_IDS = '2.53'
# flavors carry a description (POST, and PUT /flavors/{id}).
FLAVOR_DESCRIPTION = '2.55'
# flavor bodies carry extra_specs (when the extra-specs index policy allows).
FLAVOR_EXTRA_SPECS_IN_BODY = '2.61'
# os-services: services of a cell that does not answer are listed with
# status UNKNOWN instead of being left out.
SERVICE_DOWN_CELLS = '2.69'
# Unknown query parameters on os-services and flavor lists are rejected;
# with_servers on os-hypervisors always returns a servers list, possibly
# empty; a flavor without swap says 0 instead of "".
STRICT_QUERY_EMPTY_SERVERS = '2.75'
# os-hypervisors: capacity fields, /statistics and /{id}/uptime removed;
# uptime is part of show and detail.
HYPERVISOR_CAPACITY_REMOVED = '2.88'
MAX = '2.88'

SERVICE_TYPE = 'compute'
LEGACY_HEADER = 'X-OpenStack-Nova-API-Version'
STANDARD_HEADER = 'OpenStack-API-Version'
ENVIRON_KEY = 'nova_lite.api_version'

_VERSION_RE = re.compile(r'^([1-9]\d*)\.([1-9]\d*|0)$')


class APIVersion(object):
    """A parsed microversion, comparable with another one or a 'X.Y' string."""

    __slots__ = ('major', 'minor')

    def __init__(self, version):
        if isinstance(version, APIVersion):
            self.major, self.minor = version.major, version.minor
            return
        match = _VERSION_RE.match(str(version).strip())
        if not match:
            raise exception.InvalidAPIVersionString(version=version)
        self.major, self.minor = int(match.group(1)), int(match.group(2))

    def _key(self):
        return (self.major, self.minor)

    @staticmethod
    def _coerce(other):
        return other if isinstance(other, APIVersion) else APIVersion(other)

    def __eq__(self, other):
        return self._key() == self._coerce(other)._key()

    def __ne__(self, other):
        return not self == other

    def __lt__(self, other):
        return self._key() < self._coerce(other)._key()

    def __le__(self, other):
        return self._key() <= self._coerce(other)._key()

    def __gt__(self, other):
        return self._key() > self._coerce(other)._key()

    def __ge__(self, other):
        return self._key() >= self._coerce(other)._key()

    def __hash__(self):
        return hash(self._key())

    def __str__(self):
        return '%d.%d' % self._key()

    __repr__ = __str__

    def matches(self, min_version=None, max_version=None):
        """True if min_version <= self <= max_version (None = unbounded)."""
        if min_version is not None and self < min_version:
            return False
        if max_version is not None and self > max_version:
            return False
        return True


def before(version):
    """The version just before ``version`` ('2.53' -> '2.52'): the upper
    bound of a range that ends where a named version begins."""
    version = APIVersion(version)
    if version.minor == 0:
        raise ValueError('no version before %s' % version)
    return '%d.%d' % (version.major, version.minor - 1)


def min_version():
    return APIVersion(MIN)


def max_version():
    return APIVersion(MAX)


def from_header_value(value):
    """Turn a requested version (None, 'latest' or 'X.Y') into an APIVersion.

    Raises InvalidAPIVersionString (400) for a malformed value and
    InvalidGlobalAPIVersion (406) for one outside MIN..MAX.
    """
    if value is None:
        return min_version()
    if value.strip().lower() == 'latest':
        return max_version()
    version = APIVersion(value)
    if not version.matches(MIN, MAX):
        raise exception.InvalidGlobalAPIVersion(
            req_ver=str(version), min_ver=MIN, max_ver=MAX)
    return version
