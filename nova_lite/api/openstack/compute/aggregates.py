"""os-aggregates (administrators): host aggregates, their hosts and
metadata; an aggregate with an availability_zone makes a zone. The rules
are the compute API's (nova_lite.compute.api.aggregates); uuid is shown
from 2.41; POST .../images (2.81) pre-caches images on the hosts."""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import aggregates as schemas
from nova_lite.api.openstack.compute.views import common
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import aggregates as aggregates_api
from nova_lite import exception
from nova_lite.policies import aggregates as agg_policies


def _view(aggregate, full=True):
    body = {'availability_zone': aggregate.availability_zone,
            'created_at': common.isotime(aggregate.created_at),
            'deleted': False, 'deleted_at': None,
            'id': aggregate.id, 'name': aggregate.name,
            'updated_at': common.isotime(aggregate.updated_at)}
    if full:
        body['hosts'] = list(aggregate.hosts)
        body['metadata'] = dict(aggregate.metadata)
    if wsgi.api_version() >= av.AGGREGATE_UUID:
        body['uuid'] = aggregate.uuid
    return body


def _one(aggregate):
    return {'aggregate': _view(aggregate)}


def _conflict(exc):
    """An InvalidAggregateAction of add_host/remove_host: 409 (Nova)."""
    return exception.Conflict(message=exc.format_message())


class AggregatesController(object):
    """/os-aggregates"""

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    def index(self):
        ctxt = wsgi.authorize(agg_policies.INDEX)
        return {'aggregates': [_view(a) for a in
                               aggregates_api.get_all(ctxt)]}

    @wsgi.expose()
    @validation.schema(schemas.create)
    def post(self, body=None):
        ctxt = wsgi.authorize(agg_policies.CREATE)
        params = body['aggregate']
        aggregate = aggregates_api.create(
            ctxt, params['name'].strip(), params.get('availability_zone'))
        return {'aggregate': _view(aggregate, full=False)}


class AggregateController(wsgi.ActionController):
    """/os-aggregates/{aggregate_id}[/action]"""

    def __init__(self, aggregate_id):
        self.aggregate_id = aggregate_id

    def _id(self):
        try:
            return int(self.aggregate_id)
        except ValueError:
            raise exception.InvalidInput(
                reason='Invalid aggregate id %s' % self.aggregate_id)

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    def index(self):
        ctxt = wsgi.authorize(agg_policies.SHOW)
        return _one(aggregates_api.get(ctxt, self._id()))

    @wsgi.expose()
    @validation.schema(schemas.update)
    def put(self, body=None):
        ctxt = wsgi.authorize(agg_policies.UPDATE)
        params = body['aggregate']
        name = params.get('name')
        return _one(aggregates_api.update(
            ctxt, self._id(), name=name.strip() if name else None,
            zone=params.get('availability_zone'),
            set_zone='availability_zone' in params))

    @wsgi.expose()
    def delete(self):
        ctxt = wsgi.authorize(agg_policies.DELETE)
        aggregates_api.delete(ctxt, self._id())

    @validation.schema(schemas.add_host)
    def add_host(self, body):
        ctxt = wsgi.authorize(agg_policies.ADD_HOST)
        try:
            return _one(aggregates_api.add_host(
                ctxt, self._id(), body['add_host']['host']))
        except exception.InvalidAggregateAction as exc:
            raise _conflict(exc)

    @validation.schema(schemas.remove_host)
    def remove_host(self, body):
        ctxt = wsgi.authorize(agg_policies.REMOVE_HOST)
        try:
            return _one(aggregates_api.remove_host(
                ctxt, self._id(), body['remove_host']['host']))
        except exception.InvalidAggregateAction as exc:
            raise _conflict(exc)

    @validation.schema(schemas.set_metadata)
    def set_metadata(self, body):
        ctxt = wsgi.authorize(agg_policies.SET_METADATA)
        return _one(aggregates_api.update_metadata(
            ctxt, self._id(), body['set_metadata']['metadata']))


class AggregateImagesController(object):
    """/os-aggregates/{aggregate_id}/images (2.81)"""

    def __init__(self, aggregate_id):
        self.aggregate_id = aggregate_id

    @wsgi.expose(status=202)
    @validation.schema(schemas.images)
    def post(self, body=None):
        ctxt = wsgi.authorize(agg_policies.IMAGES)
        try:
            aggregate_id = int(self.aggregate_id)
        except ValueError:
            raise exception.InvalidInput(
                reason='Invalid aggregate id %s' % self.aggregate_id)
        ids = [item['id'] for item in body['cache']]
        if len(set(ids)) != len(ids):
            raise exception.InvalidInput(
                reason='Duplicate images in request')
        try:
            aggregates_api.cache_images(ctxt, aggregate_id, ids)
        except exception.ImageNotFound as exc:
            raise exception.InvalidInput(reason=exc.format_message())
