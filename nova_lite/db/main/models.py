"""Cell database models. History lives in migrations/main; never edit there."""
from oslo_db.sqlalchemy import models
import sqlalchemy as sa
from sqlalchemy import orm

BASE = orm.declarative_base()


class _Base(models.ModelBase, models.TimestampMixin, models.SoftDeleteMixin):
    pass


class Service(BASE, _Base):
    __tablename__ = 'services'
    __table_args__ = (
        sa.UniqueConstraint('host', 'topic', 'deleted',
                            name='uniq_services0host0topic0deleted'),
        sa.UniqueConstraint('host', 'binary', 'deleted',
                            name='uniq_services0host0binary0deleted'),
        sa.Index('services_uuid_idx', 'uuid', unique=True),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=True)
    host = sa.Column(sa.String(255))
    binary = sa.Column(sa.String(255))
    topic = sa.Column(sa.String(255))
    report_count = sa.Column(sa.Integer, nullable=False, default=0)
    disabled = sa.Column(sa.Boolean, default=False)
    disabled_reason = sa.Column(sa.String(255))
    last_seen_up = sa.Column(sa.DateTime, nullable=True)
    forced_down = sa.Column(sa.Boolean, default=False)


class ComputeNode(BASE, _Base):
    __tablename__ = 'compute_nodes'
    __table_args__ = (
        sa.Index('compute_nodes_host_idx', 'host'),
        sa.Index('compute_nodes_uuid_idx', 'uuid', unique=True),
        sa.UniqueConstraint('host', 'hypervisor_hostname', 'deleted',
                            name='uniq_compute_nodes0host0'
                                 'hypervisor_hostname0deleted'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=True)
    service_id = sa.Column(sa.Integer, nullable=True)
    host = sa.Column(sa.String(255), nullable=True)
    vcpus = sa.Column(sa.Integer, nullable=False)
    memory_mb = sa.Column(sa.Integer, nullable=False)
    local_gb = sa.Column(sa.Integer, nullable=False)
    vcpus_used = sa.Column(sa.Integer, nullable=False)
    memory_mb_used = sa.Column(sa.Integer, nullable=False)
    local_gb_used = sa.Column(sa.Integer, nullable=False)
    hypervisor_type = sa.Column(sa.Text, nullable=False)
    hypervisor_version = sa.Column(sa.Integer, nullable=False)
    hypervisor_hostname = sa.Column(sa.String(255))
    free_ram_mb = sa.Column(sa.Integer)
    free_disk_gb = sa.Column(sa.Integer)
    current_workload = sa.Column(sa.Integer)
    running_vms = sa.Column(sa.Integer)
    cpu_info = sa.Column(sa.Text, nullable=False)
    disk_available_least = sa.Column(sa.Integer)
    host_ip = sa.Column(sa.String(39))
    pci_stats = sa.Column(sa.Text)
    stats = sa.Column(sa.Text, default='{}')
    numa_topology = sa.Column(sa.Text)
    cpu_allocation_ratio = sa.Column(sa.Float, nullable=True)
    ram_allocation_ratio = sa.Column(sa.Float, nullable=True)
    disk_allocation_ratio = sa.Column(sa.Float, nullable=True)
