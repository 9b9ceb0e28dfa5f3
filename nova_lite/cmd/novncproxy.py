"""nova-lite-novncproxy: the noVNC console proxy (nova_lite.api.novncproxy)
on [vnc] novncproxy_host:novncproxy_port, under nova_lite.wsgi's eventlet
server. It reads the API and cell databases (console tokens), as the
API's configuration gives them."""
import sys

from oslo_service import service as oslo_service

from nova_lite import cmd  # noqa: F401
from nova_lite.api import novncproxy  # noqa: H306 (cmd patches first)
from nova_lite.conf import CONF
from nova_lite import config
from nova_lite import service
from nova_lite.wsgi import server

NAME = 'nova-lite-novncproxy'


class ProxyService(oslo_service.ServiceBase):
    """The proxy's server (bound when made) as an oslo.service service:
    SIGTERM stops listening and lets open consoles run out."""

    def __init__(self, host=None, port=None):
        self.server = server.Server(
            NAME, novncproxy.app,
            CONF.vnc.novncproxy_host if host is None else host,
            CONF.vnc.novncproxy_port if port is None else port)

    def start(self):
        self.server.start()

    def stop(self):
        self.server.stop()

    def wait(self):
        self.server.wait()

    def reset(self):
        self.server.reset()


def main():
    config.parse_args(sys.argv)
    try:
        svc = ProxyService()
    except server.CannotListen as exc:
        print('ERROR: %s %s' % (NAME, exc), file=sys.stderr)
        return 2
    service.serve([svc]).wait()
    return 0
