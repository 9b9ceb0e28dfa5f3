"""nova-lite-conductor: super conductor (with [api_database]) or cell
conductor (without: it must never reach the API database)."""
from nova_lite import cmd  # noqa: F401
from nova_lite.cmd import _run
from nova_lite.conductor import manager
from nova_lite.conductor import rpcapi
from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite.db.api import api as api_db


def _prepare():
    if not CONF.api_database.connection:
        api_db.disable()


def main():
    # A super conductor (it holds the API DB) also serves compute_task.
    return _run.run(constants.CONDUCTOR_BINARY, rpcapi.TOPIC,
                    lambda: manager.endpoints(
                        super_conductor=bool(CONF.api_database.connection)),
                    _prepare)
