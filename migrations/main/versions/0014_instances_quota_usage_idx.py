"""instances: an index that holds all a quota count reads (the
project's live instances and the sums of their vcpus and memory_mb), so
that /limits and the quota-set reports count a cell from the index
alone instead of reading each of the project's rows. Its key fits
InnoDB's 3,072 bytes with utf8mb4 (a user's sums, which would need
user_id as well, do not fit beside it; they read the rows).

Revision ID: 0014_instances_quota_usage_idx
Revises: 0013_migration_progress
Create Date: 2026-11-29
"""
from alembic import op

revision = '0014_instances_quota_usage_idx'
down_revision = '0013_migration_progress'
branch_labels = None
depends_on = None


def upgrade():
    op.create_index('instances_quota_usage_idx', 'instances',
                    ['project_id', 'deleted', 'hidden', 'vm_state', 'vcpus',
                     'memory_mb'])
