"""console_auth_tokens: the tokens of remote consoles (the sha256 of the
token, never the token), kept in the server's cell until they expire.

Revision ID: 0009_console_auth_tokens
Revises: 0007_instances_auto_disk_config
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = '0009_console_auth_tokens'
down_revision = '0007_instances_auto_disk_config'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'console_auth_tokens',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('token_hash', sa.String(255), nullable=False),
        sa.Column('console_type', sa.String(255), nullable=False),
        sa.Column('host', sa.String(255), nullable=False),
        sa.Column('port', sa.Integer, nullable=False),
        sa.Column('internal_access_path', sa.String(255)),
        sa.Column('instance_uuid', sa.String(36), nullable=False),
        sa.Column('instance_host', sa.String(255)),
        sa.Column('expires', sa.Integer, nullable=False),
        sa.Column('access_url_base', sa.String(255)),
        sa.UniqueConstraint('token_hash',
                            name='uniq_console_auth_tokens0token_hash'),
        sa.Index('console_auth_tokens_instance_uuid_idx', 'instance_uuid'),
        sa.Index('console_auth_tokens_host_expires_idx', 'host', 'expires'),
        mysql_engine='InnoDB', mysql_charset='utf8')
