"""POST /os-server-external-events (administrators): events about
servers from the other services. Each event gets its own code (200
accepted, 404 no such server, 422 a server not on a host yet) and the
request as a whole 200 when every event was accepted, 207 when some
were, 404 when none was -- as Nova answers."""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import external_events \
    as schemas
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import external_events as events_api
from nova_lite import exception
from nova_lite.policies import server_external_events as policies


class ServerExternalEventsController(object):
    """/os-server-external-events"""

    @wsgi.expose()
    @validation.schema(schemas.create, av.MIN,
                       av.before(av.EXTERNAL_EVENT_VOLUME_EXTENDED))
    @validation.schema(schemas.create_v251,
                       av.EXTERNAL_EVENT_VOLUME_EXTENDED,
                       av.before(av.EXTERNAL_EVENT_POWER_UPDATE))
    @validation.schema(schemas.create_v276, av.EXTERNAL_EVENT_POWER_UPDATE,
                       av.before(av.EXTERNAL_EVENT_ACCELERATOR_BOUND))
    @validation.schema(schemas.create_v282,
                       av.EXTERNAL_EVENT_ACCELERATOR_BOUND,
                       av.before(av.EXTERNAL_EVENT_VOLUME_REIMAGED))
    @validation.schema(schemas.create_v293,
                       av.EXTERNAL_EVENT_VOLUME_REIMAGED)
    def post(self, body=None):
        ctxt = wsgi.request_context()
        ctxt.can(policies.CREATE, target={})
        events = [dict({'status': 'completed'}, **e)
                  for e in body['events']]
        answered = events_api.create(ctxt, events)
        accepted = [e for e in answered if e['code'] == 200]
        if not accepted:
            raise exception.ResourceNotFound(
                message='No instances found for any event')
        status = 200 if len(accepted) == len(answered) else 207
        return wsgi.WithStatus({'events': answered}, status)
