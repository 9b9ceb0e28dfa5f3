"""A pytest plugin (tools/run-tests loads it with -p tests.interrupt):
SIGTERM stops a run as Ctrl-C does.

pytest turns SIGINT into KeyboardInterrupt, and then still tears every
fixture down (session finish), so the databases, vhosts and processes
that fixtures made are dropped and stopped. SIGTERM (a CI timeout,
`kill`, tools/run-tests passing on its own SIGTERM) would otherwise end
the process at once and leave them behind. A second SIGTERM during that
clean-up is ignored so that it can finish (SIGKILL still ends it).
"""
import signal


def _interrupt(signum, frame):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt('SIGTERM')


def pytest_configure(config):
    signal.signal(signal.SIGTERM, _interrupt)
