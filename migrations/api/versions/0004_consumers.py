"""Consumers: who holds allocations, with a generation (expand only).

A consumer holding allocations written before this revision has no row
and counts as generation 0 (nova_lite.placement.allocations).

Revision ID: 0004_consumers
Revises: 0003_resource_providers
Create Date: 2026-11-25
"""
from alembic import op
import sqlalchemy as sa

revision = '0004_consumers'
down_revision = '0003_resource_providers'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'consumers',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('project_id', sa.String(255)),
        sa.Column('user_id', sa.String(255)),
        sa.Column('generation', sa.Integer, nullable=False),
        sa.UniqueConstraint('uuid', name='uniq_consumers0uuid'),
        mysql_engine='InnoDB', mysql_charset='utf8')
