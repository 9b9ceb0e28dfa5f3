"""oslo.config.opts entry point: every option nova_lite registers."""
from oslo_db import options as db_options
import oslo_messaging

from nova_lite.conf import CONF
from nova_lite.conf import default
from nova_lite.conf import MODULES


def list_opts():
    groups = {}
    for module in MODULES:
        for group, opts in module.list_opts().items():
            groups.setdefault(group, []).extend(opts)
    return [(group, opts) for group, opts in sorted(groups.items())]


def set_defaults(conf=CONF):
    db_options.set_defaults(conf, connection='sqlite:///nova_lite.sqlite')
    oslo_messaging.set_transport_defaults(
        control_exchange=default.CONTROL_EXCHANGE)
