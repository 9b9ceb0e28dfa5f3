"""The REST API as an oslo.service service: nova_lite.wsgi's eventlet
server around the paste app, and the API's service record (used by
nova-lite-api and the all-in-one)."""
from oslo_log import log as logging
from oslo_service import service as oslo_service

from nova_lite.api import app as api_app
from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite.objects import service as service_obj
from nova_lite.objects import service_version
from nova_lite import service
from nova_lite import version
from nova_lite.wsgi import server as wsgi_server

LOG = logging.getLogger(__name__)


class WSGIService(oslo_service.ServiceBase):
    """The REST API under nova_lite.wsgi's server, with a service record.

    Binds on construction (CannotListen if the address is taken), so that
    forked workers share the socket and port 0 is resolved at once.
    """

    def __init__(self, app=None, host=None, port=None, workers=None,
                 record_host=None, base_context=None):
        self.app = app or api_app.load_app()
        self.server = wsgi_server.Server(
            'nova-lite-api', self.app, host or CONF.api.listen,
            CONF.api.port if port is None else port)
        self.listen_host = self.server.host
        self.port = self.server.port
        self.workers = workers or CONF.api.workers
        self.record_host = record_host or CONF.host
        self.context = base_context or nova_context.get_admin_context()
        self.service_ref = None
        self.binary = constants.API_BINARY
        self.host = self.record_host
        self.version = service_version.SERVICE_VERSION

    def check_version(self):
        service_obj.check_can_start(self.context, self.binary,
                                        self.record_host, self.version,
                                        all_cells=True)

    def start(self):
        LOG.info('Starting nova-lite-api on %s (version %s)',
                 self.record_host, version.release_string())
        service.prepare_process()
        self.service_ref = service.register_api_service(
            self.context, self.record_host, self.version)
        self.server.start()

    def stop(self):
        self.server.stop()

    def wait(self):
        self.server.wait()

    def reset(self):
        """SIGHUP: forget cached minimum service versions."""
        service_version.reset_min_version_cache()
        LOG.info('nova-lite-api reset (SIGHUP): minimum service versions '
                 'will be read again')
        self.server.reset()
