"""Build requests record which super conductor picked them up and when
(expand only): a build request no conductor picked up within [conductor]
build_request_timeout is buried by the super conductors' periodic task,
and one a conductor picked up is never buried under it.

Revision ID: 0010_build_request_pickup
Revises: 0009_aggregates
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = '0010_build_request_pickup'
down_revision = '0009_aggregates'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('build_requests',
                  sa.Column('picked_up_by', sa.String(255), nullable=True))
    op.add_column('build_requests',
                  sa.Column('picked_up_at', sa.DateTime, nullable=True))
