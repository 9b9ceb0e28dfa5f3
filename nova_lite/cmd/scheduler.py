"""nova-lite-scheduler."""
from nova_lite import cmd  # noqa: F401
from nova_lite.cmd import _run
from nova_lite import constants
from nova_lite.scheduler import manager
from nova_lite.scheduler import rpcapi


def main():
    return _run.run(constants.SCHEDULER_BINARY, rpcapi.TOPIC,
                    lambda: [manager.SchedulerManager()])
