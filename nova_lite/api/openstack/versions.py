"""Version documents: the list at / and the v2.1 document at /v2.1."""
import pecan

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack import wsgi

V21_UPDATED = '2013-07-23T11:33:21Z'


def v21(base_url):
    """The v2.1 version entry; base_url is the API root (no /v2.1)."""
    return {
        'id': 'v2.1',
        'status': 'CURRENT',
        'version': av.MAX,
        'min_version': av.MIN,
        'updated': V21_UPDATED,
        'links': [
            {'rel': 'self', 'href': '%s/v2.1/' % base_url.rstrip('/')},
            {'rel': 'describedby', 'type': 'text/html',
             'href': 'https://docs.openstack.org/api-ref/compute/'},
        ],
        'media-types': [
            {'base': 'application/json',
             'type': 'application/vnd.openstack.compute+json;version=2.1'},
        ],
    }


def version_list(base_url):
    entry = v21(base_url)
    entry = {k: entry[k] for k in ('id', 'status', 'version', 'min_version',
                                    'updated')}
    entry['links'] = [{'rel': 'self',
                       'href': '%s/v2.1/' % base_url.rstrip('/')}]
    return {'versions': [entry]}


def v21_document(base_url):
    return {'version': v21(base_url)}


class V21Controller(object):
    """/v2.1: the version document."""

    @wsgi.expose()
    def index(self):
        # application_url ends with the /v2.1 this app is mounted at.
        base = pecan.request.application_url
        if base.endswith('/v2.1'):
            base = base[:-len('/v2.1')]
        return v21_document(base)
