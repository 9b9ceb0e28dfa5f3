"""Conductor roles on the running plane: the super conductor serves
compute_task next to object indirection, cell conductors do not; RPC
caps follow the peers' recorded service versions after a reset (what
SIGHUP does)."""
import oslo_messaging as messaging
import pytest

from nova_lite import baserpc
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite import rpc
from tests.conftest import set_override


def _record_conductor_versions(plane, version):
    """Record every conductor of every cell at version (as if it ran the
    code of that release)."""
    ctxt = nova_context.get_admin_context()
    for cell in plane.cells.values():
        with nova_context.target_cell(ctxt, cell) as cctxt:
            for svc in objects.ServiceList.get_by_binary(
                    cctxt, constants.CONDUCTOR_BINARY):
                svc.version = version
                svc.save()


def test_only_the_super_conductor_serves_compute_task(plane_no_api):
    ctxt = nova_context.get_admin_context()
    # The super conductor, on the API transport.
    assert conductor_rpcapi.ComputeTaskAPI().ping(ctxt, 'hi') == {
        'service': 'compute_task', 'arg': 'hi'}
    for cell in plane_no_api.cells.values():
        if cell.is_cell0():
            continue
        transport = rpc.get_cell_transport(cell.transport_url)
        # The cell conductor consumes (its computes' object indirection
        # works: they report through it)...
        assert baserpc.BaseAPI(conductor_rpcapi.TOPIC,
                               transport=transport).ping(ctxt, 'hi')
        # ...but has no compute_task endpoint at all.
        with pytest.raises(messaging.UnsupportedVersion):
            conductor_rpcapi.ComputeTaskAPI(transport=transport).ping(
                ctxt, 'hi')


def test_caps_follow_peer_versions_after_reset(plane_no_api):
    set_override('compute_task', 'auto', group='upgrade_levels')
    ctxt = nova_context.get_admin_context()
    # Conductors of the previous release: compute_task is not served.
    _record_conductor_versions(plane_no_api, 3)
    plane_no_api.reset()
    api = conductor_rpcapi.ComputeTaskAPI()
    assert not api.client.can_send_version('1.0')
    with pytest.raises(messaging.RPCVersionCapError):
        api.ping(ctxt, 'early')

    # The conductors are upgraded; the running client keeps the cap it
    # derived until the reset...
    _record_conductor_versions(plane_no_api, 4)
    assert not api.client.can_send_version('1.0')
    # ...after which the same client sends 1.0.
    plane_no_api.reset()
    assert api.client.version_cap == '1.0'
    assert api.ping(ctxt, 'now') == {'service': 'compute_task',
                                     'arg': 'now'}

    # A pinned level wins over the recorded versions.
    set_override('compute_task', '0.9', group='upgrade_levels')
    assert not api.client.can_send_version('1.0')
