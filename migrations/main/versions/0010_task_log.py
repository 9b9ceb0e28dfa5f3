"""task_log: what each compute's instance usage audit did per audit
period (GET /os-instance_usage_audit_log reads it).

Revision ID: 0010_task_log
Revises: 0009_console_auth_tokens
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = '0010_task_log'
down_revision = '0009_console_auth_tokens'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'task_log',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('task_name', sa.String(255), nullable=False),
        sa.Column('state', sa.String(255), nullable=False),
        sa.Column('host', sa.String(255), nullable=False),
        sa.Column('period_beginning', sa.DateTime, nullable=False),
        sa.Column('period_ending', sa.DateTime, nullable=False),
        sa.Column('message', sa.String(255), nullable=False),
        sa.Column('task_items', sa.Integer, nullable=True),
        sa.Column('errors', sa.Integer, nullable=True),
        sa.UniqueConstraint(
            'task_name', 'host', 'period_beginning', 'period_ending',
            name='uniq_task_log0task_name0host0period_beginning0'
                 'period_ending'),
        sa.Index('task_log_period_beginning_idx', 'period_beginning'),
        mysql_engine='InnoDB', mysql_charset='utf8')
