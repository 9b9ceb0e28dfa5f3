"""Image proxy response bodies (/images, below 2.36), from the image
dicts of nova_lite.image.api."""
from urllib import parse

from nova_lite.api.openstack.compute.views import common

# The Compute API's status and progress for each image-service status.
STATUS = {'active': 'ACTIVE', 'queued': 'SAVING', 'saving': 'SAVING',
          'deleted': 'DELETED', 'pending_delete': 'DELETED',
          'killed': 'ERROR'}
PROGRESS = {'queued': 25, 'saving': 50, 'active': 100}
ALTERNATE_TYPE = 'application/vnd.openstack.image'


def _date(value):
    return value.strftime('%Y-%m-%dT%H:%M:%SZ') if value else None


class Builder(object):
    """Renders images for one request (application_url includes /v2.1)."""

    def __init__(self, application_url):
        self.href = '%s/images' % application_url.rstrip('/')
        self.bookmark = '%s/images' % common.unversioned(application_url)

    def links(self, image_id):
        return [{'rel': 'self', 'href': '%s/%s' % (self.href, image_id)},
                {'rel': 'bookmark',
                 'href': '%s/%s' % (self.bookmark, image_id)},
                {'rel': 'alternate', 'type': ALTERNATE_TYPE,
                 'href': '%s/%s' % (self.bookmark, image_id)}]

    def summary(self, image):
        return {'id': image['id'], 'name': image['name'],
                'links': self.links(image['id'])}

    def detail(self, image):
        metadata = dict(image['properties'])
        body = {
            'id': image['id'], 'name': image['name'],
            'status': STATUS.get(image['status'], 'UNKNOWN'),
            'progress': PROGRESS.get(image['status'], 0),
            'minDisk': image['min_disk'], 'minRam': image['min_ram'],
            'metadata': metadata,
            'created': _date(image['created_at']),
            'updated': _date(image['updated_at'] or image['created_at']),
            'OS-EXT-IMG-SIZE:size': image['size'],
            'links': self.links(image['id']),
        }
        if metadata.get('instance_uuid'):
            # A snapshot: the server it was taken from.
            body['server'] = {'id': metadata['instance_uuid'], 'links': [
                {'rel': 'self', 'href': '%s/servers/%s' % (
                    self.href[:-len('/images')], metadata['instance_uuid'])},
                {'rel': 'bookmark', 'href': '%s/servers/%s' % (
                    self.bookmark[:-len('/images')],
                    metadata['instance_uuid'])}]}
        return body

    def show(self, image):
        return {'image': self.detail(image)}

    def index(self, images, detailed, limit, params):
        """{'images': [...]} with 'images_links' when the page is full."""
        body = {'images': [self.detail(i) if detailed else self.summary(i)
                           for i in images]}
        if limit and len(images) == limit:
            next_params = dict(sorted(params.items()))
            next_params['marker'] = images[-1]['id']
            url = self.href + '/detail' if detailed else self.href
            body['images_links'] = [{
                'rel': 'next',
                'href': '%s?%s' % (url, parse.urlencode(next_params))}]
        return body
