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
    version = sa.Column(sa.Integer, nullable=True)


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
    # True once the node's capacity lives in resource-provider inventories
    # (API DB). Only a hint for the online migration's scan: readers go by
    # whether the provider exists. NULL (rows written by older code) and
    # False mean "not known to be migrated".
    inventory_migrated = sa.Column(sa.Boolean, nullable=True)


# --- legacy flavors: read, soft-deleted by the online migration, never
# written otherwise. Kept column-for-column identical to the API DB's
# flavors tables (tests/unit/test_flavor_models.py checks it).

class InstanceTypes(BASE, _Base):
    __tablename__ = 'instance_types'
    __table_args__ = (
        sa.UniqueConstraint('name', 'deleted',
                            name='uniq_instance_types0name0deleted'),
        sa.UniqueConstraint('flavorid', 'deleted',
                            name='uniq_instance_types0flavorid0deleted'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    name = sa.Column(sa.String(255))
    memory_mb = sa.Column(sa.Integer, nullable=False)
    vcpus = sa.Column(sa.Integer, nullable=False)
    swap = sa.Column(sa.Integer, nullable=False, default=0)
    vcpu_weight = sa.Column(sa.Integer)
    flavorid = sa.Column(sa.String(255))
    rxtx_factor = sa.Column(sa.Float, default=1)
    root_gb = sa.Column(sa.Integer)
    ephemeral_gb = sa.Column(sa.Integer)
    disabled = sa.Column(sa.Boolean, default=False)
    is_public = sa.Column(sa.Boolean, default=True)
    description = sa.Column(sa.Text)


class InstanceTypeExtraSpecs(BASE, _Base):
    __tablename__ = 'instance_type_extra_specs'
    __table_args__ = (
        sa.Index('instance_type_extra_specs_instance_type_id_key_idx',
                 'flavor_id', 'key'),
        sa.UniqueConstraint('flavor_id', 'key', 'deleted',
                            name='uniq_instance_type_extra_specs0'
                                 'flavor_id0key0deleted'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    flavor_id = sa.Column(sa.Integer, sa.ForeignKey('instance_types.id'),
                          nullable=False)
    key = sa.Column(sa.String(255))
    value = sa.Column(sa.String(255))


class InstanceTypeProjects(BASE, _Base):
    __tablename__ = 'instance_type_projects'
    __table_args__ = (
        sa.UniqueConstraint('flavor_id', 'project_id', 'deleted',
                            name='uniq_instance_type_projects0'
                                 'flavor_id0project_id0deleted'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    flavor_id = sa.Column(sa.Integer, sa.ForeignKey('instance_types.id'),
                          nullable=False)
    project_id = sa.Column(sa.String(255))
