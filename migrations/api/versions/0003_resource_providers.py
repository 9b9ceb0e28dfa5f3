"""Resource providers, resource classes, inventories and allocations.

Generic quantitative capacity: new kinds of resources need rows, not
columns. Standard resource classes are written at run time by
nova_lite.objects.resource_provider (idempotently), not here, so the
schema does not depend on the os-resource-classes version.

Revision ID: 0003_resource_providers
Revises: 0002_flavors
Create Date: 2026-11-24
"""
from alembic import op
import sqlalchemy as sa

revision = '0003_resource_providers'
down_revision = '0002_flavors'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'resource_providers',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(200)),
        sa.Column('generation', sa.Integer, nullable=False),
        sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'resource_classes',
        sa.Column('id', sa.Integer, primary_key=True, nullable=False,
                  autoincrement=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.UniqueConstraint('name', name='uniq_resource_classes0name'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'inventories',
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('resource_provider_id', sa.Integer, nullable=False),
        sa.Column('resource_class_id', sa.Integer, nullable=False),
        sa.Column('total', sa.Integer, nullable=False),
        sa.Column('reserved', sa.Integer, nullable=False),
        sa.Column('min_unit', sa.Integer, nullable=False),
        sa.Column('max_unit', sa.Integer, nullable=False),
        sa.Column('step_size', sa.Integer, nullable=False),
        sa.Column('allocation_ratio', sa.Float, nullable=False),
        sa.UniqueConstraint('resource_provider_id', 'resource_class_id',
                            name='uniq_inventories0resource_provider_'
                                 'resource_class'),
        sa.Index('inventories_resource_provider_id_idx',
                 'resource_provider_id'),
        sa.Index('inventories_resource_class_id_idx', 'resource_class_id'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'allocations',
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('resource_provider_id', sa.Integer, nullable=False),
        sa.Column('consumer_id', sa.String(36), nullable=False),
        sa.Column('resource_class_id', sa.Integer, nullable=False),
        sa.Column('used', sa.Integer, nullable=False),
        sa.Index('allocations_consumer_id_idx', 'consumer_id'),
        sa.Index('allocations_resource_provider_class_used_idx',
                 'resource_provider_id', 'resource_class_id', 'used'),
        mysql_engine='InnoDB', mysql_charset='utf8')
