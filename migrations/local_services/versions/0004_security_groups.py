"""Security groups of the embedded network service: groups, their rules
and which ports each group is applied to (Neutron's
securitygroups, securitygrouprules and securitygroupportbindings).

Expand only: new tables. A port made before this revision has no row
in port_security_groups; it shows (and is filtered as) a port in no
group until a group is applied to it.

Revision ID: 0004_security_groups
Revises: 0003_port_bindings
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = '0004_security_groups'
down_revision = '0003_port_bindings'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'security_groups',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.String(36), primary_key=True, nullable=False),
        sa.Column('name', sa.String(255)),
        sa.Column('description', sa.String(255)),
        sa.Column('project_id', sa.String(255)),
        # The project's 'default' group (one per project).
        sa.Column('default_of', sa.String(255)),
        sa.UniqueConstraint('default_of',
                            name='uniq_security_groups0default_of'),
        sa.Index('security_groups_project_id_idx', 'project_id'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'security_group_rules',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.String(36), primary_key=True, nullable=False),
        sa.Column('security_group_id', sa.String(36),
                  sa.ForeignKey('security_groups.id'), nullable=False),
        sa.Column('project_id', sa.String(255)),
        sa.Column('direction', sa.String(16), nullable=False),
        sa.Column('ethertype', sa.String(16), nullable=False),
        sa.Column('protocol', sa.String(40)),
        sa.Column('port_range_min', sa.Integer),
        sa.Column('port_range_max', sa.Integer),
        sa.Column('remote_ip_prefix', sa.String(255)),
        sa.Column('remote_group_id', sa.String(36)),
        sa.Column('description', sa.String(255)),
        sa.Index('security_group_rules_group_idx', 'security_group_id'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'port_security_groups',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('port_id', sa.String(36), sa.ForeignKey('ports.id'),
                  primary_key=True, nullable=False),
        sa.Column('security_group_id', sa.String(36),
                  sa.ForeignKey('security_groups.id'), primary_key=True,
                  nullable=False),
        sa.Index('port_security_groups_group_idx', 'security_group_id'),
        mysql_engine='InnoDB', mysql_charset='utf8')
