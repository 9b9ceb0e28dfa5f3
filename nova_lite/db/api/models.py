"""API database models. History lives in migrations/api; never edit there."""
from oslo_db.sqlalchemy import models
import sqlalchemy as sa
from sqlalchemy import orm

BASE = orm.declarative_base()


class _Base(models.ModelBase, models.TimestampMixin):
    pass


class CellMapping(BASE, _Base):
    __tablename__ = 'cell_mappings'
    __table_args__ = (
        sa.Index('uuid_idx', 'uuid'),
        sa.UniqueConstraint('uuid', name='uniq_cell_mappings0uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255))
    transport_url = sa.Column(sa.Text())
    database_connection = sa.Column(sa.Text())
    disabled = sa.Column(sa.Boolean, nullable=False, default=False,
                         server_default=sa.false())

    host_mappings = orm.relationship('HostMapping', back_populates='cell')


class HostMapping(BASE, _Base):
    __tablename__ = 'host_mappings'
    __table_args__ = (
        sa.Index('host_idx', 'host'),
        sa.UniqueConstraint('host', name='uniq_host_mappings0host'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    cell_id = sa.Column(sa.Integer, sa.ForeignKey('cell_mappings.id'),
                        nullable=False)
    host = sa.Column(sa.String(255), nullable=False)

    cell = orm.relationship('CellMapping', back_populates='host_mappings')


class InstanceMapping(BASE, _Base):
    __tablename__ = 'instance_mappings'
    __table_args__ = (
        sa.Index('project_id_idx', 'project_id'),
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_instance_mappings0instance_uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    cell_id = sa.Column(sa.Integer, sa.ForeignKey('cell_mappings.id'),
                        nullable=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=True)
    queued_for_delete = sa.Column(sa.Boolean)

    cell_mapping = orm.relationship('CellMapping')


# --- flavors: global, so they live here. Same columns as the legacy cell
# tables instance_types* (tests/unit/test_flavor_models.py checks parity);
# rows here are hard-deleted, so deleted stays 0.

class Flavors(BASE, _Base, models.SoftDeleteMixin):
    __tablename__ = 'flavors'
    __table_args__ = (
        sa.UniqueConstraint('name', 'deleted',
                            name='uniq_flavors0name0deleted'),
        sa.UniqueConstraint('flavorid', 'deleted',
                            name='uniq_flavors0flavorid0deleted'),
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


class FlavorExtraSpecs(BASE, _Base, models.SoftDeleteMixin):
    __tablename__ = 'flavor_extra_specs'
    __table_args__ = (
        sa.Index('flavor_extra_specs_flavor_id_key_idx', 'flavor_id', 'key'),
        sa.UniqueConstraint('flavor_id', 'key', 'deleted',
                            name='uniq_flavor_extra_specs0flavor_id0key0'
                                 'deleted'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    flavor_id = sa.Column(sa.Integer, sa.ForeignKey('flavors.id'),
                          nullable=False)
    key = sa.Column(sa.String(255))
    value = sa.Column(sa.String(255))


class FlavorProjects(BASE, _Base, models.SoftDeleteMixin):
    __tablename__ = 'flavor_projects'
    __table_args__ = (
        sa.UniqueConstraint('flavor_id', 'project_id', 'deleted',
                            name='uniq_flavor_projects0flavor_id0project_id0'
                                 'deleted'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    flavor_id = sa.Column(sa.Integer, sa.ForeignKey('flavors.id'),
                          nullable=False)
    project_id = sa.Column(sa.String(255))


# --- resource providers: generic, quantitative capacity (inventories) and
# its consumption (allocations). Rows are hard-deleted. No foreign keys, as
# in Placement: a child insert would take a shared lock on the provider row
# that the claim's generation UPDATE then has to upgrade (deadlocks).

class ResourceProvider(BASE, _Base):
    __tablename__ = 'resource_providers'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(200))
    generation = sa.Column(sa.Integer, nullable=False, default=0)


class ResourceClass(BASE, models.ModelBase):
    """Standard classes (os-resource-classes) keep id = index + 1; custom
    CUSTOM_* classes get ids from 10000 up."""
    __tablename__ = 'resource_classes'
    __table_args__ = (
        sa.UniqueConstraint('name', name='uniq_resource_classes0name'),
    )
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=False)
    name = sa.Column(sa.String(255), nullable=False)


class Inventory(BASE, models.ModelBase):
    __tablename__ = 'inventories'
    __table_args__ = (
        sa.Index('inventories_resource_provider_id_idx',
                 'resource_provider_id'),
        sa.Index('inventories_resource_class_id_idx', 'resource_class_id'),
        sa.UniqueConstraint('resource_provider_id', 'resource_class_id',
                            name='uniq_inventories0resource_provider_'
                                 'resource_class'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    resource_provider_id = sa.Column(sa.Integer, nullable=False)
    resource_class_id = sa.Column(sa.Integer, nullable=False)
    total = sa.Column(sa.Integer, nullable=False)
    reserved = sa.Column(sa.Integer, nullable=False)
    min_unit = sa.Column(sa.Integer, nullable=False)
    max_unit = sa.Column(sa.Integer, nullable=False)
    step_size = sa.Column(sa.Integer, nullable=False)
    allocation_ratio = sa.Column(sa.Float, nullable=False)


class Allocation(BASE, models.ModelBase):
    __tablename__ = 'allocations'
    __table_args__ = (
        sa.Index('allocations_consumer_id_idx', 'consumer_id'),
        # (provider, class) first; used last makes SUM(used) index-only.
        sa.Index('allocations_resource_provider_class_used_idx',
                 'resource_provider_id', 'resource_class_id', 'used'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    resource_provider_id = sa.Column(sa.Integer, nullable=False)
    consumer_id = sa.Column(sa.String(36), nullable=False)
    resource_class_id = sa.Column(sa.Integer, nullable=False)
    used = sa.Column(sa.Integer, nullable=False)


class Consumer(BASE, _Base):
    """Whoever holds allocations (an instance, a migration), with a
    generation that moves on every change of its allocations (Placement
    1.28: concurrent writers for one consumer are serialised by it)."""
    __tablename__ = 'consumers'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_consumers0uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    project_id = sa.Column(sa.String(255))
    user_id = sa.Column(sa.String(255))
    generation = sa.Column(sa.Integer, nullable=False, default=0)


# --- servers before and around their cell: what the scheduler was asked
# for, and the server as the API shows it until a cell holds it.

class RequestSpec(BASE, _Base):
    __tablename__ = 'request_specs'
    __table_args__ = (
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_request_specs0instance_uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    spec = sa.Column(sa.Text, nullable=False)


class BuildRequest(BASE, _Base):
    __tablename__ = 'build_requests'
    __table_args__ = (
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_build_requests0instance_uuid'),
        sa.Index('build_requests_project_id_idx', 'project_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255))
    # The Instance object as a JSON primitive (what the API shows).
    instance = sa.Column(sa.Text)
    block_device_mappings = sa.Column(sa.Text)
    tags = sa.Column(sa.Text)


# --- key pairs: a user's, across projects and cells. Rows are
# hard-deleted, so deleted stays 0 (it is part of the unique key only so
# the schema allows soft deletion later).

class KeyPair(BASE, _Base, models.SoftDeleteMixin):
    __tablename__ = 'key_pairs'
    __table_args__ = (
        sa.UniqueConstraint('user_id', 'name', 'deleted',
                            name='uniq_key_pairs0user_id0name0deleted'),
    )
    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    name = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=False)
    fingerprint = sa.Column(sa.String(255))
    public_key = sa.Column(sa.Text)
    # 'ssh' or 'x509'
    type = sa.Column(sa.String(10), nullable=False, default='ssh',
                     server_default='ssh')


# --- server groups: a project's, across cells; members are instance uuids
# (a member row goes when its server is deleted). Rows are hard-deleted.

class InstanceGroup(BASE, _Base):
    __tablename__ = 'instance_groups'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_instance_groups0uuid'),
        sa.Index('instance_groups_project_id_idx', 'project_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255))
    user_id = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))
    # affinity, anti-affinity, soft-affinity or soft-anti-affinity
    policy = sa.Column(sa.String(255), nullable=False)
    # JSON: {"max_server_per_host": n} (2.64, anti-affinity only)
    rules = sa.Column(sa.Text)


class InstanceGroupMember(BASE, _Base):
    __tablename__ = 'instance_group_member'
    __table_args__ = (
        sa.UniqueConstraint('group_id', 'instance_uuid',
                            name='uniq_instance_group_member0group0uuid'),
        sa.Index('instance_group_member_instance_idx', 'instance_uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    group_id = sa.Column(sa.Integer, sa.ForeignKey('instance_groups.id'),
                         nullable=False)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
