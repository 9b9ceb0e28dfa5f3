"""The image proxy: GET /images, /images/detail, /images/{id} and DELETE
/images/{id}, served from the embedded image service below 2.36 and gone
(404) from 2.36, as in the Compute API; /images/{id}/metadata is
image_metadata.py's. Like Nova's proxy, it has no
policy rules of its own: the image service decides what a caller sees
(public images and its project's own)."""
from oslo_utils import timeutils
import pecan

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import images as schemas
from nova_lite.api.openstack.compute.views import images as views
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.image import api as image_api

LAST = av.before(av.IMAGES_PROXY_REMOVED)
# The Compute API's image statuses, back to the image service's.
_STATUS_FILTER = {'ACTIVE': 'active', 'SAVING': 'queued',
                  'DELETED': 'deleted', 'QUEUED': 'queued'}


def _api():
    return image_api.API()


def _builder():
    return views.Builder(pecan.request.application_url)


def _int_filter(query, name):
    value = validation.last(query, name)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise exception.InvalidInput(
            reason='Invalid %s filter [%s]' % (name, value))


def _filters(query):
    filters = {'name': validation.last(query, 'name'),
               'min_ram': _int_filter(query, 'minRam'),
               'min_disk': _int_filter(query, 'minDisk')}
    status = validation.last(query, 'status')
    if status is not None:
        filters['status'] = _STATUS_FILTER.get(status.upper(),
                                               status.lower())
    # As Nova's proxy: a server (its id, or its URL) and an image type
    # are image properties (instance_uuid, image_type).
    properties = {}
    server = validation.last(query, 'server')
    if server is not None:
        properties['instance_uuid'] = server.rstrip('/').rsplit('/', 1)[-1]
    image_type = validation.last(query, 'type')
    if image_type is not None:
        properties['image_type'] = image_type
    if properties:
        filters['properties'] = properties
    since = validation.last(query, 'changes-since')
    if since is not None:
        try:
            filters['changes_since'] = timeutils.normalize_time(
                timeutils.parse_isotime(since))
        except ValueError:
            raise exception.InvalidInput(
                reason='Invalid changes-since value [%s]' % since)
    return filters


def _list(query, detailed):
    ctxt = wsgi.request_context()
    limit = validation.last(query, 'limit') or validation.last(
        query, 'page_size')
    limit = CONF.api.max_limit if limit is None else min(
        int(limit), CONF.api.max_limit)
    images = _api().get_all(ctxt, filters=_filters(query), limit=limit,
                            marker=validation.last(query, 'marker'))
    params = {k: v[-1] for k, v in validation.query_params().items()}
    return _builder().index(images, detailed, limit, params)


class ImageController(object):
    """/images/{image_id}"""

    def __init__(self, image_id):
        self.image_id = image_id

    @wsgi.expose()
    def index(self):
        image = _api().get(wsgi.request_context(), self.image_id)
        return _builder().show(image)

    @wsgi.expose(status=204)
    def delete(self):
        _api().delete(wsgi.request_context(), self.image_id)


class ImagesController(object):
    """/images, /images/detail"""

    @wsgi.expose()
    @validation.query_schema(schemas.index_query, av.MIN, LAST)
    def index(self, query=None):
        return _list(query, detailed=False)

    @wsgi.expose()
    @validation.query_schema(schemas.index_query, av.MIN, LAST)
    def detail(self, query=None):
        return _list(query, detailed=True)
