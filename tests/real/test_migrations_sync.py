"""Models and alembic trees agree, on SQLite, MariaDB and PostgreSQL.

oslo.db's ModelsMigrationsSync runs every revision of a tree on an empty
database, reflects it, and diffs it against the models' metadata; any
difference (a column, type, nullability, index or constraint that only one
side has) fails the test with the list of differences.
"""
import os
import tempfile
import unittest

from oslo_db.sqlalchemy import test_migrations
import pytest
import sqlalchemy as sa

from nova_lite.db.api import models as api_models
from nova_lite.db.local_services import models as local_models
from nova_lite.db.main import models as main_models
from nova_lite.db import migration

METADATA = {'api': api_models.BASE.metadata,
            'main': main_models.BASE.metadata,
            'local_services': local_models.BASE.metadata}


class _ModelsMigrationsSync(test_migrations.ModelsMigrationsSync):
    """Subclasses set database ('api'/'main') and provide self.url."""

    database = None

    @pytest.fixture(autouse=True)
    def _empty_database(self, request):
        self.url = self.make_database(request)
        self.engine = sa.create_engine(self.url, poolclass=sa.pool.NullPool)
        yield
        self.engine.dispose()

    def make_database(self, request):
        raise NotImplementedError

    def get_engine(self):
        return self.engine

    def get_metadata(self):
        return METADATA[self.database]

    def db_sync(self, engine):
        migration.db_sync(self.database,
                          engine.url.render_as_string(hide_password=False))


class _SQLite(object):
    def make_database(self, request):
        path = tempfile.mkdtemp(prefix='nl-sync-')
        request.addfinalizer(lambda: _rmtree(path))
        return 'sqlite:///%s' % os.path.join(path, 'sync.sqlite')


class _MariaDB(object):
    def make_database(self, request):
        return request.getfixturevalue('mysql_url')


class _PostgreSQL(object):
    def make_database(self, request):
        return request.getfixturevalue('postgresql_url')


def _rmtree(path):
    import shutil
    shutil.rmtree(path, ignore_errors=True)


class TestApiModelsMigrationsSyncSQLite(
        _SQLite, _ModelsMigrationsSync, unittest.TestCase):
    database = 'api'


class TestMainModelsMigrationsSyncSQLite(
        _SQLite, _ModelsMigrationsSync, unittest.TestCase):
    database = 'main'


class TestLocalServicesModelsMigrationsSyncSQLite(
        _SQLite, _ModelsMigrationsSync, unittest.TestCase):
    database = 'local_services'


class TestApiModelsMigrationsSyncMariaDB(
        _MariaDB, _ModelsMigrationsSync, unittest.TestCase):
    database = 'api'


class TestMainModelsMigrationsSyncMariaDB(
        _MariaDB, _ModelsMigrationsSync, unittest.TestCase):
    database = 'main'


class TestLocalServicesModelsMigrationsSyncMariaDB(
        _MariaDB, _ModelsMigrationsSync, unittest.TestCase):
    database = 'local_services'


class TestApiModelsMigrationsSyncPostgreSQL(
        _PostgreSQL, _ModelsMigrationsSync, unittest.TestCase):
    database = 'api'


class TestMainModelsMigrationsSyncPostgreSQL(
        _PostgreSQL, _ModelsMigrationsSync, unittest.TestCase):
    database = 'main'


class TestLocalServicesModelsMigrationsSyncPostgreSQL(
        _PostgreSQL, _ModelsMigrationsSync, unittest.TestCase):
    database = 'local_services'
