"""The embedded shares service: shares and their access rules (Manila's
shares and share_access_map, flattened: one export location a share).

Expand only: new tables.

Revision ID: 0005_shares
Revises: 0004_security_groups
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = '0005_shares'
down_revision = '0004_security_groups'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'shares',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.String(36), primary_key=True, nullable=False),
        sa.Column('name', sa.String(255)),
        sa.Column('description', sa.String(255)),
        sa.Column('project_id', sa.String(255)),
        sa.Column('user_id', sa.String(255)),
        sa.Column('size', sa.Integer, nullable=False),
        sa.Column('share_proto', sa.String(255), nullable=False),
        sa.Column('status', sa.String(30), nullable=False),
        sa.Column('export_location', sa.String(255)),
        sa.Column('availability_zone', sa.String(255)),
        sa.Column('deleted', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Index('shares_project_id_deleted_idx', 'project_id', 'deleted'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'share_access_rules',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.String(36), primary_key=True, nullable=False),
        sa.Column('share_id', sa.String(36), sa.ForeignKey('shares.id'),
                  nullable=False),
        sa.Column('access_type', sa.String(255), nullable=False),
        sa.Column('access_to', sa.String(255), nullable=False),
        sa.Column('access_level', sa.String(2), nullable=False),
        sa.Column('state', sa.String(30), nullable=False),
        sa.UniqueConstraint('share_id', 'access_type', 'access_to',
                            name='uniq_share_access_rules0share0to'),
        sa.Index('share_access_rules_access_to_idx', 'access_to'),
        mysql_engine='InnoDB', mysql_charset='utf8')
