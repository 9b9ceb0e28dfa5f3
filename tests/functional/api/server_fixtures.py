"""Servers written straight into the cells and the API DB: an instance
in a cell with its mapping, or a build request.

seeded: only for what the API cannot reach in reasonable time -- a
build request (gone once scheduled), task states (gone once the task
ends), shelved/rescued (no such actions here), fault details (the plane
writes none), creation times minutes apart, hidden rows, hundreds of
servers for statement counts. Every other test boots through the API of
a running plane (plane_fixtures.running); these helpers also write into
that plane's cells (its Running object has the ctxt and cells they
use)."""
import datetime

from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.api import models as api_models
from nova_lite.db.main import api as main_db
from nova_lite.db.main import block_devices as cell_bdms
from nova_lite.db.main import instances as cell_rows
from nova_lite.objects import embedded_flavor
from nova_lite.objects import flavor as flavor_obj

T0 = datetime.datetime(2026, 1, 1, 0, 0, 0)


def snapshot(flavor):
    """The instance_extra.flavor value of a Flavor: its own copy."""
    return jsonutils.loads(embedded_flavor.to_json(
        embedded_flavor.EmbeddedFlavor.from_flavor(flavor)))


def network_info(address, label='private', mac='fa:16:3e:00:00:01'):
    return [{'id': uuidutils.generate_uuid(), 'address': mac,
             'network': {'id': 'net-' + label, 'label': label,
                         'subnets': [{'cidr': '10.0.0.0/24',
                                      'gateway': '10.0.0.1',
                                      'ips': [{'address': address,
                                               'type': 'fixed',
                                               'version': 4}]}]}}]


@api_db.writer
def _map(context, uuid, project_id, user_id, cell_uuid, created_at):
    cell_id = None
    if cell_uuid is not None:
        cell_id = context.session.execute(sa.select(
            api_models.CellMapping.id).where(
                api_models.CellMapping.uuid == cell_uuid)).scalar()
    context.session.execute(api_models.InstanceMapping.__table__.insert()
                            .values(instance_uuid=uuid, project_id=project_id,
                                    user_id=user_id, cell_id=cell_id,
                                    queued_for_delete=False,
                                    created_at=created_at))


def add_server(env, cell_name, flavor, project_id='project-a',
               user_id='bob', created_at=None, **values):
    """An instance in cell_name (and its mapping); values: instance
    columns plus metadata, system_metadata, tags, network_info. Returns
    the uuid."""
    uuid = values.pop('uuid', None) or uuidutils.generate_uuid()
    created_at = created_at or T0
    related = {k: values.pop(k) for k in ('metadata', 'system_metadata',
                                          'tags', 'network_info')
               if k in values}
    columns = dict(
        uuid=uuid, project_id=project_id, user_id=user_id,
        display_name='server-%s' % uuid[:8], vm_state='active',
        task_state=None, power_state=1, host='c1-host1',
        node='c1-host1.example.org', image_ref='image-1',
        instance_type_id=flavor.id, reservation_id='r-test',
        launch_index=0, launched_at=created_at, created_at=created_at,
        locked=False, config_drive='', progress=0, hostname='server')
    columns.update(values)
    cell = env.cells[cell_name]
    with nova_context.target_cell(env.ctxt, cell) as cctxt:
        cell_rows.create(cctxt, columns, flavor=snapshot(flavor), **related)
    _map(env.ctxt, uuid, project_id, user_id, cell.uuid, created_at)
    return uuid


def add_volume_bdm(env, cell_name, instance_uuid, volume_id,
                   device_name='/dev/vdb', attachment_id=None):
    """A volume block device mapping of the instance in cell_name."""
    with nova_context.target_cell(env.ctxt, env.cells[cell_name]) as cctxt:
        cell_bdms.create_many(cctxt, [{
            'uuid': uuidutils.generate_uuid(),
            'instance_uuid': instance_uuid, 'source_type': 'volume',
            'destination_type': 'volume', 'volume_id': volume_id,
            'device_name': device_name, 'attachment_id': attachment_id,
            'delete_on_termination': False}])


def add_build_request(env, flavor, project_id='project-a', user_id='bob',
                      created_at=None, name='building'):
    """A server not yet scheduled: a build request and a mapping with no
    cell. Returns the uuid."""
    uuid = uuidutils.generate_uuid()
    created_at = created_at or T0
    instance = {'nova_lite_object.name': 'Instance',
                'nova_lite_object.namespace': 'nova_lite',
                'nova_lite_object.version': '1.0',
                'nova_lite_object.data': {
                    'uuid': uuid, 'project_id': project_id,
                    'user_id': user_id, 'display_name': name,
                    'vm_state': 'building', 'task_state': 'scheduling',
                    'power_state': 0, 'image_ref': 'image-1',
                    'instance_type_id': flavor.id, 'metadata': {},
                    'created_at': created_at.isoformat() + 'Z',
                    'flavor': snapshot(flavor)['cur']}}
    _add_build_request(env.ctxt, uuid, project_id, user_id, created_at,
                       jsonutils.dumps(instance))
    _map(env.ctxt, uuid, project_id, user_id, None, created_at)
    return uuid


@api_db.writer
def _add_build_request(context, uuid, project_id, user_id, created_at,
                       instance):
    context.session.execute(api_models.BuildRequest.__table__.insert()
                            .values(instance_uuid=uuid, project_id=project_id,
                                    user_id=user_id, created_at=created_at,
                                    instance=instance, tags='[]'))


def flavor(ctxt, flavorid='f1', **kw):
    values = dict(name='m1.' + flavorid, flavorid=flavorid, memory_mb=512,
                  vcpus=1, root_gb=1, extra_specs={'hw:cpu_policy': 'shared'})
    values.update(kw)
    created = flavor_obj.Flavor(ctxt, **values)
    created.create()
    return created


def main_engine(cctxt):
    """The writer engine of the cell cctxt is targeted at."""
    return main_db.get_engine(cctxt)


def add_request_spec(env, uuid, flavor, image='image-1', zone=None):
    """What the server asked the scheduler for (a RequestSpec
    primitive), as create writes it."""
    spec = {'nova_lite_object.name': 'RequestSpec',
            'nova_lite_object.namespace': 'nova_lite',
            'nova_lite_object.version': '1.0',
            'nova_lite_object.data': {
                'instance_uuid': uuid, 'flavor': snapshot(flavor)['cur'],
                'image': {'id': image}, 'availability_zone': zone}}
    _add_request_spec(env.ctxt, uuid, jsonutils.dumps(spec))


@api_db.writer
def _add_request_spec(context, uuid, blob):
    context.session.execute(api_models.RequestSpec.__table__.insert()
                            .values(instance_uuid=uuid, spec=blob))
