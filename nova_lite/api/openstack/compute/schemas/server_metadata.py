"""Schemas of /servers/{id}/metadata (the same at every microversion):
the bodies of the image metadata proxy, whose keys and values follow
the same rules in the Compute API."""
from nova_lite.api.openstack.compute.schemas import images

# POST (merge) and PUT (replace) /servers/{id}/metadata:
# {"metadata": {key: value}}.
metadata = images.metadata

# PUT /servers/{id}/metadata/{key}: {"meta": {key: value}}, exactly one
# key (the URL's, which the controller checks).
meta = images.meta
