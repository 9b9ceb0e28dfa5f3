"""compute_nodes.uuid: nullable; values come online, never from here.

Revision ID: 0002_compute_node_uuid
Revises: 0001_initial
Create Date: 2026-11-22
"""
from alembic import op
import sqlalchemy as sa

revision = '0002_compute_node_uuid'
down_revision = '0001_initial'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('compute_nodes') as batch:
        batch.add_column(sa.Column('uuid', sa.String(36), nullable=True))
        batch.create_index('compute_nodes_uuid_idx', ['uuid'], unique=True)
