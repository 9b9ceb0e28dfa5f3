"""Packaging glue: ship the top-level alembic trees as
nova_lite.migrations."""
import setuptools

migration_pkgs = ['nova_lite.migrations'] + [
    'nova_lite.migrations.' + p
    for p in setuptools.find_packages('migrations')]

setuptools.setup(
    packages=setuptools.find_packages(include=['nova_lite', 'nova_lite.*'])
    + migration_pkgs,
    package_dir={'nova_lite.migrations': 'migrations'},
    package_data={'nova_lite.migrations': ['*/script.py.mako',
                                           '*/alembic.ini'],
                  'nova_lite.api': ['api-paste.ini']},
)
