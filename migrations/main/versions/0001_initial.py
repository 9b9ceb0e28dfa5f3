"""Initial cell database: services and compute nodes.

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-22
"""
from alembic import op
import sqlalchemy as sa

revision = '0001_initial'
down_revision = None
branch_labels = None
depends_on = None


def _common():
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime),
            sa.Column('deleted_at', sa.DateTime),
            sa.Column('deleted', sa.Integer)]


def upgrade():
    op.create_table(
        'services',
        *_common(),
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('uuid', sa.String(36), nullable=True),
        sa.Column('host', sa.String(255)),
        sa.Column('binary', sa.String(255)),
        sa.Column('topic', sa.String(255)),
        sa.Column('report_count', sa.Integer, nullable=False),
        sa.Column('disabled', sa.Boolean),
        sa.Column('disabled_reason', sa.String(255)),
        sa.Column('last_seen_up', sa.DateTime, nullable=True),
        sa.Column('forced_down', sa.Boolean),
        sa.UniqueConstraint('host', 'topic', 'deleted',
                            name='uniq_services0host0topic0deleted'),
        sa.UniqueConstraint('host', 'binary', 'deleted',
                            name='uniq_services0host0binary0deleted'),
        sa.Index('services_uuid_idx', 'uuid', unique=True),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'compute_nodes',
        *_common(),
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('service_id', sa.Integer, nullable=True),
        sa.Column('host', sa.String(255), nullable=True),
        sa.Column('vcpus', sa.Integer, nullable=False),
        sa.Column('memory_mb', sa.Integer, nullable=False),
        sa.Column('local_gb', sa.Integer, nullable=False),
        sa.Column('vcpus_used', sa.Integer, nullable=False),
        sa.Column('memory_mb_used', sa.Integer, nullable=False),
        sa.Column('local_gb_used', sa.Integer, nullable=False),
        sa.Column('hypervisor_type', sa.Text, nullable=False),
        sa.Column('hypervisor_version', sa.Integer, nullable=False),
        sa.Column('hypervisor_hostname', sa.String(255)),
        sa.Column('free_ram_mb', sa.Integer),
        sa.Column('free_disk_gb', sa.Integer),
        sa.Column('current_workload', sa.Integer),
        sa.Column('running_vms', sa.Integer),
        sa.Column('cpu_info', sa.Text, nullable=False),
        sa.Column('disk_available_least', sa.Integer),
        sa.Column('host_ip', sa.String(39)),
        sa.Column('pci_stats', sa.Text),
        sa.Column('stats', sa.Text),
        sa.Column('numa_topology', sa.Text),
        sa.Column('cpu_allocation_ratio', sa.Float, nullable=True),
        sa.Column('ram_allocation_ratio', sa.Float, nullable=True),
        sa.Column('disk_allocation_ratio', sa.Float, nullable=True),
        sa.UniqueConstraint('host', 'hypervisor_hostname', 'deleted',
                            name='uniq_compute_nodes0host0'
                                 'hypervisor_hostname0deleted'),
        sa.Index('compute_nodes_host_idx', 'host'),
        mysql_engine='InnoDB', mysql_charset='utf8')
