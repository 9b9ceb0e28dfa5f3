"""Bodies of os-migrations and /servers/{id}/migrations, per
microversion."""
from urllib import parse

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.views import common

_FIELDS = ('id', 'instance_uuid', 'status', 'old_instance_type_id',
           'new_instance_type_id')
_HOST_FIELDS = ('source_compute', 'source_node', 'dest_compute',
                'dest_node', 'dest_host')
# Progress of a live migration (bytes), null until a driver reports it.
_PROGRESS_FIELDS = ('disk_processed_bytes', 'disk_remaining_bytes',
                    'disk_total_bytes', 'memory_processed_bytes',
                    'memory_remaining_bytes', 'memory_total_bytes')
IN_PROGRESS_LIVE = ('queued', 'preparing', 'running', 'post-migrating')
LIVE_MIGRATION = 'live-migration'


class Builder(object):
    """application_url: the API's URL with /v2.1 (bookmarks leave it
    out); hosts: whether policy lets the caller see the host fields
    (null otherwise), decided once per request."""

    def __init__(self, application_url, version, hosts=True):
        base = application_url.rstrip('/')
        root = common.unversioned(base)
        self.href = base + '/'
        self.bookmark = root + '/'
        self.version = version
        self.hosts = hosts
        self.has_type = version >= av.MIGRATION_TYPE
        self.has_uuid = version >= av.MIGRATIONS_PAGING
        self.has_owner = version >= av.MIGRATIONS_USER_PROJECT

    def _common(self, rec, body):
        body.update(created_at=common.isotime(rec['created_at']),
                    updated_at=common.isotime(rec['updated_at']))
        for name in _HOST_FIELDS:
            body[name] = rec[name] if self.hosts else None
        if self.has_uuid:
            body['uuid'] = rec['uuid']
        if self.has_owner:
            body['user_id'] = rec['user_id']
            body['project_id'] = rec['project_id']
        return body

    def _links(self, rec):
        path = 'servers/%s/migrations/%s' % (rec['instance_uuid'], rec['id'])
        return [{'rel': 'self', 'href': self.href + path},
                {'rel': 'bookmark', 'href': self.bookmark + path}]

    def migration(self, rec):
        """One record of GET /os-migrations."""
        body = self._common(rec, {k: rec[k] for k in _FIELDS})
        if self.has_type:
            body['migration_type'] = rec['migration_type']
            if (rec['migration_type'] == LIVE_MIGRATION
                    and rec['status'] in IN_PROGRESS_LIVE):
                body['links'] = self._links(rec)
        return body

    def index(self, recs, limit=None, params=()):
        """{'migrations': [...]}; from 2.59 a full page (limit records)
        has 'migrations_links' (next), keeping params (the request's
        query as (name, value) pairs, the last of a name winning) with
        the marker replaced."""
        body = {'migrations': [self.migration(r) for r in recs]}
        if self.has_uuid and limit and len(recs) == limit:
            query = dict(sorted(params))
            query['marker'] = recs[-1]['uuid']
            body['migrations_links'] = [{
                'rel': 'next',
                'href': '%sos-migrations?%s' % (self.href,
                                                parse.urlencode(query))}]
        return body

    def server_migration(self, rec):
        """One in-progress live migration of /servers/{id}/migrations."""
        body = {'id': rec['id'], 'server_uuid': rec['instance_uuid'],
                'status': rec['status']}
        for name in _PROGRESS_FIELDS:
            body[name] = rec.get(name[:-len('_bytes')])
        return self._common(rec, body)
