"""os-keypairs response bodies, per microversion."""
from urllib import parse

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.views import common


class Builder(object):
    """Renders key pairs for one request (application_url includes
    /v2.1)."""

    def __init__(self, application_url, version):
        self.href = '%s/os-keypairs' % application_url.rstrip('/')
        self.with_type = version >= av.KEYPAIR_TYPE

    def _base(self, keypair):
        body = {'name': keypair.name, 'public_key': keypair.public_key,
                'fingerprint': keypair.fingerprint}
        if self.with_type:
            body['type'] = keypair.type
        return body

    def create(self, keypair, private_key=None):
        body = dict(self._base(keypair), user_id=keypair.user_id)
        if private_key is not None:
            body['private_key'] = private_key
        return {'keypair': body}

    def show(self, keypair):
        body = dict(self._base(keypair), user_id=keypair.user_id,
                    id=keypair.id, deleted=keypair.deleted,
                    created_at=common.isotime(keypair.created_at),
                    updated_at=common.isotime(keypair.updated_at),
                    deleted_at=common.isotime(keypair.deleted_at))
        return {'keypair': body}

    def index(self, keypairs, limit=None, params=None):
        """{'keypairs': [{'keypair': ...}]}; with a limit (2.35), a full
        page has a 'next' link keeping params with the marker replaced."""
        body = {'keypairs': [{'keypair': self._base(k)} for k in keypairs]}
        if limit and len(keypairs) == limit:
            next_params = dict(sorted((params or {}).items()))
            next_params['marker'] = keypairs[-1].name
            body['keypairs_links'] = [{
                'rel': 'next',
                'href': '%s?%s' % (self.href,
                                   parse.urlencode(next_params))}]
        return body
