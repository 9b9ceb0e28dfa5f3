"""Shared pieces of the versioned RPC client APIs."""
from nova_lite.conf import CONF


def version_cap(service):
    """The RPC version cap for calls to service ('compute', ...).

    An explicit [upgrade_levels] version pins; 'auto' derives the cap from
    the minimum service version recorded (see nova_lite.objects.service);
    unset means no cap.
    """
    value = getattr(CONF.upgrade_levels, service)
    if not value:
        return None
    if value == 'auto':
        from nova_lite.objects import service as service_obj
        return service_obj.get_auto_version_cap(service)
    return value
