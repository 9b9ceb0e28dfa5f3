"""The compute API: everything the REST layer (nova_lite.api) calls.

One module per resource or family of actions (servers, server_actions,
server_resize, flavors, keypairs, hosts for services and hypervisors,
...). It reads and writes the API and cell databases through objects
and casts work to the super conductor and the computes through their
RPC clients; it never imports the nova-compute service. Policy is the
caller's: the REST controllers check it before calling here, and this
package trusts its caller.
"""
