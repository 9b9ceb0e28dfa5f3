"""Floating IPs of the embedded network service (Neutron's floatingips
on external networks, the pools of the Compute API's os-floating-ips
proxy), and the metadata and source snapshot of volumes (the
os-volumes proxy shows them).

Expand only: a new table and new nullable/defaulted columns. A
network made before this revision is not external.

Revision ID: 0007_floating_ips
Revises: 0006_volume_snapshots
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = '0007_floating_ips'
down_revision = '0006_volume_snapshots'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('networks', sa.Column('external', sa.Boolean,
                                        nullable=False,
                                        server_default=sa.false()))
    op.add_column('volumes', sa.Column('properties', sa.Text))
    op.add_column('volumes', sa.Column('snapshot_id', sa.String(36)))
    op.create_table(
        'floating_ips',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.String(36), primary_key=True, nullable=False),
        sa.Column('floating_network_id', sa.String(36),
                  sa.ForeignKey('networks.id'), nullable=False),
        sa.Column('floating_ip_address', sa.String(64), nullable=False),
        sa.Column('project_id', sa.String(255)),
        sa.Column('port_id', sa.String(36)),
        sa.Column('fixed_ip_address', sa.String(64)),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('description', sa.String(255)),
        sa.UniqueConstraint(
            'floating_network_id', 'floating_ip_address',
            name='uniq_floating_ips0network_id0address'),
        sa.UniqueConstraint(
            'port_id', 'fixed_ip_address',
            name='uniq_floating_ips0port_id0fixed_ip_address'),
        sa.Index('floating_ips_project_id_idx', 'project_id'),
        sa.Index('floating_ips_address_idx', 'floating_ip_address'),
        mysql_engine='InnoDB', mysql_charset='utf8')
