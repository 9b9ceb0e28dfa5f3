"""console_auth_tokens.tls_port: the TLS port of a console that has one
(a spice-direct console, 2.99), shown by os-console-auth-tokens.

Expand only: a nullable column.

Revision ID: 0012_console_tls_port
Revises: 0011_share_mappings
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = '0012_console_tls_port'
down_revision = '0011_share_mappings'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('console_auth_tokens',
                  sa.Column('tls_port', sa.Integer, nullable=True))
