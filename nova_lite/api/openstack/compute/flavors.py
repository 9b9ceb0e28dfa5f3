"""Flavors: list, show, create, update (2.55) and delete; extra specs,
access lists and the access actions are routed to their own
controllers."""
import re

import pecan

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import flavors as schemas
from nova_lite.api.openstack.compute.views import flavors as views
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import flavors as flavors_api
from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import exception
from nova_lite.policies import flavors as fl_policies

# Filters compare with integer columns: keep bound values in range.
_FILTER_MAX = constants.DB_MAX_INT + 1


def builder(ctxt, version):
    """A view builder for this request; extra specs go into flavor bodies
    (2.61) only if the caller may list them."""
    specs = version >= av.FLAVOR_EXTRA_SPECS_IN_BODY and ctxt.can(
        fl_policies.EXTRA_SPECS_INDEX,
        target={'project_id': ctxt.project_id}, fatal=False)
    return views.Builder(pecan.request.application_url, version, specs)


def _min_filter(query, name):
    value = validation.last(query, name)
    if value is None:
        return None
    try:
        number = int(value)
    except ValueError:
        raise exception.InvalidInput(
            reason='Invalid %s filter [%s]' % (name, value))
    return min(max(number, 0), _FILTER_MAX)


def _is_public(value):
    """True (default), False, or None (every flavor) for 'none'."""
    if value is None:
        return True
    if value.lower() == 'none':
        return None
    try:
        return validation.to_bool(value)
    except ValueError:
        raise exception.InvalidInput(
            reason='Invalid is_public filter [%s]' % value)


def _limit(query):
    limit = validation.last(query, 'limit')
    if limit is None:
        return CONF.api.max_limit
    return min(int(limit), CONF.api.max_limit)


def _name_filter(query):
    """The 2.102 name filter: a regular expression (400 naming it when
    it is not one, where Nova's database would answer 500)."""
    name = validation.last(query, 'name')
    if name is not None:
        try:
            re.compile(name)
        except re.error as exc:
            raise exception.InvalidInput(
                reason='Invalid name filter [%s]: %s' % (name, exc))
    return name


def _list(query, detailed):
    ctxt = wsgi.request_context()
    version = wsgi.api_version()
    limit = _limit(query)
    render = builder(ctxt, version) if detailed else views.Builder(
        pecan.request.application_url, version)
    flavors = flavors_api.get_all(
        ctxt,
        is_public=_is_public(validation.last(query, 'is_public'))
        if ctxt.is_admin else True,
        min_memory_mb=_min_filter(query, 'minRam'),
        min_root_gb=_min_filter(query, 'minDisk'),
        sort_key=validation.last(query, 'sort_key') or 'flavorid',
        sort_dir=validation.last(query, 'sort_dir') or 'asc',
        limit=limit, marker=validation.last(query, 'marker'),
        name=_name_filter(query),
        # Lists never show access lists; extra specs only in 2.61 bodies.
        expected_attrs=['extra_specs'] if render.extra_specs else [])
    params = {k: v[-1] for k, v in validation.query_params().items()}
    return render.index(flavors, detailed, limit, params)


def _list_query(fn):
    fn = validation.query_schema(schemas.index_query_v2102,
                                 av.FLAVOR_NAME_FILTER)(fn)
    fn = validation.query_schema(
        schemas.index_query_v275, av.STRICT_QUERY_EMPTY_SERVERS,
        av.before(av.FLAVOR_NAME_FILTER))(fn)
    return validation.query_schema(
        schemas.index_query, av.MIN,
        av.before(av.STRICT_QUERY_EMPTY_SERVERS))(fn)


def _create_args(values):
    """flavors_api.create's arguments from a validated 'flavor' body."""
    return dict(
        name=values['name'], memory_mb=values['ram'],
        vcpus=values['vcpus'], root_gb=values['disk'],
        ephemeral_gb=values.get('OS-FLV-EXT-DATA:ephemeral', 0),
        flavorid=values.get('id'), swap=values.get('swap', 0),
        rxtx_factor=values.get('rxtx_factor', 1.0),
        is_public=validation.to_bool(
            values.get('os-flavor-access:is_public', True)),
        description=values.get('description'))


class FlavorController(object):
    """/flavors/{flavor_id}, its /action, /os-extra_specs and
    /os-flavor-access."""

    def __init__(self, flavor_id):
        self.flavor_id = flavor_id

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    def index(self):
        ctxt = wsgi.request_context()
        flavor = flavors_api.get(ctxt, self.flavor_id)
        return builder(ctxt, wsgi.api_version()).show(flavor)

    @wsgi.expose()
    @validation.schema(schemas.update_v255, av.FLAVOR_DESCRIPTION)
    def put(self, body=None):
        ctxt = wsgi.authorize(fl_policies.UPDATE)
        flavor = flavors_api.update_description(
            ctxt, self.flavor_id, body['flavor']['description'])
        return builder(ctxt, wsgi.api_version()).show(flavor)

    @wsgi.expose(status=202)
    def delete(self):
        ctxt = wsgi.authorize(fl_policies.DELETE)
        flavors_api.delete(ctxt, self.flavor_id)


class FlavorsController(object):
    """/flavors, /flavors/detail"""

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    @_list_query
    def index(self, query=None):
        return _list(query, detailed=False)

    @wsgi.expose()
    @validation.schema(schemas.create, av.MIN,
                       av.before(av.FLAVOR_DESCRIPTION))
    @validation.schema(schemas.create_v255, av.FLAVOR_DESCRIPTION,
                       av.before(av.FLAVOR_NAME_FILTER))
    @validation.schema(schemas.create_v2102, av.FLAVOR_NAME_FILTER)
    def post(self, body=None):
        ctxt = wsgi.authorize(fl_policies.CREATE)
        flavor = flavors_api.create(ctxt, **_create_args(body['flavor']))
        return builder(ctxt, wsgi.api_version()).show(flavor)

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    @_list_query
    def detail(self, query=None):
        return _list(query, detailed=True)
