"""/flavors/{flavor_id}/os-flavor-access: the projects that may use a
private flavor; POST /flavors/{flavor_id}/action adds and removes them."""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.schemas import flavors as schemas
from nova_lite.api.openstack.compute.views import flavors as views
from nova_lite.api.openstack import validation
from nova_lite.api.openstack import wsgi
from nova_lite.compute.api import flavors as flavors_api
from nova_lite.policies import flavors as fl_policies


class FlavorAccessController(object):
    """/flavors/{flavor_id}/os-flavor-access"""

    def __init__(self, flavor_id):
        self.flavor_id = flavor_id

    @wsgi.expose()
    @validation.strict_list_query(av.STRICT_QUERY_EVERYWHERE)
    def index(self):
        ctxt = wsgi.authorize(fl_policies.ACCESS_LIST, own_project=True)
        return views.access(flavors_api.access_list(ctxt, self.flavor_id))


class FlavorActionController(wsgi.ActionController):
    """/flavors/{flavor_id}/action"""

    def __init__(self, flavor_id):
        self.flavor_id = flavor_id

    @validation.schema(schemas.add_tenant_access)
    def add_tenant_access(self, body):
        ctxt = wsgi.authorize(fl_policies.ACCESS_ADD)
        flavor = flavors_api.add_access(
            ctxt, self.flavor_id, body['addTenantAccess']['tenant'],
            public_conflict=wsgi.api_version() >=
            av.FLAVOR_ACCESS_PUBLIC_CONFLICT)
        return views.access(flavor)

    @validation.schema(schemas.remove_tenant_access)
    def remove_tenant_access(self, body):
        ctxt = wsgi.authorize(fl_policies.ACCESS_REMOVE)
        flavor = flavors_api.remove_access(
            ctxt, self.flavor_id, body['removeTenantAccess']['tenant'])
        return views.access(flavor)
