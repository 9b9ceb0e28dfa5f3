"""compute_nodes.inventory_migrated: nullable; set online, never from here.

The online migration of compute-node capacity to resource-provider
inventories (nova_lite/objects/compute_node.py) sets it once a node's
provider exists, so the migration's scan skips finished nodes without
asking the API database. NULL means not known to be migrated.

Revision ID: 0005_cn_inventory_migrated
Revises: 0004_services_version
Create Date: 2026-11-23
"""
from alembic import op
import sqlalchemy as sa

revision = '0005_cn_inventory_migrated'
down_revision = '0004_services_version'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('compute_nodes') as batch:
        batch.add_column(sa.Column('inventory_migrated', sa.Boolean,
                                   nullable=True))
