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


# --- servers: an instance and the rows that hang off it (all keyed by the
# instance's uuid). Instance.hard_delete() removes them all in one
# transaction (nova_lite.db.main.instances.hard_delete).

class Instance(BASE, _Base):
    __tablename__ = 'instances'
    __table_args__ = (
        sa.UniqueConstraint('uuid', name='uniq_instances0uuid'),
        sa.Index('instances_project_id_deleted_idx', 'project_id',
                 'deleted'),
        sa.Index('instances_deleted_created_at_idx', 'deleted',
                 'created_at', 'id'),
        sa.Index('instances_host_deleted_idx', 'host', 'deleted'),
        # Everything a project's quota count reads (migration 0014).
        sa.Index('instances_quota_usage_idx', 'project_id', 'deleted',
                 'hidden', 'vm_state', 'vcpus', 'memory_mb'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    user_id = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))
    image_ref = sa.Column(sa.String(255))
    hostname = sa.Column(sa.String(255))
    host = sa.Column(sa.String(255))
    node = sa.Column(sa.String(255))
    launched_on = sa.Column(sa.Text)
    instance_type_id = sa.Column(sa.Integer)
    vm_state = sa.Column(sa.String(255))
    task_state = sa.Column(sa.String(255))
    power_state = sa.Column(sa.Integer)
    memory_mb = sa.Column(sa.Integer)
    vcpus = sa.Column(sa.Integer)
    root_gb = sa.Column(sa.Integer)
    ephemeral_gb = sa.Column(sa.Integer)
    display_name = sa.Column(sa.String(255))
    display_description = sa.Column(sa.Text)
    key_name = sa.Column(sa.String(255))
    key_data = sa.Column(sa.Text)
    user_data = sa.Column(sa.Text)
    reservation_id = sa.Column(sa.String(255))
    launch_index = sa.Column(sa.Integer)
    availability_zone = sa.Column(sa.String(255))
    locked = sa.Column(sa.Boolean)
    locked_by = sa.Column(sa.String(5))
    launched_at = sa.Column(sa.DateTime)
    terminated_at = sa.Column(sa.DateTime)
    access_ip_v4 = sa.Column(sa.String(39))
    access_ip_v6 = sa.Column(sa.String(39))
    config_drive = sa.Column(sa.String(255))
    progress = sa.Column(sa.Integer)
    root_device_name = sa.Column(sa.String(255))
    # OS-DCF:diskConfig: AUTO (true) or MANUAL (false, or NULL).
    auto_disk_config = sa.Column(sa.Boolean)
    # A copy being built in (or left behind in) another cell by a
    # cross-cell move: never listed.
    hidden = sa.Column(sa.Boolean, nullable=False, default=False,
                       server_default=sa.false())


class InstanceExtra(BASE, _Base):
    __tablename__ = 'instance_extra'
    __table_args__ = (
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_instance_extra0instance_uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    # {"cur": EmbeddedFlavor primitive, "old": ..., "new": ...}
    flavor = sa.Column(sa.Text)
    migration_context = sa.Column(sa.Text)
    keypairs = sa.Column(sa.Text)


class InstanceInfoCache(BASE, _Base):
    __tablename__ = 'instance_info_caches'
    __table_args__ = (
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_instance_info_caches0instance_uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    network_info = sa.Column(sa.Text)


class InstanceFault(BASE, _Base):
    __tablename__ = 'instance_faults'
    __table_args__ = (
        sa.Index('instance_faults_instance_uuid_deleted_created_at_idx',
                 'instance_uuid', 'deleted', 'created_at'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    code = sa.Column(sa.Integer, nullable=False)
    message = sa.Column(sa.String(255))
    details = sa.Column(sa.Text)
    host = sa.Column(sa.String(255))


class InstanceAction(BASE, _Base):
    __tablename__ = 'instance_actions'
    __table_args__ = (
        sa.Index('instance_uuid_request_id_idx', 'instance_uuid',
                 'request_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    action = sa.Column(sa.String(255))
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    request_id = sa.Column(sa.String(255))
    user_id = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))
    start_time = sa.Column(sa.DateTime)
    finish_time = sa.Column(sa.DateTime)
    message = sa.Column(sa.String(255))


class InstanceActionEvent(BASE, _Base):
    __tablename__ = 'instance_actions_events'
    __table_args__ = (
        sa.Index('instance_actions_events_action_id_idx', 'action_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    event = sa.Column(sa.String(255))
    action_id = sa.Column(sa.Integer, nullable=False)
    start_time = sa.Column(sa.DateTime)
    finish_time = sa.Column(sa.DateTime)
    result = sa.Column(sa.String(255))
    traceback = sa.Column(sa.Text)
    host = sa.Column(sa.String(255))
    details = sa.Column(sa.Text)


class Tag(BASE, models.ModelBase):
    __tablename__ = 'tags'
    __table_args__ = (
        sa.Index('tags_tag_idx', 'tag'),
    )
    resource_id = sa.Column(sa.String(36), primary_key=True,
                            nullable=False)
    tag = sa.Column(sa.String(80), primary_key=True, nullable=False)


class InstanceMetadata(BASE, _Base):
    __tablename__ = 'instance_metadata'
    __table_args__ = (
        sa.Index('instance_metadata_instance_uuid_idx', 'instance_uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    key = sa.Column(sa.String(255))
    value = sa.Column(sa.String(255))
    instance_uuid = sa.Column(sa.String(36), nullable=False)


class InstanceSystemMetadata(BASE, _Base):
    __tablename__ = 'instance_system_metadata'
    __table_args__ = (
        sa.Index('instance_system_metadata_instance_uuid_idx',
                 'instance_uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    key = sa.Column(sa.String(255), nullable=False)
    value = sa.Column(sa.String(255))
    instance_uuid = sa.Column(sa.String(36), nullable=False)


class BlockDeviceMapping(BASE, _Base):
    __tablename__ = 'block_device_mapping'
    __table_args__ = (
        sa.Index('block_device_mapping_instance_uuid_idx', 'instance_uuid'),
        sa.UniqueConstraint('uuid', name='uniq_block_device_mapping0uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36))
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    source_type = sa.Column(sa.String(255))
    destination_type = sa.Column(sa.String(255))
    guest_format = sa.Column(sa.String(255))
    device_type = sa.Column(sa.String(255))
    disk_bus = sa.Column(sa.String(255))
    boot_index = sa.Column(sa.Integer)
    device_name = sa.Column(sa.String(255))
    delete_on_termination = sa.Column(sa.Boolean, default=False)
    snapshot_id = sa.Column(sa.String(36))
    volume_id = sa.Column(sa.String(36))
    volume_size = sa.Column(sa.Integer)
    image_id = sa.Column(sa.String(36))
    no_device = sa.Column(sa.Boolean)
    connection_info = sa.Column(sa.Text)
    attachment_id = sa.Column(sa.String(36))
    tag = sa.Column(sa.String(255))


class Migration(BASE, _Base):
    __tablename__ = 'migrations'
    __table_args__ = (
        sa.Index('migrations_instance_uuid_and_status_idx', 'deleted',
                 'instance_uuid', 'status'),
        sa.Index('migrations_source_compute_status_idx', 'deleted',
                 'source_compute', 'status'),
        sa.Index('migrations_dest_compute_status_idx', 'deleted',
                 'dest_compute', 'status'),
        sa.UniqueConstraint('uuid', name='uniq_migrations0uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36))
    source_compute = sa.Column(sa.String(255))
    dest_compute = sa.Column(sa.String(255))
    source_node = sa.Column(sa.String(255))
    dest_node = sa.Column(sa.String(255))
    dest_host = sa.Column(sa.String(255))
    old_instance_type_id = sa.Column(sa.Integer)
    new_instance_type_id = sa.Column(sa.Integer)
    instance_uuid = sa.Column(sa.String(36))
    status = sa.Column(sa.String(255))
    migration_type = sa.Column(sa.String(255))
    hidden = sa.Column(sa.Boolean, nullable=False, default=False,
                       server_default=sa.false())
    cross_cell_move = sa.Column(sa.Boolean, nullable=False, default=False,
                                server_default=sa.false())
    user_id = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))
    # A live migration's progress (bytes), as its source's driver reports.
    memory_total = sa.Column(sa.BigInteger)
    memory_processed = sa.Column(sa.BigInteger)
    memory_remaining = sa.Column(sa.BigInteger)
    disk_total = sa.Column(sa.BigInteger)
    disk_processed = sa.Column(sa.BigInteger)
    disk_remaining = sa.Column(sa.BigInteger)


class TaskLog(BASE, models.ModelBase, models.TimestampMixin):
    __tablename__ = 'task_log'
    __table_args__ = (
        sa.UniqueConstraint(
            'task_name', 'host', 'period_beginning', 'period_ending',
            name='uniq_task_log0task_name0host0period_beginning0'
                 'period_ending'),
        sa.Index('task_log_period_beginning_idx', 'period_beginning'),
    )
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    task_name = sa.Column(sa.String(255), nullable=False)
    state = sa.Column(sa.String(255), nullable=False)
    host = sa.Column(sa.String(255), nullable=False)
    period_beginning = sa.Column(sa.DateTime, nullable=False)
    period_ending = sa.Column(sa.DateTime, nullable=False)
    message = sa.Column(sa.String(255), nullable=False)
    task_items = sa.Column(sa.Integer, nullable=True)
    errors = sa.Column(sa.Integer, nullable=True)


class ConsoleAuthToken(BASE, models.ModelBase, models.TimestampMixin):
    """A remote console's token (its sha256; the token itself is only
    in the access URL): valid until ``expires`` (unix time) while the
    server is not deleted and still on ``instance_host``."""
    __tablename__ = 'console_auth_tokens'
    __table_args__ = (
        sa.UniqueConstraint('token_hash',
                            name='uniq_console_auth_tokens0token_hash'),
        sa.Index('console_auth_tokens_instance_uuid_idx', 'instance_uuid'),
        sa.Index('console_auth_tokens_host_expires_idx', 'host', 'expires'),
    )
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    token_hash = sa.Column(sa.String(255), nullable=False)
    console_type = sa.Column(sa.String(255), nullable=False)
    host = sa.Column(sa.String(255), nullable=False)
    port = sa.Column(sa.Integer, nullable=False)
    # A console's TLS port, when it has one (spice-direct, 2.99).
    tls_port = sa.Column(sa.Integer)
    internal_access_path = sa.Column(sa.String(255))
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    instance_host = sa.Column(sa.String(255))
    expires = sa.Column(sa.Integer, nullable=False)
    access_url_base = sa.Column(sa.String(255))


class ShareMapping(BASE, models.ModelBase, models.TimestampMixin):
    """A share attached to a server (2.97): one per server and share,
    and per server and tag (the name the guest mounts it by)."""
    __tablename__ = 'share_mappings'
    __table_args__ = (
        sa.UniqueConstraint('instance_uuid', 'share_id',
                            name='uniq_share_mappings0instance0share'),
        sa.UniqueConstraint('instance_uuid', 'tag',
                            name='uniq_share_mappings0instance0tag'),
    )
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    share_id = sa.Column(sa.String(36), nullable=False)
    # attaching, inactive, active, detaching, error
    status = sa.Column(sa.String(32), nullable=False)
    tag = sa.Column(sa.String(48), nullable=False)
    export_location = sa.Column(sa.Text, nullable=False)
    share_proto = sa.Column(sa.String(32), nullable=False)
