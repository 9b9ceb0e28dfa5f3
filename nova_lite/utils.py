"""Small helpers shared by services and tools."""
import re
import threading


# user:password@ in each (possibly comma-separated) host of a URL's netloc.
_PASSWORD_IN_NETLOC = re.compile(r'(^|,)([^:@,/]*):([^@,/]*)@')


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


def run_together(*fns):
    """Call every fn at once (green threads under eventlet), return when
    all have returned, then raise the first error any of them raised."""
    errors = []

    def call(fn):
        try:
            fn()
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=call, args=(fn,)) for fn in fns]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
