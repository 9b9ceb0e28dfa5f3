"""The network proxies below 2.36: os-networks, os-tenant-networks and
os-floating-ip-pools, as Nova 34 answers them from Neutron."""
import pytest

from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.api.test_servers_boot import OTHER

FIELDS = {'id', 'cidr', 'netmask', 'gateway', 'broadcast', 'dns1', 'dns2',
          'cidr_v6', 'gateway_v6', 'label', 'netmask_v6'}
ADMIN_FIELDS = FIELDS | {
    'created_at', 'updated_at', 'deleted_at', 'deleted', 'injected',
    'bridge', 'vlan', 'vpn_public_address', 'vpn_public_port',
    'vpn_private_address', 'dhcp_start', 'project_id', 'host',
    'bridge_interface', 'multi_host', 'priority', 'rxtx_base', 'mtu',
    'dhcp_server', 'enable_dhcp', 'share_address'}


@pytest.fixture
def api(running):
    return running.api


def _private(api, token=MEMBER, version='2.35'):
    nets = api('GET', '/os-networks', token=token,
               version=version).json()['networks']
    return next(n for n in nets if n['label'] == 'private')


@pytest.mark.parametrize('version', ['2.1', '2.35'])
def test_networks_list_and_show_with_novas_fields(api, version):
    member = _private(api, version=version)
    assert set(member) == FIELDS
    assert member['cidr'] is None and member['gateway'] is None
    shown = api('GET', '/os-networks/%s' % member['id'], token=MEMBER,
                version=version).json()['network']
    assert shown == member
    admin = _private(api, token=ADMIN, version=version)
    assert set(admin) == ADMIN_FIELDS
    assert admin['id'] == member['id']
    assert all(v is None for k, v in admin.items()
               if k not in ('id', 'label'))


def test_tenant_networks_list_and_show(api):
    nets = api('GET', '/os-tenant-networks', token=MEMBER,
               version='2.35').json()['networks']
    private = next(n for n in nets if n['label'] == 'private')
    assert private == {'id': private['id'], 'cidr': 'None',
                       'label': 'private'}
    resp = api('GET', '/os-tenant-networks/%s' % private['id'],
               token=MEMBER)
    assert resp.json() == {'network': private}


def test_unknown_network_is_a_404(api):
    for path in ('/os-networks/nope', '/os-tenant-networks/nope'):
        resp = api('GET', path, token=MEMBER, version='2.35')
        assert resp.status_code == 404
        assert resp.json() == {'itemNotFound': {
            'code': 404, 'message': 'Network not found'}}


def test_floating_ip_pools_are_the_external_networks(api):
    for token in (ADMIN, MEMBER, OTHER):
        resp = api('GET', '/os-floating-ip-pools', token=token,
                   version='2.35')
        assert resp.json() == {'floating_ip_pools': [{'name': 'public'}]}


@pytest.mark.parametrize('path', ['/os-networks', '/os-tenant-networks',
                                  '/os-floating-ip-pools',
                                  '/os-networks/x', '/os-tenant-networks/x'])
def test_gone_from_2_36(api, path):
    for version in ('2.36', 'latest'):
        resp = api('GET', path, token=ADMIN, version=version)
        assert resp.status_code == 404, (path, version, resp.text)
