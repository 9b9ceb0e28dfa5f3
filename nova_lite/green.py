"""Green threads for every service: eventlet's monkey patching plus the
database drivers it cannot reach.

eventlet makes Python's sockets cooperative, so PyMySQL (pure Python)
yields while it waits for MariaDB. psycopg2 waits for PostgreSQL in C,
on a socket eventlet never sees: one slow statement would stop every
green thread of the process. psycogreen's eventlet patch installs a wait
callback (``psycopg2.extensions.set_wait_callback``) so that psycopg2
runs each statement asynchronously and waits in eventlet's hub instead.
sqlite3 stays blocking (nova_lite.db.sqlite takes care of it).

eventlet's own ``monkey_patch()`` with its default arguments installs an
equivalent callback of its own when psycopg2 is importable; the services
do not rely on that default (it is gone with ``psycopg=False``, and
eventlet itself is in maintenance mode): the callback installed here is
psycogreen's, explicitly (tests/real/test_postgresql_green.py).

``monkey_patch()`` is called once, first thing, by ``nova_lite.cmd``
(every console entry point); ``patch_db_drivers()`` alone is for a
process some other code already monkey-patched (a WSGI server's eventlet
worker loading ``nova_lite.wsgi.osapi_compute``).
"""
import warnings

# eventlet announces its own deprecation on import: noise for an operator.
warnings.filterwarnings('ignore', message=r'(?s).*eventlet')

import eventlet  # noqa: E402
from eventlet import patcher  # noqa: E402


def monkey_patch():
    """eventlet's monkey patching of the standard library, then the
    database drivers (idempotent)."""
    eventlet.monkey_patch()
    patch_db_drivers()


def patch_db_drivers():
    """Make psycopg2 wait in eventlet's hub (idempotent). A no-op in a
    process whose sockets eventlet has not patched: there a wait in the
    hub would stop the thread as surely as one in C, with more cost."""
    if not patcher.is_monkey_patched('socket'):
        return False
    from psycogreen import eventlet as green_psycopg
    green_psycopg.patch_psycopg()
    return True


def db_drivers_patched():
    """True if psycopg2 waits cooperatively in this process."""
    from psycopg2 import extensions
    return extensions.get_wait_callback() is not None
