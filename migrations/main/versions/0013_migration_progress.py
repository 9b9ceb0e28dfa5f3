"""migrations: the progress of a live migration (memory and disk,
total / processed / remaining bytes), as its source's driver reports it
(GET /servers/{id}/migrations).

Revision ID: 0013_migration_progress
Revises: 0012_console_tls_port
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa

revision = '0013_migration_progress'
down_revision = '0012_console_tls_port'
branch_labels = None
depends_on = None

_COLUMNS = ('memory_total', 'memory_processed', 'memory_remaining',
            'disk_total', 'disk_processed', 'disk_remaining')


def upgrade():
    with op.batch_alter_table('migrations') as batch:
        for name in _COLUMNS:
            batch.add_column(sa.Column(name, sa.BigInteger))
