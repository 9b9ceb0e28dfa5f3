"""/flavors/{flavor_id}/os-extra_specs: list, create or update, and one
key at a time show, update and delete. Writing a flavor that still sits in
the legacy tables moves it to the API database. Reads are checked against
the caller's own project (readers of any project may read), writes
against no project (administrators). From 2.86 written specs of the
namespaces Nova knows are validated (extra_spec_validators): 400 naming
the key."""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute import extra_spec_validators
from nova_lite.api.openstack.compute.schemas import flavors as schemas
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import flavors as flavors_api
from nova_lite import exception
from nova_lite.policies import flavors as fl_policies


def _validate(specs):
    if wsgi.api_version() >= av.FLAVOR_EXTRA_SPEC_VALIDATION:
        extra_spec_validators.validate_all(specs)


class ExtraSpecController(object):
    """/flavors/{flavor_id}/os-extra_specs/{key}"""

    def __init__(self, flavor_id, key):
        self.flavor_id = flavor_id
        self.key = key

    @wsgi.expose()
    def index(self):
        ctxt = wsgi.authorize(fl_policies.EXTRA_SPECS_SHOW, own_project=True)
        return {self.key: flavors_api.extra_spec_get(ctxt, self.flavor_id,
                                                     self.key)}

    @wsgi.expose()
    @validation.schema(schemas.extra_spec_update)
    def put(self, body=None):
        ctxt = wsgi.authorize(fl_policies.EXTRA_SPECS_UPDATE)
        if self.key not in body:
            raise exception.InvalidInput(
                reason='Request body and URI mismatch')
        _validate(body)
        flavors_api.extra_specs_update(ctxt, self.flavor_id, body)
        return body

    @wsgi.expose()
    def delete(self):
        ctxt = wsgi.authorize(fl_policies.EXTRA_SPECS_DELETE)
        flavors_api.extra_spec_delete(ctxt, self.flavor_id, self.key)


class ExtraSpecsController(object):
    """/flavors/{flavor_id}/os-extra_specs"""

    def __init__(self, flavor_id):
        self.flavor_id = flavor_id

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    def index(self):
        ctxt = wsgi.authorize(fl_policies.EXTRA_SPECS_INDEX, own_project=True)
        return {'extra_specs': flavors_api.get(
            ctxt, self.flavor_id).extra_specs}

    @wsgi.expose()
    @validation.schema(schemas.extra_specs_create)
    def post(self, body=None):
        ctxt = wsgi.authorize(fl_policies.EXTRA_SPECS_CREATE)
        _validate(body['extra_specs'])
        flavors_api.extra_specs_update(ctxt, self.flavor_id,
                                       body['extra_specs'])
        return body
