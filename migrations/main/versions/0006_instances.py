"""Servers: instances and the rows that hang off them, and migrations.

Expand only. instances.hidden and migrations.hidden/cross_cell_move
default to false for rows written before them (none: new tables).

Revision ID: 0006_instances
Revises: 0005_cn_inventory_migrated
Create Date: 2026-11-25
"""
from alembic import op
import sqlalchemy as sa

revision = '0006_instances'
down_revision = '0005_cn_inventory_migrated'
branch_labels = None
depends_on = None


def _common():
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime),
            sa.Column('deleted_at', sa.DateTime),
            sa.Column('deleted', sa.Integer),
            sa.Column('id', sa.Integer, primary_key=True, nullable=False)]


def _table(name, *columns, **kwargs):
    op.create_table(name, *columns, mysql_engine='InnoDB',
                    mysql_charset='utf8', **kwargs)


def upgrade():
    s = sa.String
    _table(
        'instances', *_common(),
        sa.Column('uuid', s(36), nullable=False),
        sa.Column('user_id', s(255)),
        sa.Column('project_id', s(255)),
        sa.Column('image_ref', s(255)),
        sa.Column('hostname', s(255)),
        sa.Column('host', s(255)),
        sa.Column('node', s(255)),
        sa.Column('launched_on', sa.Text),
        sa.Column('instance_type_id', sa.Integer),
        sa.Column('vm_state', s(255)),
        sa.Column('task_state', s(255)),
        sa.Column('power_state', sa.Integer),
        sa.Column('memory_mb', sa.Integer),
        sa.Column('vcpus', sa.Integer),
        sa.Column('root_gb', sa.Integer),
        sa.Column('ephemeral_gb', sa.Integer),
        sa.Column('display_name', s(255)),
        sa.Column('display_description', sa.Text),
        sa.Column('key_name', s(255)),
        sa.Column('key_data', sa.Text),
        sa.Column('user_data', sa.Text),
        sa.Column('reservation_id', s(255)),
        sa.Column('launch_index', sa.Integer),
        sa.Column('availability_zone', s(255)),
        sa.Column('locked', sa.Boolean),
        sa.Column('locked_by', s(5)),
        sa.Column('launched_at', sa.DateTime),
        sa.Column('terminated_at', sa.DateTime),
        sa.Column('access_ip_v4', s(39)),
        sa.Column('access_ip_v6', s(39)),
        sa.Column('config_drive', s(255)),
        sa.Column('progress', sa.Integer),
        sa.Column('root_device_name', s(255)),
        sa.Column('hidden', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.UniqueConstraint('uuid', name='uniq_instances0uuid'))
    op.create_index('instances_project_id_deleted_idx', 'instances',
                    ['project_id', 'deleted'])
    op.create_index('instances_deleted_created_at_idx', 'instances',
                    ['deleted', 'created_at', 'id'])
    op.create_index('instances_host_deleted_idx', 'instances',
                    ['host', 'deleted'])

    _table(
        'instance_extra', *_common(),
        sa.Column('instance_uuid', s(36), nullable=False),
        sa.Column('flavor', sa.Text),
        sa.Column('migration_context', sa.Text),
        sa.Column('keypairs', sa.Text),
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_instance_extra0instance_uuid'))
    _table(
        'instance_info_caches', *_common(),
        sa.Column('instance_uuid', s(36), nullable=False),
        sa.Column('network_info', sa.Text),
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_instance_info_caches0instance_uuid'))
    _table(
        'instance_faults', *_common(),
        sa.Column('instance_uuid', s(36), nullable=False),
        sa.Column('code', sa.Integer, nullable=False),
        sa.Column('message', s(255)),
        sa.Column('details', sa.Text),
        sa.Column('host', s(255)))
    op.create_index('instance_faults_instance_uuid_deleted_created_at_idx',
                    'instance_faults',
                    ['instance_uuid', 'deleted', 'created_at'])
    _table(
        'instance_actions', *_common(),
        sa.Column('action', s(255)),
        sa.Column('instance_uuid', s(36), nullable=False),
        sa.Column('request_id', s(255)),
        sa.Column('user_id', s(255)),
        sa.Column('project_id', s(255)),
        sa.Column('start_time', sa.DateTime),
        sa.Column('finish_time', sa.DateTime),
        sa.Column('message', s(255)))
    op.create_index('instance_uuid_request_id_idx', 'instance_actions',
                    ['instance_uuid', 'request_id'])
    _table(
        'instance_actions_events', *_common(),
        sa.Column('event', s(255)),
        sa.Column('action_id', sa.Integer, nullable=False),
        sa.Column('start_time', sa.DateTime),
        sa.Column('finish_time', sa.DateTime),
        sa.Column('result', s(255)),
        sa.Column('traceback', sa.Text),
        sa.Column('host', s(255)),
        sa.Column('details', sa.Text))
    op.create_index('instance_actions_events_action_id_idx',
                    'instance_actions_events', ['action_id'])
    _table(
        'tags',
        sa.Column('resource_id', s(36), primary_key=True, nullable=False),
        sa.Column('tag', s(80), primary_key=True, nullable=False))
    op.create_index('tags_tag_idx', 'tags', ['tag'])
    for name in ('instance_metadata', 'instance_system_metadata'):
        _table(
            name, *_common(),
            sa.Column('key', s(255),
                      nullable=name == 'instance_metadata'),
            sa.Column('value', s(255)),
            sa.Column('instance_uuid', s(36), nullable=False))
        op.create_index('%s_instance_uuid_idx' % name, name,
                        ['instance_uuid'])
    _table(
        'block_device_mapping', *_common(),
        sa.Column('uuid', s(36)),
        sa.Column('instance_uuid', s(36), nullable=False),
        sa.Column('source_type', s(255)),
        sa.Column('destination_type', s(255)),
        sa.Column('guest_format', s(255)),
        sa.Column('device_type', s(255)),
        sa.Column('disk_bus', s(255)),
        sa.Column('boot_index', sa.Integer),
        sa.Column('device_name', s(255)),
        sa.Column('delete_on_termination', sa.Boolean),
        sa.Column('snapshot_id', s(36)),
        sa.Column('volume_id', s(36)),
        sa.Column('volume_size', sa.Integer),
        sa.Column('image_id', s(36)),
        sa.Column('no_device', sa.Boolean),
        sa.Column('connection_info', sa.Text),
        sa.Column('attachment_id', s(36)),
        sa.Column('tag', s(255)),
        sa.UniqueConstraint('uuid', name='uniq_block_device_mapping0uuid'))
    op.create_index('block_device_mapping_instance_uuid_idx',
                    'block_device_mapping', ['instance_uuid'])
    _table(
        'migrations', *_common(),
        sa.Column('uuid', s(36)),
        sa.Column('source_compute', s(255)),
        sa.Column('dest_compute', s(255)),
        sa.Column('source_node', s(255)),
        sa.Column('dest_node', s(255)),
        sa.Column('dest_host', s(255)),
        sa.Column('old_instance_type_id', sa.Integer),
        sa.Column('new_instance_type_id', sa.Integer),
        sa.Column('instance_uuid', s(36)),
        sa.Column('status', s(255)),
        sa.Column('migration_type', s(255)),
        sa.Column('hidden', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Column('cross_cell_move', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Column('user_id', s(255)),
        sa.Column('project_id', s(255)),
        sa.UniqueConstraint('uuid', name='uniq_migrations0uuid'))
    op.create_index('migrations_instance_uuid_and_status_idx', 'migrations',
                    ['deleted', 'instance_uuid', 'status'])
    for side in ('source', 'dest'):
        op.create_index('migrations_%s_compute_status_idx' % side,
                        'migrations',
                        ['deleted', '%s_compute' % side, 'status'])
