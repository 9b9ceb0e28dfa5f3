"""The image metadata proxy: /images/{id}/metadata[/{key}] below 2.39
(404 from 2.39, as in the Compute API). Reads need the image to be
visible; writes need its project or an administrator (403 otherwise).
At most MAX_ITEMS properties per image (Nova's default metadata_items
quota; 403 beyond)."""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import images as schemas
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite import exception
from nova_lite.image import api as image_api

LAST = av.before(av.IMAGE_METADATA_PROXY_REMOVED)
MAX_ITEMS = 128


def _properties(image_id):
    return image_api.API().get(wsgi.request_context(),
                               image_id)['properties']


def _write(image_id, properties, purge=False):
    """Set properties (purge: replace all); the image's properties."""
    ctxt = wsgi.request_context()
    api = image_api.API()
    merged = dict(properties) if purge else dict(
        api.get(ctxt, image_id)['properties'], **properties)
    if len(merged) > MAX_ITEMS:
        raise exception.ImageMetadataLimitExceeded()
    return api.update_properties(ctxt, image_id, merged,
                                 purge=True)['properties']


class ImageMetadataItemController(object):
    """/images/{image_id}/metadata/{key}"""

    def __init__(self, image_id, key):
        self.image_id = image_id
        self.key = key

    @wsgi.expose()
    def index(self):
        properties = _properties(self.image_id)
        if self.key not in properties:
            raise exception.ImageMetadataKeyNotFound()
        return {'meta': {self.key: properties[self.key]}}

    @wsgi.expose()
    @validation.schema(schemas.meta, av.MIN, LAST)
    def put(self, body=None):
        meta = body['meta']
        if self.key not in meta:
            raise exception.InvalidInput(
                reason='Request body and URI mismatch')
        _write(self.image_id, meta)
        return {'meta': meta}

    @wsgi.expose(status=204)
    def delete(self):
        properties = _properties(self.image_id)
        if self.key not in properties:
            raise exception.ImageMetadataKeyNotFound()
        del properties[self.key]
        _write(self.image_id, properties, purge=True)


class ImageMetadataController(object):
    """/images/{image_id}/metadata"""

    def __init__(self, image_id):
        self.image_id = image_id

    @wsgi.expose()
    def index(self):
        return {'metadata': _properties(self.image_id)}

    @wsgi.expose()
    @validation.schema(schemas.metadata, av.MIN, LAST)
    def post(self, body=None):
        return {'metadata': _write(self.image_id, body['metadata'])}

    @wsgi.expose()
    @validation.schema(schemas.metadata, av.MIN, LAST)
    def put(self, body=None):
        _write(self.image_id, body['metadata'], purge=True)
        return {'metadata': body['metadata']}
