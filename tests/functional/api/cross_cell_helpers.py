"""Helpers of the cross-cell resize tests: one two-cell plane per module
with the cross-cell policy opened, a resize forced into the other cell
(the source cell's computes disabled while it is scheduled), and reads
of both cells' databases (which copies of a server exist, hidden or
not; the instance mapping's cell)."""
import json
import os

import pytest
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite.db.local_services import api as ls_db
from nova_lite.db.local_services import models as ls_models
from nova_lite.db.main import api as main_db
from nova_lite.db.main import instances as inst_db
from nova_lite.network import api as network_api
from nova_lite import objects
from nova_lite import policy
from tests.functional.api.plane_fixtures import Running
from tests.functional.api.resize_helpers import FLAVORS
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.conftest import start_plane
from tests.functional.conftest import stop_plane
from tests.functional.conftest import wait_for

HOST = 'OS-EXT-SRV-ATTR:host'
CROSS_CELL = 'compute:servers:resize:cross_cell'


class CrossCellPlane(Running):
    """A running two-cell plane with the resize flavors and a policy
    file (cross-cell resize allowed to everyone)."""

    def __init__(self, plane):
        super().__init__(plane)
        for name, ram, vcpus, disk in FLAVORS:
            if name == 'small':
                continue
            body = {'flavor': {'name': name, 'id': name, 'ram': ram,
                               'vcpus': vcpus, 'disk': disk}}
            assert self.api('POST', '/flavors', body,
                            token=ADMIN).status_code == 200
        self.policy_path = os.path.join(plane.state_dir, 'policy.json')
        self.set_policy({CROSS_CELL: '@'})

    def set_policy(self, rules):
        with open(self.policy_path, 'w') as f:
            json.dump(rules, f)
        CONF.set_override('policy_file', self.policy_path,
                          group='oslo_policy')
        policy.reset()

    def cell_of_host(self, host):
        return host.split('-')[0]

    def other_cell(self, uuid):
        return 'cell2' if self.host(uuid).startswith('cell1-') else 'cell1'

    def hosts_of(self, cell):
        return [h for h in self._computes() if h.startswith(cell + '-')]

    def show(self, uuid, version='2.47'):
        return self.api('GET', '/servers/%s' % uuid, version=version,
                        token=ADMIN).json()['server']

    def wait_status(self, uuid, status, timeout=60):
        def reached():
            server = self.show(uuid)
            return server if (server['status'] == status and
                              server['OS-EXT-STS:task_state'] is None) \
                else None
        return wait_for(reached, timeout=timeout,
                        message='%s %s' % (uuid, status))

    def resize_into(self, uuid, cell, flavor='medium', body=None,
                    token=None, settle='VERIFY_RESIZE'):
        """Resize uuid with every compute outside cell disabled while
        it is scheduled; returns the server once in settle."""
        others = [h for h in self._computes() if not h.startswith(cell + '-')]
        self._set_enabled(others, False)
        try:
            kwargs = {} if token is None else {'token': token}
            self.act(uuid, body or {'resize': {'flavorRef': flavor}},
                     **kwargs)
            return self.wait_status(uuid, settle)
        finally:
            self._set_enabled(others, True)

    def copies(self, uuid):
        """{cell name: hidden?} of every live copy of the server."""
        found = {}
        for cell in objects.CellMappingList.get_all(self.ctxt):
            with nova_context.target_cell(self.ctxt, cell) as cctxt:
                engine = main_db.get_engine(cctxt)
                with engine.connect() as conn:
                    row = conn.execute(sa.select(inst_db.INST.c.hidden).where(
                        inst_db.INST.c.uuid == uuid,
                        inst_db.INST.c.deleted == 0)).first()
            if row is not None:
                found[cell.name] = bool(row[0])
        return found

    def bindings(self, uuid):
        """{port id: sorted [(host, status)]} of the server's ports'
        bindings."""
        return {port_id: sorted((b['host'], b['status']) for b in found)
                for port_id, found in network_api.API()
                .get_instance_bindings(self.ctxt, uuid).items()}

    def binding_rows(self, port_ids):
        """[(port id, host, status)] of the port_bindings rows of
        port_ids (rows a deleted port would have left behind)."""
        engine = ls_db.get_engine()
        table = ls_models.PortBinding.__table__
        with engine.connect() as conn:
            return sorted(tuple(row) for row in conn.execute(sa.select(
                table.c.port_id, table.c.host, table.c.status).where(
                table.c.port_id.in_(list(port_ids)))))

    def bound(self, uuid):
        """The one list of (host, status) every port of the server has
        (a server with ports; ports that differ fail)."""
        per_port = self.bindings(uuid)
        assert per_port, 'server %s has no port' % uuid
        kinds = {tuple(b) for b in per_port.values()}
        assert len(kinds) == 1, per_port
        return list(kinds.pop())

    def mapped_cell(self, uuid):
        mapping = objects.InstanceMapping.get_by_instance_uuid(self.ctxt,
                                                               uuid)
        return mapping.cell_mapping.name


def cross_cell_plane(tmp_path_factory):
    plane = start_plane(tmp_path_factory.mktemp('xcell') / 'state')
    try:
        yield CrossCellPlane(plane)
    finally:
        CONF.clear_override('policy_file', group='oslo_policy')
        stop_plane(plane)


@pytest.fixture(scope='module')
def xplane(tmp_path_factory):
    yield from cross_cell_plane(tmp_path_factory)
