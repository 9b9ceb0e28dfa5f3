"""share_mappings: the shares attached to a server (2.97), kept in the
server's cell beside its block device mappings.

Expand only: a new table.

Revision ID: 0011_share_mappings
Revises: 0010_task_log
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = '0011_share_mappings'
down_revision = '0010_task_log'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'share_mappings',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('instance_uuid', sa.String(36), nullable=False),
        sa.Column('share_id', sa.String(36), nullable=False),
        sa.Column('status', sa.String(32), nullable=False),
        sa.Column('tag', sa.String(48), nullable=False),
        sa.Column('export_location', sa.Text, nullable=False),
        sa.Column('share_proto', sa.String(32), nullable=False),
        sa.UniqueConstraint('instance_uuid', 'share_id',
                            name='uniq_share_mappings0instance0share'),
        sa.UniqueConstraint('instance_uuid', 'tag',
                            name='uniq_share_mappings0instance0tag'),
        mysql_engine='InnoDB', mysql_charset='utf8')
