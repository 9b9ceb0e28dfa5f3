"""Configuration options: one module per group, registered by
register_all()."""
from oslo_config import cfg

from nova_lite.conf import api
from nova_lite.conf import compute
from nova_lite.conf import conductor
from nova_lite.conf import console
from nova_lite.conf import database
from nova_lite.conf import default
from nova_lite.conf import external_events
from nova_lite.conf import fake_driver
from nova_lite.conf import local_services
from nova_lite.conf import notifications
from nova_lite.conf import quota
from nova_lite.conf import scheduler
from nova_lite.conf import upgrade_levels
from nova_lite.conf import workarounds

CONF = cfg.CONF

MODULES = (default, api, compute, conductor, database, fake_driver,
           local_services, notifications, scheduler, upgrade_levels,
           workarounds, quota, console, external_events)


def register_all(conf=CONF):
    for module in MODULES:
        module.register_opts(conf)


register_all()
