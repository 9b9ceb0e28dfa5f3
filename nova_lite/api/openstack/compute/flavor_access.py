"""/flavors/{flavor_id}/os-flavor-access: the projects that may use a
private flavor. Adding and removing them are actions
(POST /flavors/{flavor_id}/action, see flavors.py)."""
import pecan

from nova_lite.api.openstack.compute.views import flavors as views
from nova_lite.api.openstack import wsgi
from nova_lite.compute import flavors as flavors_api
from nova_lite.policies import flavors as fl_policies

JSON = 'application/json'


class FlavorAccessController(object):
    """/flavors/{flavor_id}/os-flavor-access"""

    def __init__(self, flavor_id):
        self.flavor_id = flavor_id

    @pecan.expose(generic=True, content_type=JSON)
    @wsgi.expose()
    def index(self):
        ctxt = wsgi.request_context()
        ctxt.can(fl_policies.ACCESS_LIST)
        return views.access(flavors_api.access_list(ctxt, self.flavor_id))
