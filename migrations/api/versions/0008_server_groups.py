"""Server groups and their members in the API database (expand only).

Revision ID: 0008_server_groups
Revises: 0007_quotas
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = '0008_server_groups'
down_revision = '0007_quotas'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'instance_groups',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255)),
        sa.Column('user_id', sa.String(255)),
        sa.Column('project_id', sa.String(255)),
        sa.Column('policy', sa.String(255), nullable=False),
        sa.Column('rules', sa.Text),
        sa.UniqueConstraint('uuid', name='uniq_instance_groups0uuid'),
        sa.Index('instance_groups_project_id_idx', 'project_id'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'instance_group_member',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('group_id', sa.Integer,
                  sa.ForeignKey('instance_groups.id'), nullable=False),
        sa.Column('instance_uuid', sa.String(36), nullable=False),
        sa.UniqueConstraint('group_id', 'instance_uuid',
                            name='uniq_instance_group_member0group0uuid'),
        sa.Index('instance_group_member_instance_idx', 'instance_uuid'),
        mysql_engine='InnoDB', mysql_charset='utf8')
