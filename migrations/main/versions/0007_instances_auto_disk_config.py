"""instances.auto_disk_config: the server's OS-DCF:diskConfig (AUTO is
true, MANUAL false), nullable; NULL (rows written before) shows MANUAL.

Revision ID: 0007_instances_auto_disk_config
Revises: 0006_instances
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = '0007_instances_auto_disk_config'
down_revision = '0006_instances'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('instances') as batch:
        batch.add_column(sa.Column('auto_disk_config', sa.Boolean,
                                   nullable=True))
