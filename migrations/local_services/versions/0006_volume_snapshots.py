"""Volume snapshots of the embedded volume service (Cinder's snapshots):
what createImage of a volume-backed server makes, and what a server
booted from such an image gets its volumes from.

Expand only: a new table.

Revision ID: 0006_volume_snapshots
Revises: 0005_shares
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = '0006_volume_snapshots'
down_revision = '0005_shares'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'volume_snapshots',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.String(36), primary_key=True, nullable=False),
        sa.Column('volume_id', sa.String(36), sa.ForeignKey('volumes.id'),
                  nullable=False),
        sa.Column('name', sa.String(255)),
        sa.Column('description', sa.String(255)),
        sa.Column('project_id', sa.String(255)),
        sa.Column('user_id', sa.String(255)),
        sa.Column('size', sa.Integer, nullable=False),
        sa.Column('status', sa.String(30), nullable=False),
        sa.Column('image_id', sa.String(36)),
        sa.Column('deleted', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Index('volume_snapshots_volume_id_idx', 'volume_id'),
        mysql_engine='InnoDB', mysql_charset='utf8')
