"""Shared main() for the RPC service binaries."""
import sys

from nova_lite import config
from nova_lite.conf import CONF
from nova_lite import service


def run(binary, topic, make_manager, prepare=None):
    config.parse_args(sys.argv)
    if prepare is not None:
        prepare()
    svc = service.Service(CONF.host, binary, topic, make_manager())
    launcher = service.serve([svc])
    launcher.wait()
    return 0
