"""Helpers (no tests): a deployment on SQLite, driven through the CLIs.

Tests call the CLIs' main(argv) in-process with --config-file, as an
operator would call the console scripts, and look at output and exit codes.
"""
import os
import sqlite3

from oslo_utils import uuidutils

from nova_lite.cmd import manage
from nova_lite.cmd import status
from nova_lite import context as nova_context
from nova_lite import objects


class Deployment(object):
    """A tmp dir with a config file; databases are created by the CLI."""

    def __init__(self, path, capsys, transport_url='inproc:///cell1',
                 api=True, database=True, local_services=True):
        self.path = str(path)
        self.capsys = capsys
        self.api_url = self.url('api')
        self.db_url = self.url('cell1')
        self.local_services_url = self.url('local_services')
        self.config_file = os.path.join(self.path, 'nova_lite.conf')
        self.write_config(transport_url=transport_url, api=api,
                          database=database, local_services=local_services)

    def url(self, name):
        return 'sqlite:///%s/%s.sqlite' % (self.path, name)

    def write_config(self, transport_url=None, api=True, database=True,
                     local_services=True):
        sections = []
        if transport_url:
            sections.append('[DEFAULT]\ntransport_url = %s\n' % transport_url)
        if api:
            sections.append('[api_database]\nconnection = %s\n'
                            % self.api_url)
        if database:
            sections.append('[database]\nconnection = %s\n' % self.db_url)
        if local_services:
            sections.append('[local_services]\nconnection = %s\n'
                            % self.local_services_url)
        with open(self.config_file, 'w') as f:
            f.write('\n'.join(sections))

    def _run(self, main, args):
        self.capsys.readouterr()
        code = main(['--config-file', self.config_file] + list(args))
        out, err = self.capsys.readouterr()
        return code, out, err

    def manage(self, *args):
        """(exit code, stdout, stderr) of nova-lite-manage args."""
        return self._run(manage.main, args)

    def status(self, *args):
        return self._run(status.main, args or ('upgrade', 'check'))

    def ok(self, *args):
        code, out, err = self.manage(*args)
        assert code == 0, (args, code, out, err)
        return out

    # --- a deployment with cells, made through the CLI -------------------

    def setup_cells(self, names=('cell1', 'cell2')):
        """api_db sync, map_cell0, create_cell per name, db sync.

        Returns {name: uuid}; cell1's database is [database] connection.
        """
        self.ok('api_db', 'sync')
        self.ok('cell_v2', 'map_cell0')
        uuids = {}
        for name in names:
            uuids[name] = self.ok(
                'cell_v2', 'create_cell', '--name', name,
                '--transport-url', 'inproc:///%s' % name,
                '--database_connection', self.url(name)).strip()
        self.ok('db', 'sync')
        return uuids

    def add_compute(self, cell_name, host, binary='nova-compute'):
        """Record a service in a cell database, as a compute would."""
        cell = objects.CellMapping(uuid=uuidutils.generate_uuid(),
                                   name=cell_name,
                                   database_connection=self.url(cell_name),
                                   transport_url='none:///')
        with nova_context.target_cell(nova_context.get_admin_context(),
                                      cell) as cctxt:
            objects.Service(cctxt, host=host, binary=binary,
                            topic=binary.rsplit('-', 1)[-1]).create()
        nova_context._CELL_CACHE.clear()

    def sql(self, db_name, query, *params):
        conn = sqlite3.connect(os.path.join(self.path, db_name + '.sqlite'))
        try:
            rows = conn.execute(query, params).fetchall()
            conn.commit()
            return rows
        finally:
            conn.close()
