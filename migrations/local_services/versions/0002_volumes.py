"""The embedded volume service: volumes and volume attachments.

Revision ID: 0002_volumes
Revises: 0001_initial
Create Date: 2026-11-25
"""
from alembic import op
import sqlalchemy as sa

revision = '0002_volumes'
down_revision = '0001_initial'
branch_labels = None
depends_on = None


def _timestamps():
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime)]


def upgrade():
    op.create_table(
        'volumes', *_timestamps(),
        sa.Column('id', sa.String(36), primary_key=True, nullable=False),
        sa.Column('name', sa.String(255)),
        sa.Column('description', sa.String(255)),
        sa.Column('project_id', sa.String(255)),
        sa.Column('user_id', sa.String(255)),
        sa.Column('size', sa.Integer, nullable=False),
        sa.Column('status', sa.String(30), nullable=False),
        sa.Column('bootable', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Column('image_id', sa.String(36)),
        sa.Column('availability_zone', sa.String(255)),
        sa.Column('deleted', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Index('volumes_project_id_deleted_idx', 'project_id', 'deleted'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'volume_attachments', *_timestamps(),
        sa.Column('id', sa.String(36), primary_key=True, nullable=False),
        sa.Column('volume_id', sa.String(36), sa.ForeignKey('volumes.id'),
                  nullable=False),
        sa.Column('instance_uuid', sa.String(36), nullable=False),
        sa.Column('attached_host', sa.String(255)),
        sa.Column('attach_status', sa.String(30), nullable=False),
        sa.Column('attach_mode', sa.String(2), nullable=False),
        sa.Column('mountpoint', sa.String(255)),
        sa.Column('connection_info', sa.Text),
        sa.Column('connector', sa.Text),
        sa.Index('volume_attachments_volume_id_idx', 'volume_id'),
        sa.Index('volume_attachments_instance_uuid_idx', 'instance_uuid'),
        mysql_engine='InnoDB', mysql_charset='utf8')
