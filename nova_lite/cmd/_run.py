"""Shared main() for the RPC service binaries."""
import sys

from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite import config
from nova_lite import exception
from nova_lite import service

LOG = logging.getLogger(__name__)

# Exit status of a service that refuses to start because it is too old.
EXIT_TOO_OLD = 3


def refuse_if_too_old(svc):
    try:
        svc.check_version()
    except (exception.ServiceTooOld, exception.TooOldComputeService) as exc:
        LOG.error('%s on %s (service version %d) refuses to start: %s',
                  svc.binary, svc.host, svc.version, exc.format_message())
        print('ERROR: %s' % exc.format_message(), file=sys.stderr)
        return EXIT_TOO_OLD
    return 0


def run(binary, topic, make_endpoints, prepare=None):
    """Parse the command line, prepare(), then serve make_endpoints()
    (a list, one endpoint per role) as binary on (topic, CONF.host)."""
    config.parse_args(sys.argv)
    if prepare is not None:
        prepare()
    svc = service.Service(CONF.host, binary, topic, make_endpoints())
    status = refuse_if_too_old(svc)
    if status:
        return status
    launcher = service.serve([svc])
    launcher.wait()
    return 0
