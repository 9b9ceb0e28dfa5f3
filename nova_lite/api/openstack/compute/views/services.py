"""os-services response bodies, per microversion."""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.views import common
from nova_lite.compute import api as compute_api

INTERNAL_ZONE = 'internal'
DEFAULT_COMPUTE_ZONE = 'nova'


def _zone(service):
    return (DEFAULT_COMPUTE_ZONE if service.binary == compute_api.COMPUTE_BINARY
            else INTERNAL_ZONE)


def status(service):
    return 'disabled' if service.disabled else 'enabled'


def state(service):
    return 'up' if service.is_up() else 'down'


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
