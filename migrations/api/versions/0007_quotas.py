"""Quotas, quota classes, per-user quotas and per-project quota locks in
the API database; the flavor's cores and ram on build requests, so a
quota check counts servers not yet in a cell (expand only).

Revision ID: 0007_quotas
Revises: 0006_key_pairs
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = '0007_quotas'
down_revision = '0006_key_pairs'
branch_labels = None
depends_on = None


def _times():
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime)]


def upgrade():
    op.create_table(
        'quotas', *_times(),
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('project_id', sa.String(255)),
        sa.Column('resource', sa.String(255), nullable=False),
        sa.Column('hard_limit', sa.Integer),
        sa.UniqueConstraint('project_id', 'resource',
                            name='uniq_quotas0project_id0resource'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'project_user_quotas', *_times(),
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('user_id', sa.String(255), nullable=False),
        sa.Column('resource', sa.String(255), nullable=False),
        sa.Column('hard_limit', sa.Integer),
        sa.UniqueConstraint(
            'user_id', 'project_id', 'resource',
            name='uniq_project_user_quotas0user_id0project_id0resource'),
        sa.Index('project_user_quotas_project_id_idx', 'project_id'),
        sa.Index('project_user_quotas_user_id_idx', 'user_id'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'quota_classes', *_times(),
        sa.Column('id', sa.Integer, primary_key=True, nullable=False),
        sa.Column('class_name', sa.String(255)),
        sa.Column('resource', sa.String(255)),
        sa.Column('hard_limit', sa.Integer),
        sa.Index('quota_classes_class_name_idx', 'class_name'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    op.create_table(
        'quota_locks',
        sa.Column('project_id', sa.String(255), primary_key=True,
                  nullable=False),
        sa.Column('generation', sa.Integer, nullable=False,
                  server_default='0'),
        mysql_engine='InnoDB', mysql_charset='utf8')
    with op.batch_alter_table('build_requests') as batch:
        batch.add_column(sa.Column('vcpus', sa.Integer))
        batch.add_column(sa.Column('memory_mb', sa.Integer))
