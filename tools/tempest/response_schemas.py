"""Validate nova_lite's response bodies with Tempest's own compute
response schemas (tempest.lib.api_schema.response.compute.v2_*).

Run by ``tools/tempest.py schemas`` with the python of .tempest-venv
(Tempest's service clients pick the schema of the microversion they send
and validate every body they get); one JSON object on stdin describes
the deployment::

    {"auth_url", "username", "password", "project", "region",
     "image", "flavor", "network", "max_version"}

At every microversion where any of the clients below changes schema (the
``min`` of each band of their ``schema_versions_info``, and 2.1) up to
the deployment's maximum, as the admin, it calls the servers, flavors,
keypairs, limits, quotas, availability zones, hypervisors, services,
server groups, aggregates, migrations, images (to 2.35), interfaces,
versions, os-hosts (to 2.42), os-tenant-networks and the security-group
proxy (to 2.35) APIs on a server it boots. Prints one JSON line per call that
failed (the microversion, the call and the error), then a summary line;
exits 1 if any failed.
"""
import json
import sys
import time
import traceback
import uuid

from tempest.lib import auth
from tempest.lib.common import api_version_request
from tempest.lib import exceptions
from tempest.lib.services.compute import aggregates_client
from tempest.lib.services.compute import availability_zone_client
from tempest.lib.services.compute import base_compute_client
from tempest.lib.services.compute import flavors_client
from tempest.lib.services.compute import hosts_client
from tempest.lib.services.compute import hypervisor_client
from tempest.lib.services.compute import images_client
from tempest.lib.services.compute import interfaces_client
from tempest.lib.services.compute import keypairs_client
from tempest.lib.services.compute import limits_client
from tempest.lib.services.compute import migrations_client
from tempest.lib.services.compute import quota_classes_client
from tempest.lib.services.compute import quotas_client
from tempest.lib.services.compute import security_group_rules_client
from tempest.lib.services.compute import security_groups_client
from tempest.lib.services.compute import server_groups_client
from tempest.lib.services.compute import servers_client
from tempest.lib.services.compute import services_client
from tempest.lib.services.compute import tenant_networks_client
from tempest.lib.services.compute import versions_client

V = api_version_request.APIVersionRequest

CLIENTS = {
    'servers': servers_client.ServersClient,
    'flavors': flavors_client.FlavorsClient,
    'keypairs': keypairs_client.KeyPairsClient,
    'limits': limits_client.LimitsClient,
    'quotas': quotas_client.QuotasClient,
    'quota_classes': quota_classes_client.QuotaClassesClient,
    'zones': availability_zone_client.AvailabilityZoneClient,
    'hypervisors': hypervisor_client.HypervisorClient,
    'services': services_client.ServicesClient,
    'groups': server_groups_client.ServerGroupsClient,
    'aggregates': aggregates_client.AggregatesClient,
    'migrations': migrations_client.MigrationsClient,
    'images': images_client.ImagesClient,
    'interfaces': interfaces_client.InterfacesClient,
    'versions': versions_client.VersionsClient,
    # The legacy APIs: os-hosts to 2.42, the proxies to 2.35.
    'hosts': hosts_client.HostsClient,
    'tenant_networks': tenant_networks_client.TenantNetworksClient,
    'secgroups': security_groups_client.SecurityGroupsClient,
    'secgroup_rules': security_group_rules_client.SecurityGroupRulesClient,
}
# Where Tempest 47.0.0's schemas lag Nova 34 (so that a body Nova itself
# gives fails them): (client, first microversion, the error's text).
# 2.88 adds ``uptime`` to the hypervisor show and detail bodies and
# Tempest's newest hypervisor schema is 2.53's (additionalProperties
# false).
TEMPEST_GAPS = [
    (hypervisor_client.HypervisorClient, '2.88',
     "Additional properties are not allowed ('uptime' was unexpected)"),
]
# An ssh-ed25519 public key (public_key is required from 2.92).
PUBLIC_KEY = ('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJ0w2Ymc6GWxRpyrMM2Ra'
              'YuDcbSzTP7L1bYE2pN9ZD3d nova-lite-schemas')


def boundaries(cls, max_version):
    """The microversions a client is checked at: 2.1, the start of each
    band of its schemas, and the maximum."""
    found = {'2.1', max_version}
    for band in getattr(cls, 'schema_versions_info', []):
        if band['min']:
            found.add(band['min'])
    top = V(max_version)
    return {v for v in found if V(v) <= top}


def versions(max_version):
    found = set()
    for cls in CLIENTS.values():
        found |= boundaries(cls, max_version)
    return sorted(found, key=V)


class Checker(object):
    def __init__(self, clients, max_version):
        self.c = clients
        self.failures = []
        self.calls = 0
        self.tempest_gaps = 0
        self.at = {type(client): boundaries(type(client), max_version)
                   for client in clients.values()}

    def call(self, version, what, fn, *args, **kwargs):
        """fn(*args, **kwargs) if its client's schemas change at
        version (else None); a failure recorded."""
        at = self.at.get(type(getattr(fn, '__self__', None)))
        if at is not None and version not in at and version != 'none':
            return None
        self.calls += 1
        try:
            return fn(*args, **kwargs)
        except exceptions.InvalidHTTPResponseBody as exc:
            error = 'schema: %s' % str(exc).splitlines()[1:2]
            client = type(getattr(fn, '__self__', None))
            if any(client is cls and V(version) >= V(since)
                   and text in str(exc)
                   for cls, since, text in TEMPEST_GAPS):
                self.tempest_gaps += 1
                return None
        except Exception as exc:  # noqa: any answer but a valid body
            error = '%s: %s' % (type(exc).__name__, str(exc)[:500])
        self.fail(version, what, error)
        return None

    def fail(self, version, what, error):
        self.failures.append({'version': version, 'call': what,
                              'error': error})
        print(json.dumps(self.failures[-1]), flush=True)


def wait_active(servers, server_id, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        server = servers.show_server(server_id)['server']
        if server['status'] == 'ACTIVE':
            return server
        if server['status'] == 'ERROR':
            raise RuntimeError('server %s went to ERROR: %s'
                               % (server_id, server.get('fault')))
        time.sleep(0.5)
    raise RuntimeError('server %s not ACTIVE in %ds' % (server_id, timeout))


def check_version(ck, version, cloud, server_id, project_id):
    c = ck.c
    v = V(version)
    call = ck.call
    call(version, 'GET /servers', c['servers'].list_servers)
    call(version, 'GET /servers/detail', c['servers'].list_servers,
         detail=True)
    call(version, 'GET /servers/{id}', c['servers'].show_server, server_id)
    call(version, 'PUT /servers/{id}', c['servers'].update_server,
         server_id, name='schemas-%s' % version)
    call(version, 'GET /servers/{id}/ips', c['servers'].list_addresses,
         server_id)
    call(version, 'GET /servers/{id}/ips/{network}',
         c['servers'].list_addresses_by_network, server_id,
         cloud['network'])
    call(version, 'PUT /servers/{id}/metadata',
         c['servers'].set_server_metadata, server_id, {'k': 'v'})
    call(version, 'GET /servers/{id}/metadata',
         c['servers'].list_server_metadata, server_id)
    call(version, 'GET /servers/{id}/metadata/{key}',
         c['servers'].show_server_metadata_item, server_id, 'k')
    actions = call(version, 'GET /servers/{id}/os-instance-actions',
                   c['servers'].list_instance_actions, server_id)
    if actions and actions['instanceActions']:
        call(version, 'GET /servers/{id}/os-instance-actions/{req}',
             c['servers'].show_instance_action, server_id,
             actions['instanceActions'][0]['request_id'])
    # Tags from 2.26; tempest 47's server schema modules from 2.99 on
    # have no tag schemas (its client cannot check them there).
    if V('2.26') <= v < V('2.99'):
        call(version, 'GET /servers/{id}/tags', c['servers'].list_tags,
             server_id)
    call(version, 'GET /servers/{id}/os-interface',
         c['interfaces'].list_interfaces, server_id)
    call(version, 'GET /servers/{id}/os-volume_attachments',
         c['servers'].list_volume_attachments, server_id)
    call(version, 'os-getConsoleOutput', c['servers'].get_console_output,
         server_id, length=5)

    call(version, 'GET /flavors', c['flavors'].list_flavors)
    call(version, 'GET /flavors/detail', c['flavors'].list_flavors,
         detail=True)
    call(version, 'GET /flavors/{id}', c['flavors'].show_flavor,
         cloud['flavor'])
    call(version, 'GET /flavors/{id}/os-extra_specs',
         c['flavors'].list_flavor_extra_specs, cloud['flavor'])

    name = 'schemas-%s' % uuid.uuid4().hex[:8]
    key = {'name': name}
    if v >= V('2.92'):
        key['public_key'] = PUBLIC_KEY
    if call(version, 'POST /os-keypairs', c['keypairs'].create_keypair,
            **key):
        call(version, 'GET /os-keypairs', c['keypairs'].list_keypairs)
        call(version, 'GET /os-keypairs/{name}', c['keypairs'].show_keypair,
             name)
        call(version, 'DELETE /os-keypairs/{name}',
             c['keypairs'].delete_keypair, name)

    call(version, 'GET /limits', c['limits'].show_limits)
    call(version, 'GET /os-quota-sets/{project}',
         c['quotas'].show_quota_set, project_id)
    call(version, 'GET /os-quota-sets/{project}/detail',
         c['quotas'].show_quota_set, project_id, detail=True)
    call(version, 'GET /os-quota-sets/{project}/defaults',
         c['quotas'].show_default_quota_set, project_id)
    call(version, 'GET /os-quota-class-sets/default',
         c['quota_classes'].show_quota_class_set, 'default')

    call(version, 'GET /os-availability-zone',
         c['zones'].list_availability_zones)
    call(version, 'GET /os-availability-zone/detail',
         c['zones'].list_availability_zones, detail=True)
    hypervisors = call(version, 'GET /os-hypervisors',
                       c['hypervisors'].list_hypervisors)
    call(version, 'GET /os-hypervisors/detail',
         c['hypervisors'].list_hypervisors, detail=True)
    if hypervisors and hypervisors['hypervisors']:
        call(version, 'GET /os-hypervisors/{id}',
             c['hypervisors'].show_hypervisor,
             hypervisors['hypervisors'][0]['id'])
    if v < V('2.88'):
        call(version, 'GET /os-hypervisors/statistics',
             c['hypervisors'].show_hypervisor_statistics)
    call(version, 'GET /os-services', c['services'].list_services)
    call(version, 'GET /os-migrations', c['migrations'].list_migrations)

    group = {'name': name}
    if v >= V('2.64'):
        group['policy'] = 'anti-affinity'
    else:
        group['policies'] = ['anti-affinity']
    created = call(version, 'POST /os-server-groups',
                   c['groups'].create_server_group, **group)
    if created:
        group_id = created['server_group']['id']
        call(version, 'GET /os-server-groups',
             c['groups'].list_server_groups)
        call(version, 'GET /os-server-groups/{id}',
             c['groups'].show_server_group, group_id)
        call(version, 'DELETE /os-server-groups/{id}',
             c['groups'].delete_server_group, group_id)

    created = call(version, 'POST /os-aggregates',
                   c['aggregates'].create_aggregate, name=name)
    if created:
        agg_id = created['aggregate']['id']
        call(version, 'GET /os-aggregates', c['aggregates'].list_aggregates)
        call(version, 'GET /os-aggregates/{id}',
             c['aggregates'].show_aggregate, agg_id)
        call(version, 'POST /os-aggregates/{id}/action set_metadata',
             c['aggregates'].set_metadata, agg_id,
             metadata={'schemas': 'yes'})
        call(version, 'DELETE /os-aggregates/{id}',
             c['aggregates'].delete_aggregate, agg_id)

    if v < V('2.43'):
        check_hosts(ck, version)
    if v < V('2.36'):
        check_proxies(ck, version, name)
        call(version, 'GET /images', c['images'].list_images)
        call(version, 'GET /images/detail', c['images'].list_images,
             detail=True)
        call(version, 'GET /images/{id}', c['images'].show_image,
             cloud['image'])


def check_hosts(ck, version):
    c = ck.c
    hosts = ck.call(version, 'GET /os-hosts', c['hosts'].list_hosts)
    computes = [h['host_name'] for h in (hosts or {}).get('hosts', [])
                if h['service'] == 'compute']
    if computes:
        # (Not PUT: Tempest's client sends the field it is not given as
        # null, which Nova 34 itself refuses with a 400.)
        ck.call(version, 'GET /os-hosts/{host}', c['hosts'].show_host,
                computes[0])


def check_proxies(ck, version, name):
    c = ck.c
    networks = ck.call(version, 'GET /os-tenant-networks',
                       c['tenant_networks'].list_tenant_networks)
    if networks and networks['networks']:
        ck.call(version, 'GET /os-tenant-networks/{id}',
                c['tenant_networks'].show_tenant_network,
                networks['networks'][0]['id'])
    group = ck.call(version, 'POST /os-security-groups',
                    c['secgroups'].create_security_group, name=name,
                    description='schemas')
    if not group:
        return
    group_id = group['security_group']['id']
    rule = ck.call(version, 'POST /os-security-group-rules',
                   c['secgroup_rules'].create_security_group_rule,
                   parent_group_id=group_id, ip_protocol='tcp',
                   from_port=22, to_port=22, cidr='10.0.0.0/8')
    ck.call(version, 'GET /os-security-groups',
            c['secgroups'].list_security_groups)
    ck.call(version, 'GET /os-security-groups/{id}',
            c['secgroups'].show_security_group, group_id)
    ck.call(version, 'PUT /os-security-groups/{id}',
            c['secgroups'].update_security_group, group_id,
            name=name + '-2', description='schemas 2')
    if rule:
        ck.call(version, 'DELETE /os-security-group-rules/{id}',
                c['secgroup_rules'].delete_security_group_rule,
                rule['security_group_rule']['id'])
    ck.call(version, 'DELETE /os-security-groups/{id}',
            c['secgroups'].delete_security_group, group_id)


def main():
    cloud = json.load(sys.stdin)
    creds = auth.get_credentials(
        cloud['auth_url'], identity_version='v3',
        username=cloud['username'], password=cloud['password'],
        project_name=cloud['project'], user_domain_name='Default',
        project_domain_name='Default')
    provider = auth.KeystoneV3AuthProvider(creds, cloud['auth_url'])
    clients = {name: cls(provider, 'compute', cloud['region'])
               for name, cls in CLIENTS.items()}
    project_id = provider.credentials.project_id
    base_compute_client.COMPUTE_MICROVERSION = None
    ck = Checker(clients, cloud['max_version'])
    ck.call('none', 'GET /', clients['versions'].list_versions)
    server = clients['servers'].create_server(
        name='schemas', imageRef=cloud['image'], flavorRef=cloud['flavor'])
    server_id = server['server']['id']
    checked = versions(cloud['max_version'])
    try:
        wait_active(clients['servers'], server_id)
        for version in checked:
            base_compute_client.COMPUTE_MICROVERSION = version
            check_version(ck, version, cloud, server_id, project_id)
    except Exception:
        traceback.print_exc()
        ck.fail(base_compute_client.COMPUTE_MICROVERSION, 'the run',
                traceback.format_exc(limit=3)[-800:])
    finally:
        base_compute_client.COMPUTE_MICROVERSION = None
        clients['servers'].delete_server(server_id)
    print(json.dumps({'versions': checked, 'calls': ck.calls,
                      'tempest_gaps': ck.tempest_gaps,
                      'failed': len(ck.failures)}))
    return 1 if ck.failures else 0


if __name__ == '__main__':
    sys.exit(main())
