"""Bodies of os-instance-actions, per microversion."""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.views import common
from nova_lite.api.openstack.compute.views import servers as server_views

_ACTION_FIELDS = ('action', 'instance_uuid', 'request_id', 'user_id',
                  'project_id', 'message')


class Builder(object):
    """What this caller may see, decided once per request: events
    (before 2.51), tracebacks and (2.62) hosts with ``events``; details
    (2.84) with ``details``."""

    def __init__(self, version, events=False, details=False):
        self.version = version
        self.events = events
        self.details = details

    def action(self, rec):
        body = {k: rec[k] for k in _ACTION_FIELDS}
        body['start_time'] = common.isotime(rec['start_time'])
        if self.version >= av.INSTANCE_ACTIONS_PAGING:
            body['updated_at'] = common.isotime(rec['updated_at'])
        return body

    def event(self, rec, project_id):
        body = {'event': rec['event'],
                'start_time': common.isotime(rec['start_time']),
                'finish_time': common.isotime(rec['finish_time']),
                'result': rec['result']}
        if self.events:
            body['traceback'] = rec['traceback']
        if self.version >= av.INSTANCE_ACTION_EVENT_HOST:
            body['hostId'] = server_views.host_id(project_id, rec['host'])
            if self.events:
                body['host'] = rec['host']
        if self.version >= av.INSTANCE_ACTION_EVENT_DETAILS and self.details:
            body['details'] = rec['details']
        return body

    def index(self, recs, link_base=None, limit=None):
        body = {'instanceActions': [self.action(r) for r in recs]}
        if (self.version >= av.INSTANCE_ACTIONS_PAGING and limit
                and len(recs) == limit):
            body['links'] = [{
                'rel': 'next',
                'href': '%s?limit=%d&marker=%s' % (
                    link_base, limit, recs[-1]['request_id'])}]
        return body

    def show(self, rec, project_id):
        """One action with its events; project_id: the server's (for
        the events' hostId)."""
        body = self.action(rec)
        if self.events or self.version >= av.INSTANCE_ACTION_EVENTS_FOR_ALL:
            body['events'] = [self.event(e, project_id)
                              for e in rec['events']]
        return {'instanceAction': body}
