"""Key pairs in the API database (expand only).

Revision ID: 0006_key_pairs
Revises: 0005_servers
Create Date: 2026-11-25
"""
from alembic import op
import sqlalchemy as sa

revision = '0006_key_pairs'
down_revision = '0005_servers'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'key_pairs',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('deleted_at', sa.DateTime),
        sa.Column('deleted', sa.Integer),
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('user_id', sa.String(255), nullable=False),
        sa.Column('fingerprint', sa.String(255)),
        sa.Column('public_key', sa.Text),
        sa.Column('type', sa.String(10), nullable=False,
                  server_default='ssh'),
        sa.UniqueConstraint('user_id', 'name', 'deleted',
                            name='uniq_key_pairs0user_id0name0deleted'),
        mysql_engine='InnoDB', mysql_charset='utf8')
