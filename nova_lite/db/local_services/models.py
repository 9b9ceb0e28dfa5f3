"""Local-services database models (images, networks, subnets, ports and
their bindings, volumes and their attachments, security groups,
shares and their access rules).
History lives in migrations/local_services; never edit there.

Ids are UUID strings chosen by the services (as Glance's and Neutron's
are), so they are the primary keys.
"""
from oslo_db.sqlalchemy import models
import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy import orm

BASE = orm.declarative_base()


class _Base(models.ModelBase, models.TimestampMixin):
    pass


class Image(BASE, _Base):
    __tablename__ = 'images'
    __table_args__ = (
        sa.Index('images_deleted_visibility_idx', 'deleted', 'visibility'),
        sa.Index('images_owner_idx', 'owner'),
        sa.Index('images_created_at_id_idx', 'created_at', 'id'),
    )
    id = sa.Column(sa.String(36), primary_key=True)
    name = sa.Column(sa.String(255))
    # 'queued', 'active' or 'deleted'
    status = sa.Column(sa.String(30), nullable=False)
    # 'public' or 'private'
    visibility = sa.Column(sa.String(20), nullable=False)
    owner = sa.Column(sa.String(255))
    disk_format = sa.Column(sa.String(20))
    container_format = sa.Column(sa.String(20))
    min_disk = sa.Column(sa.Integer, nullable=False, default=0)
    min_ram = sa.Column(sa.Integer, nullable=False, default=0)
    size = sa.Column(sa.BigInteger)
    checksum = sa.Column(sa.String(32))
    # A JSON object of string keys and values.
    properties = sa.Column(sa.Text)
    deleted = sa.Column(sa.Boolean, nullable=False, default=False,
                        server_default=sa.false())


class ImageData(BASE, _Base):
    """The bytes uploaded for an image (at most the API's request body
    limit, [oslo_middleware] max_request_body_size)."""
    __tablename__ = 'image_data'
    image_id = sa.Column(sa.String(36), sa.ForeignKey('images.id'),
                         primary_key=True)
    data = sa.Column(sa.LargeBinary().with_variant(mysql.LONGBLOB(),
                                                   'mysql'),
                     nullable=False)


class Network(BASE, _Base):
    __tablename__ = 'networks'
    __table_args__ = (
        sa.Index('networks_project_id_idx', 'project_id'),
    )
    id = sa.Column(sa.String(36), primary_key=True)
    name = sa.Column(sa.String(255))
    # NULL for a network no project owns (shared ones).
    project_id = sa.Column(sa.String(255))
    shared = sa.Column(sa.Boolean, nullable=False, default=False,
                       server_default=sa.false())
    # Neutron's router:external: floating IPs are allocated from it (a
    # floating IP pool of the Compute API).
    external = sa.Column(sa.Boolean, nullable=False, default=False,
                         server_default=sa.false())


class Subnet(BASE, _Base):
    __tablename__ = 'subnets'
    __table_args__ = (
        sa.Index('subnets_network_id_idx', 'network_id'),
    )
    id = sa.Column(sa.String(36), primary_key=True)
    network_id = sa.Column(sa.String(36), sa.ForeignKey('networks.id'),
                           nullable=False)
    cidr = sa.Column(sa.String(64), nullable=False)
    gateway_ip = sa.Column(sa.String(64))
    ip_version = sa.Column(sa.Integer, nullable=False, default=4)


class Port(BASE, _Base):
    __tablename__ = 'ports'
    __table_args__ = (
        # Two allocations racing for one address: one of them fails here
        # and retries with the next free address.
        sa.UniqueConstraint('network_id', 'fixed_ip',
                            name='uniq_ports0network_id0fixed_ip'),
        sa.UniqueConstraint('mac_address', name='uniq_ports0mac_address'),
        sa.Index('ports_device_id_idx', 'device_id'),
    )
    id = sa.Column(sa.String(36), primary_key=True)
    network_id = sa.Column(sa.String(36), sa.ForeignKey('networks.id'),
                           nullable=False)
    subnet_id = sa.Column(sa.String(36), sa.ForeignKey('subnets.id'))
    project_id = sa.Column(sa.String(255))
    # The instance uuid the port is bound to ('' or NULL: unbound).
    device_id = sa.Column(sa.String(36))
    device_owner = sa.Column(sa.String(255))
    mac_address = sa.Column(sa.String(32), nullable=False)
    fixed_ip = sa.Column(sa.String(64))
    # 'DOWN' or 'ACTIVE'
    status = sa.Column(sa.String(16), nullable=False)
    binding_host = sa.Column(sa.String(255))
    # A port the user created and asked for: unbound, not deleted, when
    # its instance goes away.
    preserve_on_delete = sa.Column(sa.Boolean, nullable=False, default=False,
                                   server_default=sa.false())


class PortBinding(BASE, _Base):
    """A port's binding to one host (Neutron's binding-extended): a port
    has at most one ACTIVE binding (its host is the port's binding_host)
    and any number of INACTIVE ones (a move's destination, prepared
    before the guest gets there)."""
    __tablename__ = 'port_bindings'
    __table_args__ = (
        sa.Index('port_bindings_host_idx', 'host'),
    )
    port_id = sa.Column(sa.String(36), sa.ForeignKey('ports.id'),
                        primary_key=True)
    host = sa.Column(sa.String(255), primary_key=True)
    # 'ACTIVE' or 'INACTIVE'
    status = sa.Column(sa.String(16), nullable=False)
    vif_type = sa.Column(sa.String(64), nullable=False)
    vnic_type = sa.Column(sa.String(64), nullable=False)
    # JSON objects: what the binding's requester asked for (profile) and
    # what the host's plug needs (vif_details).
    profile = sa.Column(sa.Text)
    vif_details = sa.Column(sa.Text)


class Volume(BASE, _Base):
    __tablename__ = 'volumes'
    __table_args__ = (
        sa.Index('volumes_project_id_deleted_idx', 'project_id', 'deleted'),
    )
    id = sa.Column(sa.String(36), primary_key=True)
    name = sa.Column(sa.String(255))
    description = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))
    user_id = sa.Column(sa.String(255))
    # GiB
    size = sa.Column(sa.Integer, nullable=False)
    # creating, available, reserved, attaching, in-use, detaching,
    # deleting, error, deleted
    status = sa.Column(sa.String(30), nullable=False)
    bootable = sa.Column(sa.Boolean, nullable=False, default=False,
                         server_default=sa.false())
    # The image it was created from (its volume_image_metadata).
    image_id = sa.Column(sa.String(36))
    availability_zone = sa.Column(sa.String(255))
    deleted = sa.Column(sa.Boolean, nullable=False, default=False,
                        server_default=sa.false())
    # A JSON object of string keys and values (Cinder's metadata).
    properties = sa.Column(sa.Text)
    # The snapshot it was created from.
    snapshot_id = sa.Column(sa.String(36))


class VolumeAttachment(BASE, _Base):
    __tablename__ = 'volume_attachments'
    __table_args__ = (
        sa.Index('volume_attachments_volume_id_idx', 'volume_id'),
        sa.Index('volume_attachments_instance_uuid_idx', 'instance_uuid'),
    )
    id = sa.Column(sa.String(36), primary_key=True)
    volume_id = sa.Column(sa.String(36), sa.ForeignKey('volumes.id'),
                          nullable=False)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    # NULL until a connector is given (attachment_update).
    attached_host = sa.Column(sa.String(255))
    # reserved, attaching, attached
    attach_status = sa.Column(sa.String(30), nullable=False)
    # 'rw' or 'ro'
    attach_mode = sa.Column(sa.String(2), nullable=False)
    mountpoint = sa.Column(sa.String(255))
    # JSON: what a host needs to connect the volume.
    connection_info = sa.Column(sa.Text)
    # JSON: the connector the host gave.
    connector = sa.Column(sa.Text)


class VolumeSnapshot(BASE, _Base):
    """A point-in-time copy of a volume (Cinder's snapshots)."""
    __tablename__ = 'volume_snapshots'
    __table_args__ = (
        sa.Index('volume_snapshots_volume_id_idx', 'volume_id'),
    )
    id = sa.Column(sa.String(36), primary_key=True)
    volume_id = sa.Column(sa.String(36), sa.ForeignKey('volumes.id'),
                          nullable=False)
    name = sa.Column(sa.String(255))
    description = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))
    user_id = sa.Column(sa.String(255))
    # GiB, the volume's when it was taken
    size = sa.Column(sa.Integer, nullable=False)
    # creating, available, deleting, error, deleted
    status = sa.Column(sa.String(30), nullable=False)
    # The image the volume came from (what its volumes get as theirs).
    image_id = sa.Column(sa.String(36))
    deleted = sa.Column(sa.Boolean, nullable=False, default=False,
                        server_default=sa.false())


class SecurityGroup(BASE, _Base):
    """A project's security group (Neutron's securitygroups)."""
    __tablename__ = 'security_groups'
    __table_args__ = (
        sa.UniqueConstraint('default_of',
                            name='uniq_security_groups0default_of'),
        sa.Index('security_groups_project_id_idx', 'project_id'),
    )
    id = sa.Column(sa.String(36), primary_key=True)
    name = sa.Column(sa.String(255))
    description = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))
    # The project id for the project's 'default' group, NULL for the
    # others: two first uses racing make one default group.
    default_of = sa.Column(sa.String(255))


class SecurityGroupRule(BASE, _Base):
    __tablename__ = 'security_group_rules'
    __table_args__ = (
        sa.Index('security_group_rules_group_idx', 'security_group_id'),
    )
    id = sa.Column(sa.String(36), primary_key=True)
    security_group_id = sa.Column(sa.String(36),
                                  sa.ForeignKey('security_groups.id'),
                                  nullable=False)
    project_id = sa.Column(sa.String(255))
    # 'ingress' or 'egress'; 'IPv4' or 'IPv6'
    direction = sa.Column(sa.String(16), nullable=False)
    ethertype = sa.Column(sa.String(16), nullable=False)
    protocol = sa.Column(sa.String(40))
    port_range_min = sa.Column(sa.Integer)
    port_range_max = sa.Column(sa.Integer)
    remote_ip_prefix = sa.Column(sa.String(255))
    remote_group_id = sa.Column(sa.String(36))
    description = sa.Column(sa.String(255))


class PortSecurityGroup(BASE, _Base):
    """A security group applied to a port."""
    __tablename__ = 'port_security_groups'
    __table_args__ = (
        sa.Index('port_security_groups_group_idx', 'security_group_id'),
    )
    port_id = sa.Column(sa.String(36), sa.ForeignKey('ports.id'),
                        primary_key=True)
    security_group_id = sa.Column(sa.String(36),
                                  sa.ForeignKey('security_groups.id'),
                                  primary_key=True)


class FloatingIP(BASE, _Base):
    """An address of an external network a project holds, associated
    with (at most) one fixed IP of a port (Neutron's floatingips)."""
    __tablename__ = 'floating_ips'
    __table_args__ = (
        # Two allocations racing for one address: one of them fails here
        # and retries with the next free address.
        sa.UniqueConstraint('floating_network_id', 'floating_ip_address',
                            name='uniq_floating_ips0network_id0address'),
        # A fixed IP has at most one floating IP.
        sa.UniqueConstraint('port_id', 'fixed_ip_address',
                            name='uniq_floating_ips0port_id0fixed_ip_address'),
        sa.Index('floating_ips_project_id_idx', 'project_id'),
        sa.Index('floating_ips_address_idx', 'floating_ip_address'),
    )
    id = sa.Column(sa.String(36), primary_key=True)
    floating_network_id = sa.Column(sa.String(36),
                                    sa.ForeignKey('networks.id'),
                                    nullable=False)
    floating_ip_address = sa.Column(sa.String(64), nullable=False)
    project_id = sa.Column(sa.String(255))
    # The port (and its fixed IP) it is associated with; NULL: none.
    port_id = sa.Column(sa.String(36))
    fixed_ip_address = sa.Column(sa.String(64))
    # 'DOWN' (not associated) or 'ACTIVE'
    status = sa.Column(sa.String(16), nullable=False)
    description = sa.Column(sa.String(255))


class Share(BASE, _Base):
    """A shared file system (Manila's share, with its one export
    location)."""
    __tablename__ = 'shares'
    __table_args__ = (
        sa.Index('shares_project_id_deleted_idx', 'project_id', 'deleted'),
    )
    id = sa.Column(sa.String(36), primary_key=True)
    name = sa.Column(sa.String(255))
    description = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))
    user_id = sa.Column(sa.String(255))
    # GiB
    size = sa.Column(sa.Integer, nullable=False)
    # NFS, CEPHFS, ...
    share_proto = sa.Column(sa.String(255), nullable=False)
    # creating, available, deleting, error, deleted
    status = sa.Column(sa.String(30), nullable=False)
    export_location = sa.Column(sa.String(255))
    availability_zone = sa.Column(sa.String(255))
    deleted = sa.Column(sa.Boolean, nullable=False, default=False,
                        server_default=sa.false())


class ShareAccessRule(BASE, _Base):
    """Who may mount a share (Manila's share_access_map)."""
    __tablename__ = 'share_access_rules'
    __table_args__ = (
        sa.UniqueConstraint('share_id', 'access_type', 'access_to',
                            name='uniq_share_access_rules0share0to'),
        sa.Index('share_access_rules_access_to_idx', 'access_to'),
    )
    id = sa.Column(sa.String(36), primary_key=True)
    share_id = sa.Column(sa.String(36), sa.ForeignKey('shares.id'),
                         nullable=False)
    # ip, cert, user, cephx
    access_type = sa.Column(sa.String(255), nullable=False)
    access_to = sa.Column(sa.String(255), nullable=False)
    # 'rw' or 'ro'
    access_level = sa.Column(sa.String(2), nullable=False)
    # queued_to_apply, active, error
    state = sa.Column(sa.String(30), nullable=False)
