"""The server read model (nova_lite.compute.api.server_records.ServerRecord):
its fields are pinned here, so that changing what the REST layer reads
of a server is a deliberate change of this list and of the record's
docstring, not a side effect."""
import ast
import dataclasses
import datetime
import os
import typing

from nova_lite.compute.api import server_records

Opt = typing.Optional
Json = typing.Dict[str, typing.Any]
DT = datetime.datetime

# (name, type), in order.
FIELDS = [
    ('uuid', str),
    ('id', Opt[int]),
    ('project_id', Opt[str]),
    ('user_id', Opt[str]),
    ('display_name', Opt[str]),
    ('display_description', Opt[str]),
    ('hostname', Opt[str]),
    ('vm_state', Opt[str]),
    ('task_state', Opt[str]),
    ('power_state', Opt[int]),
    ('progress', Opt[int]),
    ('locked', bool),
    ('locked_by', Opt[str]),
    ('host', Opt[str]),
    ('node', Opt[str]),
    ('availability_zone', Opt[str]),
    ('image_ref', Opt[str]),
    ('flavor', Opt[Json]),
    ('key_name', Opt[str]),
    ('user_data', Opt[str]),
    ('config_drive', Opt[str]),
    ('root_device_name', Opt[str]),
    ('reservation_id', Opt[str]),
    ('launch_index', Opt[int]),
    ('access_ip_v4', Opt[str]),
    ('access_ip_v6', Opt[str]),
    ('auto_disk_config', Opt[bool]),
    ('network_info', typing.List[Json]),
    ('created_at', Opt[DT]),
    ('updated_at', Opt[DT]),
    ('launched_at', Opt[DT]),
    ('terminated_at', Opt[DT]),
    ('metadata', typing.Dict[str, str]),
    ('system_metadata', typing.Dict[str, str]),
    ('tags', typing.List[str]),
    ('fault', Opt[Json]),
    ('volumes', typing.List[Json]),
    ('security_groups', typing.List[Json]),
    ('host_status', str),
    ('cell_down', bool),
    ('build_request', bool),
]
UUID = 'f5b3a0a4-0d1e-4c35-9a61-3f3f0e0c1a11'


def test_fields_are_pinned():
    fields = dataclasses.fields(server_records.ServerRecord)
    assert [(f.name, f.type) for f in fields] == FIELDS


def test_every_field_is_documented():
    doc = server_records.ServerRecord.__doc__
    missing = [name for name, _ in FIELDS if name not in doc]
    assert missing == []


def test_a_record_has_slots_and_no_defaults():
    """Slots: no per-record __dict__ (a page builds hundreds); no
    defaults: record() is the one builder and names every field."""
    rec = server_records.record({'uuid': UUID})
    assert not hasattr(rec, '__dict__')
    assert all(f.default is dataclasses.MISSING and
               f.default_factory is dataclasses.MISSING
               for f in dataclasses.fields(rec))


def test_a_minimal_row_gives_empty_fields_of_their_types():
    rec = server_records.record({'uuid': UUID, 'cell_down': True})
    assert rec.uuid == UUID and rec.cell_down is True
    assert rec.build_request is False and rec.locked is False
    assert (rec.metadata, rec.system_metadata, rec.tags, rec.volumes,
            rec.network_info) == ({}, {}, [], [], [])
    assert rec.host_status == server_records.HOST_NONE
    assert rec.id is None and rec.flavor is None and rec.fault is None


def test_a_build_request_row_becomes_a_record():
    instance = {'nova_lite_object.data': {
        'display_name': 'b1', 'vm_state': 'building', 'locked': False,
        'created_at': '2026-11-25T12:00:00Z', 'metadata': {'k': 'v'},
        'flavor': {'cur': {'nova_lite_object.data': {
            'flavorid': 'small', 'name': 'm1.small', 'vcpus': 1}}}}}
    row = server_records.build_request_record({
        'instance_uuid': UUID, 'project_id': 'p1', 'user_id': 'u1',
        'created_at': DT(2026, 11, 25, 12), 'tags': '["a"]',
        'instance': __import__('json').dumps(instance)})
    rec = server_records.record(row)
    assert rec.build_request is True and rec.cell_down is False
    assert (rec.display_name, rec.vm_state, rec.task_state, rec.host) == (
        'b1', 'building', 'scheduling', None)
    assert rec.created_at == DT(2026, 11, 25, 12)
    assert rec.flavor == {'flavorid': 'small', 'name': 'm1.small',
                          'vcpus': 1}
    assert rec.metadata == {'k': 'v'} and rec.tags == ['a']


def test_a_down_cell_row_with_its_request_spec():
    spec = {'nova_lite_object.data': {
        'flavor': {'nova_lite_object.data': {'flavorid': 'small'}},
        'image': {'id': 'img-1'}, 'availability_zone': 'az1'}}
    rec = server_records.record(server_records.down_record(
        {'instance_uuid': UUID, 'project_id': 'p1', 'user_id': 'u1',
         'created_at': DT(2026, 11, 25, 12)}, spec))
    assert rec.cell_down is True
    assert (rec.project_id, rec.user_id, rec.image_ref,
            rec.availability_zone, rec.power_state) == (
        'p1', 'u1', 'img-1', 'az1', 0)
    assert rec.flavor == {'flavorid': 'small'}
    assert rec.vm_state is None and rec.display_name is None


# Compute modules that read nova_lite.db directly besides the server
# read model: migration_listing is the migrations' read side (its rows:
# nova_lite.db.main.migrations_list), to be made a typed read model of
# its own; usage is the usage report's read side (per-server flavor and
# launched/terminated times over a window: nova_lite.db.main.usage, one
# query per cell whatever the number of servers); server_consoles keeps
# console auth tokens (their own table, not server rows). Writes go
# through objects. The list only shrinks.
DB_WRITE_SIDE = frozenset(['migration_listing', 'usage', 'server_consoles'])


def _imports_db(path):
    with open(path) as f:
        tree = ast.parse(f.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or '']
            names += ['%s.%s' % (node.module, a.name) for a in node.names]
        else:
            continue
        if any(n == 'nova_lite.db' or n.startswith('nova_lite.db.')
               for n in names):
            return True
    return False


def test_server_records_is_the_one_reader_of_server_rows():
    """No module of nova_lite/compute (wherever it moves within it)
    imports nova_lite.db but server_records and the modules listed
    above; server_listing and servers in particular do not."""
    top = os.path.dirname(os.path.abspath(server_records.__file__))
    found = set()
    for dirpath, _dirs, files in os.walk(top):
        for name in files:
            if name.endswith('.py') and _imports_db(
                    os.path.join(dirpath, name)):
                found.add(name[:-3])
    assert 'server_records' in found
    assert found - DB_WRITE_SIDE == {'server_records'}
