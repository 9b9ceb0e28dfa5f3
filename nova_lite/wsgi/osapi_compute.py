"""``application``: the REST API for a WSGI server of your choice.

    uwsgi --http :8774 --module nova_lite.wsgi.osapi_compute:application
    gunicorn nova_lite.wsgi.osapi_compute:application

Configuration files are ``OS_NOVA_LITE_CONFIG_FILES`` (';'-separated,
default ``nova_lite.conf``) in ``OS_NOVA_LITE_CONFIG_DIR`` (default
/etc/nova_lite); the paste pipeline is found as nova-lite-api finds it.
Importing the module parses them, sets up logging and registers the API's
service record once per process. An API too old for its deployment does
not serve: every request gets a 503 fault saying why. eventlet is not
monkey-patched here; that is the server's choice (e.g. gunicorn's
eventlet worker). Where the server did monkey-patch, psycopg2 is made
cooperative too (nova_lite.green), as in every nova_lite service.
"""
import os
import sys

from nova_lite.api import app as api_app
from nova_lite.api import faults
from nova_lite.conf import CONF
from nova_lite import config
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import green
from nova_lite.objects import service as service_obj
from nova_lite.objects import service_version
from nova_lite import service
from nova_lite.wsgi import server

CONFIG_DIR = '/etc/nova_lite'
CONFIG_FILES = ['nova_lite.conf']


def config_files(environ=None):
    environ = os.environ if environ is None else environ
    directory = environ.get('OS_NOVA_LITE_CONFIG_DIR', CONFIG_DIR).strip()
    names = [name.strip() for name in
             environ.get('OS_NOVA_LITE_CONFIG_FILES', '').split(';')
             if name.strip()] or CONFIG_FILES
    return [os.path.join(directory, name) for name in names]


def _refusing(message):
    def refuse(environ, start_response):
        return faults.fault_response(503, message)(environ, start_response)
    return refuse


def init_application(argv=None):
    """Parse configuration, register the API service, load the app.

    Options come from the configuration files only: the command line
    (argv None) is the WSGI server's own (gunicorn's ``-w 4 -b ...``),
    never ours.
    """
    green.patch_db_drivers()
    config.parse_args(sys.argv[:1] if argv is None else argv,
                      default_config_files=config_files())
    ctxt = nova_context.get_admin_context()
    version = service_version.SERVICE_VERSION
    try:
        service_obj.check_can_start(ctxt, constants.API_BINARY, CONF.host,
                                    version, all_cells=True)
    except (exception.ServiceTooOld, exception.TooOldComputeService) as exc:
        return _refusing(exc.format_message())
    service.prepare_process()
    service.register_api_service(ctxt, CONF.host, version)
    return server.guard(api_app.load_app())


application = init_application()
