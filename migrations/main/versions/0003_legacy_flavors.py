"""Legacy flavor tables in the cell database (instance_types*).

Same columns as the API DB's flavors tables (api 0002_flavors); the data
moves online (nova_lite.online_migrations.flavors.migrate_flavors), which
soft-deletes the legacy rows once copied; nothing else writes them.

Revision ID: 0003_legacy_flavors
Revises: 0002_compute_node_uuid
Create Date: 2026-11-23
"""
from alembic import op
import sqlalchemy as sa

revision = '0003_legacy_flavors'
down_revision = '0002_compute_node_uuid'
branch_labels = None
depends_on = None


def _common():
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime),
            sa.Column('deleted_at', sa.DateTime),
            sa.Column('deleted', sa.Integer),
            sa.Column('id', sa.Integer, primary_key=True, nullable=False)]


def upgrade():
    op.create_table(
        'instance_types', *_common(),
        sa.Column('name', sa.String(255)),
        sa.Column('memory_mb', sa.Integer, nullable=False),
        sa.Column('vcpus', sa.Integer, nullable=False),
        sa.Column('swap', sa.Integer, nullable=False),
        sa.Column('vcpu_weight', sa.Integer),
        sa.Column('flavorid', sa.String(255)),
        sa.Column('rxtx_factor', sa.Float),
        sa.Column('root_gb', sa.Integer),
        sa.Column('ephemeral_gb', sa.Integer),
        sa.Column('disabled', sa.Boolean),
        sa.Column('is_public', sa.Boolean),
        sa.Column('description', sa.Text),
        sa.UniqueConstraint('name', 'deleted',
                            name='uniq_instance_types0name0deleted'),
        sa.UniqueConstraint('flavorid', 'deleted',
                            name='uniq_instance_types0flavorid0deleted'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'instance_type_extra_specs', *_common(),
        sa.Column('flavor_id', sa.Integer,
                  sa.ForeignKey('instance_types.id'), nullable=False),
        sa.Column('key', sa.String(255)),
        sa.Column('value', sa.String(255)),
        sa.UniqueConstraint('flavor_id', 'key', 'deleted',
                            name='uniq_instance_type_extra_specs0'
                                 'flavor_id0key0deleted'),
        sa.Index('instance_type_extra_specs_instance_type_id_key_idx',
                 'flavor_id', 'key'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'instance_type_projects', *_common(),
        sa.Column('flavor_id', sa.Integer,
                  sa.ForeignKey('instance_types.id'), nullable=False),
        sa.Column('project_id', sa.String(255)),
        sa.UniqueConstraint('flavor_id', 'project_id', 'deleted',
                            name='uniq_instance_type_projects0'
                                 'flavor_id0project_id0deleted'),
        mysql_engine='InnoDB', mysql_charset='utf8')
