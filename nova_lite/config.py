"""Process start-up: parse config, set up logging, register objects."""
import warnings

from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite.conf import default as conf_default
from nova_lite.conf import opts as conf_opts
from nova_lite import objects
from nova_lite import version

# eventlet and some oslo modules warn about their own deprecation on
# import; that is noise for an operator.
warnings.filterwarnings('ignore', message='.*[Ee]ventlet.*')

logging.register_options(CONF)


def parse_args(argv, default_config_files=None, configure_logging=True):
    conf_opts.set_defaults(CONF)
    CONF(argv[1:], project='nova_lite', prog=argv[0].rsplit('/', 1)[-1],
         version=version.release_string(),
         default_config_files=default_config_files)
    conf_default.apply_deprecated_options(CONF)
    if configure_logging:
        logging.setup(CONF, 'nova_lite')
    objects.register_all()
