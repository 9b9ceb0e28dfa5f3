"""Small helpers shared by services and tools."""
import datetime
import re
import threading
import types


# user:password@ in each (possibly comma-separated) host of a URL's netloc.
_PASSWORD_IN_NETLOC = re.compile(r'(^|,)([^:@,/]*):([^@,/]*)@')


def last_completed_audit_period(unit='month', before=None):
    """(beginning, ending) naive UTC datetimes of the last audit period
    that ended at or before ``before`` (default: now). unit: hour, day,
    month or year, optionally '@N': the minute, hour, day (1-28) or
    month (1-12) at which a period starts."""
    unit, _, offset = unit.partition('@')
    offset = int(offset) if offset else None
    now = (before or datetime.datetime.utcnow()).replace(tzinfo=None)
    if unit == 'hour':
        end = now.replace(minute=offset or 0, second=0, microsecond=0)
        if end > now:
            end -= datetime.timedelta(hours=1)
        return end - datetime.timedelta(hours=1), end
    if unit == 'day':
        end = now.replace(hour=offset or 0, minute=0, second=0,
                          microsecond=0)
        if end > now:
            end -= datetime.timedelta(days=1)
        return end - datetime.timedelta(days=1), end
    if unit == 'month':
        day = min(offset or 1, 28)
        end = now.replace(day=day, hour=0, minute=0, second=0,
                          microsecond=0)
        if end > now:
            end = _months_before(end, 1)
        return _months_before(end, 1), end
    if unit == 'year':
        month = min(max(offset or 1, 1), 12)
        end = now.replace(month=month, day=1, hour=0, minute=0, second=0,
                          microsecond=0)
        if end > now:
            end = end.replace(year=end.year - 1)
        return end.replace(year=end.year - 1), end
    raise ValueError('unknown audit period %r' % unit)


def _months_before(moment, months):
    month = moment.month - months
    year = moment.year + (month - 1) // 12
    return moment.replace(year=year, month=(month - 1) % 12 + 1)


def mask_password(url):
    """url with every password in its netloc replaced by ****."""
    if not url or '://' not in url:
        return url
    scheme, rest = url.split('://', 1)
    netloc, sep, path = rest.partition('/')
    netloc = _PASSWORD_IN_NETLOC.sub(r'\1\2:****@', netloc)
    return '%s://%s%s%s' % (scheme, netloc, sep, path)


# Values per IN (...) list: under every backend's bound-parameter limit.
IN_CHUNK = 500


def chunks(items, size=IN_CHUNK):
    """items (any iterable) as lists of at most size."""
    items = list(items)
    for i in range(0, len(items), size):
        yield items[i:i + size]


def run_together(*fns, native=False):
    """Call every fn at once, return when all have returned, then raise
    the first error any of them raised.

    The fns run in threads: green threads under eventlet, which is what
    I/O on eventlet's green sockets (PyMySQL) needs to overlap.
    native=True is for work that blocks in C without yielding (sqlite3,
    psycopg2):
    the first fn runs in the calling thread and the others in threads of
    the OS, so that they run at once. Those must not use anything
    eventlet made green (locks, queues: e.g. checking out a pooled
    connection, logging) -- only statements on connections opened by the
    caller.
    """
    errors = []

    def call(fn):
        try:
            fn()
        except BaseException as e:
            errors.append(e)

    make_thread = threading.Thread
    first = []
    if native:
        first, fns = fns[:1], fns[1:]
        make_thread = _os_threading().Thread
    threads = [make_thread(target=call, args=(fn,)) for fn in fns]
    for thread in threads:
        thread.start()
    for fn in first:
        call(fn)
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def _os_threading():
    """The threading module as the OS provides it, even under eventlet's
    monkey patching."""
    import sys
    if 'eventlet' in sys.modules:
        from eventlet import patcher
        return patcher.original('threading')
    return threading


def memoized_argspec(read_argspec):
    """read_argspec (a library's signature reader), remembering each
    plain function's answer. Signatures of functions do not change, and
    a bound method's is its function's (self included, as inspect gives
    it). pecan reads a controller's signature several times per request
    with a reader that builds a namedtuple class (with eval) every time,
    about a tenth of a POST /flavors; oslo.policy reads each check's
    signature with inspect.getfullargspec at every check of every rule
    (2% of a server action). Both are library internals: see
    doc/private-apis.rst."""
    specs = {}

    def getargspec(func):
        func = getattr(func, '__func__', func)
        if not isinstance(func, types.FunctionType):
            return read_argspec(func)
        try:
            return specs[func]
        except KeyError:
            spec = specs[func] = read_argspec(func)
            return spec

    getargspec.memoized = True
    return getargspec


def noauth_client_environment(endpoint, token='admin:admin'):
    """{OS_* variable: value} that point the openstack client and
    openstacksdk at a noauth2 API on endpoint (http://host:port): the
    compute API, and the embedded identity, image, network, volume and
    shares services each at its own path (without the overrides the
    client would send those requests to the compute endpoint)."""
    return {
        'OS_AUTH_TYPE': 'admin_token',
        'OS_TOKEN': token,
        'OS_ENDPOINT': endpoint + '/v2.1',
        'OS_IDENTITY_API_VERSION': '3',
        'OS_IDENTITY_ENDPOINT_OVERRIDE': endpoint + '/identity',
        'OS_IMAGE_ENDPOINT_OVERRIDE': endpoint + '/image',
        'OS_NETWORK_ENDPOINT_OVERRIDE': endpoint + '/networking',
        'OS_BLOCK_STORAGE_ENDPOINT_OVERRIDE': endpoint + '/volume/v3',
        'OS_VOLUME_API_VERSION': '3',
        'OS_SHARED_FILE_SYSTEM_ENDPOINT_OVERRIDE': endpoint + '/share/v2',
    }


def export_line(environment):
    """One shell line exporting environment (values need no quoting)."""
    return 'export ' + ' '.join('%s=%s' % item for item in
                                environment.items())
