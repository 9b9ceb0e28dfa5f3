"""Flavor bodies: a list row and a Flavor object render the same body,
and the flavor a server carries renders as the 2.47 server body shows
it."""
from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.views import flavors as views
from nova_lite import objects
from nova_lite.objects import embedded_flavor
from nova_lite.objects import flavor as flavor_obj

objects.register_all()

URL = 'http://nova.example/v2.1'
VALUES = dict(id=3, flavorid='m1 small', name='m1.small', memory_mb=512,
              vcpus=2, root_gb=10, ephemeral_gb=5, swap=0, rxtx_factor=1.0,
              vcpu_weight=None, disabled=False, is_public=True,
              description='small one', extra_specs={'hw:numa_nodes': '1'})


def test_list_rows_and_objects_render_the_same_body():
    for version in (av.MIN, av.FLAVOR_DESCRIPTION,
                    av.FLAVOR_EXTRA_SPECS_IN_BODY,
                    av.STRICT_QUERY_EMPTY_SERVERS):
        builder = views.Builder(URL, av.APIVersion(version),
                                include_extra_specs=True)
        from_object = builder.detail(flavor_obj.Flavor(**VALUES))
        [from_row] = builder.details([dict(VALUES)])
        assert from_object == from_row
        assert from_row['links'][0]['href'] == URL + '/flavors/m1%20small'


def test_embedded_flavor_body():
    snap = embedded_flavor.EmbeddedFlavor.from_flavor(
        flavor_obj.Flavor(**VALUES))
    assert views.embedded(snap, include_extra_specs=True) == {
        'original_name': 'm1.small', 'vcpus': 2, 'ram': 512, 'disk': 10,
        'ephemeral': 5, 'swap': 0, 'extra_specs': {'hw:numa_nodes': '1'}}
    assert 'extra_specs' not in views.embedded(snap,
                                               include_extra_specs=False)
