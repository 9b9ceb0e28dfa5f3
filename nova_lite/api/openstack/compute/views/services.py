"""os-services response bodies, per microversion."""
from oslo_utils import timeutils

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.views import common
from nova_lite.conf import CONF
from nova_lite import constants

INTERNAL_ZONE = 'internal'
DEFAULT_COMPUTE_ZONE = 'nova'


def _zone(service):
    if service.binary == constants.COMPUTE_BINARY:
        return DEFAULT_COMPUTE_ZONE
    return INTERNAL_ZONE


def status(service):
    return 'disabled' if service.disabled else 'enabled'


def _is_up(service):
    try:
        return service.is_up()
    except TypeError:
        # Service.is_up() compares the tz-aware last_seen_up with a naive
        # utcnow(); until it normalises them, compare in naive UTC here.
        if service.forced_down:
            return False
        last = (service.last_seen_up or service.updated_at
                or service.created_at)
        if last is None:
            return False
        last = last.replace(tzinfo=None)
        elapsed = abs(timeutils.delta_seconds(last, timeutils.utcnow()))
        return elapsed <= CONF.service_down_time


def state(service):
    return 'up' if _is_up(service) else 'down'


def show(service, version):
    uuid_ids = version >= av.SERVICE_HYPERVISOR_UUID_IDS
    body = {
        'id': service.uuid if uuid_ids else service.id,
        'binary': service.binary,
        'host': service.host,
        'zone': _zone(service),
        'status': status(service),
        'state': state(service),
        'updated_at': common.isotime(service.last_seen_up
                                     or service.updated_at),
        'disabled_reason': service.disabled_reason,
    }
    if version >= av.SERVICE_FORCED_DOWN:
        body['forced_down'] = service.forced_down
    return body


def unavailable(service):
    """A compute of a cell that did not answer (2.69)."""
    return {'binary': service.binary, 'host': service.host,
            'status': 'UNKNOWN'}


def index(listing, version):
    services = [show(s, version) for s in listing.services]
    if version >= av.SERVICE_DOWN_CELLS:
        services.extend(unavailable(s) for s in listing.unavailable)
    return {'services': services}


def legacy_action(host, binary, **fields):
    """Body of the pre-2.53 PUT /os-services/<action> responses."""
    body = {'host': host, 'binary': binary}
    body.update(fields)
    return {'service': body}
