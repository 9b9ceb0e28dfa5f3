"""Initial API database: cell, host and instance mappings.

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-22
"""
from alembic import op
import sqlalchemy as sa

revision = '0001_initial'
down_revision = None
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'cell_mappings',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255)),
        sa.Column('transport_url', sa.Text),
        sa.Column('database_connection', sa.Text),
        sa.Column('disabled', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.UniqueConstraint('uuid', name='uniq_cell_mappings0uuid'),
        sa.Index('uuid_idx', 'uuid'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'host_mappings',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('cell_id', sa.Integer, sa.ForeignKey('cell_mappings.id'),
                  nullable=False),
        sa.Column('host', sa.String(255), nullable=False),
        sa.UniqueConstraint('host', name='uniq_host_mappings0host'),
        sa.Index('host_idx', 'host'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'instance_mappings',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('instance_uuid', sa.String(36), nullable=False),
        sa.Column('cell_id', sa.Integer, sa.ForeignKey('cell_mappings.id'),
                  nullable=True),
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('user_id', sa.String(255), nullable=True),
        sa.Column('queued_for_delete', sa.Boolean),
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_instance_mappings0instance_uuid'),
        sa.Index('project_id_idx', 'project_id'),
        mysql_engine='InnoDB', mysql_charset='utf8')
