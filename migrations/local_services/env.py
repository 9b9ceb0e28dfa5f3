"""Alembic environment: see nova_lite.db.migration.run_env."""
from alembic import context

from nova_lite.db import migration

migration.run_env(context)
