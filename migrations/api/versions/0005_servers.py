"""Servers in the API DB: request specs and build requests (expand only).

instance_mappings already allows a NULL cell_id: a server has no cell
until the scheduler picks one.

Revision ID: 0005_servers
Revises: 0004_consumers
Create Date: 2026-11-25
"""
from alembic import op
import sqlalchemy as sa

revision = '0005_servers'
down_revision = '0004_consumers'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'request_specs',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('instance_uuid', sa.String(36), nullable=False),
        sa.Column('spec', sa.Text, nullable=False),
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_request_specs0instance_uuid'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'build_requests',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('instance_uuid', sa.String(36), nullable=False),
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('user_id', sa.String(255)),
        sa.Column('instance', sa.Text),
        sa.Column('block_device_mappings', sa.Text),
        sa.Column('tags', sa.Text),
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_build_requests0instance_uuid'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_index('build_requests_project_id_idx', 'build_requests',
                    ['project_id'])
