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
