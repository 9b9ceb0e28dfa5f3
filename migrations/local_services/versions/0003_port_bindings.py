"""Port bindings: several bindings per port, one of them ACTIVE (the
multiple port bindings of Neutron's binding-extended API).

Expand only: ports.binding_host stays (the ACTIVE binding's host). A
port bound before this revision gets its ACTIVE binding row online, the
first time its bindings are read or changed (nova_lite.network.store).

Revision ID: 0003_port_bindings
Revises: 0002_volumes
Create Date: 2026-11-27
"""
from alembic import op
import sqlalchemy as sa

revision = '0003_port_bindings'
down_revision = '0002_volumes'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'port_bindings',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('port_id', sa.String(36), sa.ForeignKey('ports.id'),
                  primary_key=True, nullable=False),
        sa.Column('host', sa.String(255), primary_key=True, nullable=False),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('vif_type', sa.String(64), nullable=False),
        sa.Column('vnic_type', sa.String(64), nullable=False),
        sa.Column('profile', sa.Text),
        sa.Column('vif_details', sa.Text),
        sa.Index('port_bindings_host_idx', 'host'),
        mysql_engine='InnoDB', mysql_charset='utf8')
