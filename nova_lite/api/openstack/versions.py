"""Version documents: the list at /, the v2.1 document at /v2.1 and
the legacy v2.0 document at /v2, as Nova 34 shows them (v2.0 is
DEPRECATED there, with no microversions)."""
import pecan

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack import wsgi

V21_UPDATED = '2013-07-23T11:33:21Z'
V20_UPDATED = '2025-07-04T12:00:00Z'
V20_DOCS = 'http://docs.openstack.org/'


def v20(base_url):
    """The legacy v2.0 entry; base_url is the API root (no /v2)."""
    return {
        'id': 'v2.0',
        'status': 'DEPRECATED',
        'version': '',
        'min_version': '',
        'updated': V20_UPDATED,
        'links': [
            {'rel': 'self', 'href': '%s/v2/' % base_url.rstrip('/')},
            {'rel': 'describedby', 'type': 'text/html', 'href': V20_DOCS},
        ],
        'media-types': [
            {'base': 'application/json',
             'type': 'application/vnd.openstack.compute+json;version=2'},
        ],
    }


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
    """v2.0 then v2.1, each with its self link only."""
    entries = []
    for entry in (v20(base_url), v21(base_url)):
        listed = {k: entry[k] for k in ('id', 'status', 'version',
                                         'min_version', 'updated')}
        listed['links'] = entry['links'][:1]
        entries.append(listed)
    return {'versions': entries}


def v21_document(base_url):
    return {'version': v21(base_url)}


def v20_document(base_url):
    return {'version': v20(base_url)}


class V21Controller(object):
    """/v2.1: the version document."""

    @wsgi.expose()
    def index(self):
        # application_url ends with the /v2.1 this app is mounted at.
        base = pecan.request.application_url
        if base.endswith('/v2.1'):
            base = base[:-len('/v2.1')]
        return v21_document(base)
