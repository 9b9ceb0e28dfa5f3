"""nova-lite-api: the REST API under nova_lite.wsgi's eventlet server."""
import sys

from oslo_service import service as oslo_service

from nova_lite import cmd  # noqa: F401
from nova_lite.cmd import _run
from nova_lite.conf import CONF
from nova_lite import config
from nova_lite import service
from nova_lite.wsgi import server
from nova_lite.wsgi import service as wsgi_service

# Exit status when the API's address cannot be bound (e.g. in use).
EXIT_CANNOT_LISTEN = 2


def main():
    config.parse_args(sys.argv)
    try:
        svc = wsgi_service.WSGIService()
    except server.CannotListen as exc:
        print('ERROR: nova-lite-api %s' % exc, file=sys.stderr)
        return EXIT_CANNOT_LISTEN
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
