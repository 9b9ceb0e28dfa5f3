"""Host aggregates (hosts, metadata) and placement's aggregates and
traits of resource providers, in the API database (expand only).

Revision ID: 0009_aggregates
Revises: 0008_server_groups
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = '0009_aggregates'
down_revision = '0008_server_groups'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'aggregates',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.UniqueConstraint('uuid', name='uniq_aggregates0uuid'),
        sa.UniqueConstraint('name', name='uniq_aggregate0name'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'aggregate_hosts',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('host', sa.String(255), nullable=False),
        sa.Column('aggregate_id', sa.Integer, nullable=False),
        sa.UniqueConstraint('host', 'aggregate_id',
                            name='uniq_aggregate_hosts0host0aggregate_id'),
        sa.Index('aggregate_hosts_aggregate_id_idx', 'aggregate_id'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'aggregate_metadata',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('aggregate_id', sa.Integer, nullable=False),
        sa.Column('key', sa.String(255), nullable=False),
        sa.Column('value', sa.String(255), nullable=False),
        sa.UniqueConstraint('aggregate_id', 'key',
                            name='uniq_aggregate_metadata0aggregate_id0key'),
        sa.Index('aggregate_metadata_key_value_idx', 'key', 'value'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    # Placement: aggregates of providers (uuids, as Placement keeps
    # them) and traits.
    op.create_table(
        'placement_aggregates',
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'resource_provider_aggregates',
        sa.Column('resource_provider_id', sa.Integer, primary_key=True,
                  nullable=False),
        sa.Column('aggregate_id', sa.Integer, primary_key=True,
                  nullable=False),
        sa.Index('resource_provider_aggregates_aggregate_id_idx',
                 'aggregate_id'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'traits',
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.UniqueConstraint('name', name='uniq_traits0name'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'resource_provider_traits',
        sa.Column('resource_provider_id', sa.Integer, primary_key=True,
                  nullable=False),
        sa.Column('trait_id', sa.Integer, primary_key=True, nullable=False),
        sa.Index('resource_provider_traits_trait_id_idx', 'trait_id'),
        mysql_engine='InnoDB', mysql_charset='utf8')
