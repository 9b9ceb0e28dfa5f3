"""The v2.1 route table."""
import pecan

from nova_lite.api.openstack.compute import availability_zone
from nova_lite.api.openstack.compute import flavors
from nova_lite.api.openstack.compute import hypervisors
from nova_lite.api.openstack.compute import images
from nova_lite.api.openstack.compute import keypairs
from nova_lite.api.openstack.compute import migrations
from nova_lite.api.openstack.compute import servers
from nova_lite.api.openstack.compute import services
from nova_lite.api.openstack import versions
from nova_lite.api.openstack import wsgi


class V21Controller(object):
    """/v2.1: the version document, and one attribute per resource."""

    @pecan.expose(generic=True, content_type=wsgi.JSON)
    @wsgi.expose()
    def index(self):
        # application_url ends with the /v2.1 this app is mounted at.
        base = pecan.request.application_url
        if base.endswith('/v2.1'):
            base = base[:-len('/v2.1')]
        return versions.v21_document(base)


pecan.route(V21Controller, 'flavors', flavors.FlavorsController())
pecan.route(V21Controller, 'os-services', services.ServicesController())
pecan.route(V21Controller, 'servers', servers.ServersController())
pecan.route(V21Controller, 'os-hypervisors',
            hypervisors.HypervisorsController())
pecan.route(V21Controller, 'os-keypairs', keypairs.KeypairsController())
pecan.route(V21Controller, 'os-migrations',
            migrations.MigrationsController())
pecan.route(V21Controller, 'images', images.ImagesController())
pecan.route(V21Controller, 'os-availability-zone',
            availability_zone.AvailabilityZoneController())
