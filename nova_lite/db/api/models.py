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
    # The flavor's cores and ram, for counting quota usage in SQL before
    # the server is in a cell (NULL from an older API: counted as 0).
    vcpus = sa.Column(sa.Integer)
    memory_mb = sa.Column(sa.Integer)
    # Who took the build request (a super conductor's token; NULL: no
    # one yet) and when: a conductor building it, or the periodic task
    # burying it when no conductor took it in time. Taken once, by one.
    picked_up_by = sa.Column(sa.String(255))
    picked_up_at = sa.Column(sa.DateTime)


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


# --- host aggregates: hosts grouped with metadata (availability_zone,
# filter_tenant_id_*...). Rows are hard-deleted.

class Aggregate(BASE, _Base):
    __tablename__ = 'aggregates'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_aggregates0uuid'),
        sa.UniqueConstraint('name', name='uniq_aggregate0name'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255), nullable=False)


class AggregateHost(BASE, _Base):
    __tablename__ = 'aggregate_hosts'
    __table_args__ = (
        sa.UniqueConstraint('host', 'aggregate_id',
                            name='uniq_aggregate_hosts0host0aggregate_id'),
        sa.Index('aggregate_hosts_aggregate_id_idx', 'aggregate_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    host = sa.Column(sa.String(255), nullable=False)
    aggregate_id = sa.Column(sa.Integer, nullable=False)


class AggregateMetadata(BASE, _Base):
    __tablename__ = 'aggregate_metadata'
    __table_args__ = (
        sa.UniqueConstraint('aggregate_id', 'key',
                            name='uniq_aggregate_metadata0aggregate_id0key'),
        sa.Index('aggregate_metadata_key_value_idx', 'key', 'value'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    aggregate_id = sa.Column(sa.Integer, nullable=False)
    key = sa.Column(sa.String(255), nullable=False)
    value = sa.Column(sa.String(255), nullable=False)


# --- placement: aggregates (by uuid) and traits of resource providers.

class PlacementAggregate(BASE, models.ModelBase):
    __tablename__ = 'placement_aggregates'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)


class ResourceProviderAggregate(BASE, models.ModelBase):
    __tablename__ = 'resource_provider_aggregates'
    __table_args__ = (
        sa.Index('resource_provider_aggregates_aggregate_id_idx',
                 'aggregate_id'),
    )
    resource_provider_id = sa.Column(sa.Integer, primary_key=True)
    aggregate_id = sa.Column(sa.Integer, primary_key=True)


class Trait(BASE, models.ModelBase):
    __tablename__ = 'traits'
    __table_args__ = (
        sa.UniqueConstraint('name', name='uniq_traits0name'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    name = sa.Column(sa.String(255), nullable=False)


class ResourceProviderTrait(BASE, models.ModelBase):
    __tablename__ = 'resource_provider_traits'
    __table_args__ = (
        sa.Index('resource_provider_traits_trait_id_idx', 'trait_id'),
    )
    resource_provider_id = sa.Column(sa.Integer, primary_key=True)
    trait_id = sa.Column(sa.Integer, primary_key=True)


# --- quotas: limits per project, per user of a project and per quota
# class (the class 'default' holds the defaults the API sets), in Nova's
# shape; a lock row per project serialises the quota checks of boots.

class Quota(BASE, _Base):
    __tablename__ = 'quotas'
    __table_args__ = (
        sa.UniqueConstraint('project_id', 'resource',
                            name='uniq_quotas0project_id0resource'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    project_id = sa.Column(sa.String(255))
    resource = sa.Column(sa.String(255), nullable=False)
    hard_limit = sa.Column(sa.Integer)


class ProjectUserQuota(BASE, _Base):
    __tablename__ = 'project_user_quotas'
    __table_args__ = (
        sa.UniqueConstraint(
            'user_id', 'project_id', 'resource',
            name='uniq_project_user_quotas0user_id0project_id0resource'),
        sa.Index('project_user_quotas_project_id_idx', 'project_id'),
        sa.Index('project_user_quotas_user_id_idx', 'user_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=False)
    resource = sa.Column(sa.String(255), nullable=False)
    hard_limit = sa.Column(sa.Integer)


class QuotaClass(BASE, _Base):
    __tablename__ = 'quota_classes'
    __table_args__ = (
        sa.Index('quota_classes_class_name_idx', 'class_name'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    class_name = sa.Column(sa.String(255))
    resource = sa.Column(sa.String(255))
    hard_limit = sa.Column(sa.Integer)


class QuotaLock(BASE, models.ModelBase):
    """One row per project, updated (and so write-locked) by every quota
    check that creates servers, in the transaction that writes them."""
    __tablename__ = 'quota_locks'
    project_id = sa.Column(sa.String(255), primary_key=True)
    generation = sa.Column(sa.Integer, nullable=False, default=0,
                           server_default='0')

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
