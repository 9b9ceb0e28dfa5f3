"""Initial local-services database: images, networks, subnets, ports.

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-25
"""
from alembic import op
import sqlalchemy as sa

revision = '0001_initial'
down_revision = None
branch_labels = None
depends_on = None


def _timestamps():
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime)]


def upgrade():
    op.create_table(
        'images', *_timestamps(),
        sa.Column('id', sa.String(36), primary_key=True, nullable=False),
        sa.Column('name', sa.String(255)),
        sa.Column('status', sa.String(30), nullable=False),
        sa.Column('visibility', sa.String(20), nullable=False),
        sa.Column('owner', sa.String(255)),
        sa.Column('disk_format', sa.String(20)),
        sa.Column('container_format', sa.String(20)),
        sa.Column('min_disk', sa.Integer, nullable=False),
        sa.Column('min_ram', sa.Integer, nullable=False),
        sa.Column('size', sa.BigInteger),
        sa.Column('checksum', sa.String(32)),
        sa.Column('properties', sa.Text),
        sa.Column('deleted', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Index('images_deleted_visibility_idx', 'deleted', 'visibility'),
        sa.Index('images_owner_idx', 'owner'),
        sa.Index('images_created_at_id_idx', 'created_at', 'id'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'networks', *_timestamps(),
        sa.Column('id', sa.String(36), primary_key=True, nullable=False),
        sa.Column('name', sa.String(255)),
        sa.Column('project_id', sa.String(255)),
        sa.Column('shared', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Index('networks_project_id_idx', 'project_id'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'subnets', *_timestamps(),
        sa.Column('id', sa.String(36), primary_key=True, nullable=False),
        sa.Column('network_id', sa.String(36), sa.ForeignKey('networks.id'),
                  nullable=False),
        sa.Column('cidr', sa.String(64), nullable=False),
        sa.Column('gateway_ip', sa.String(64)),
        sa.Column('ip_version', sa.Integer, nullable=False),
        sa.Index('subnets_network_id_idx', 'network_id'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'ports', *_timestamps(),
        sa.Column('id', sa.String(36), primary_key=True, nullable=False),
        sa.Column('network_id', sa.String(36), sa.ForeignKey('networks.id'),
                  nullable=False),
        sa.Column('subnet_id', sa.String(36), sa.ForeignKey('subnets.id')),
        sa.Column('project_id', sa.String(255)),
        sa.Column('device_id', sa.String(36)),
        sa.Column('device_owner', sa.String(255)),
        sa.Column('mac_address', sa.String(32), nullable=False),
        sa.Column('fixed_ip', sa.String(64)),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('binding_host', sa.String(255)),
        sa.Column('preserve_on_delete', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.UniqueConstraint('network_id', 'fixed_ip',
                            name='uniq_ports0network_id0fixed_ip'),
        sa.UniqueConstraint('mac_address', name='uniq_ports0mac_address'),
        sa.Index('ports_device_id_idx', 'device_id'),
        mysql_engine='InnoDB', mysql_charset='utf8')
