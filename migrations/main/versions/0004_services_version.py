"""services.version: integer, NULL means version 1 (the spec's choice).

Revision ID: 0004_services_version
Revises: 0003_legacy_flavors
Create Date: 2026-11-22
"""
from alembic import op
import sqlalchemy as sa

revision = '0004_services_version'
down_revision = '0003_legacy_flavors'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('services') as batch:
        batch.add_column(sa.Column('version', sa.Integer, nullable=True))
