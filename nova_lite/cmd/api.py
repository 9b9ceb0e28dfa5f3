"""nova-lite-api: the REST API under eventlet's WSGI server."""
import sys

from nova_lite import cmd  # noqa: F401
from nova_lite.cmd import _run
from nova_lite import config
from nova_lite.conf import CONF
from nova_lite import service


def main():
    config.parse_args(sys.argv)
    from oslo_service import service as oslo_service
    svc = service.WSGIService()
    status = _run.refuse_if_too_old(svc)
    if status:
        return status
    if CONF.api.workers > 1:
        launcher = oslo_service.ProcessLauncher(CONF, restart_method='mutate')
        launcher.launch_service(svc, workers=CONF.api.workers)
    else:
        launcher = service.serve([svc])
    launcher.wait()
    return 0
