"""nova-lite-manage, as an operator uses it: output and exit codes."""
import json
import os
import sqlite3
import subprocess
import sys

import pytest

from nova_lite.cmd.manage import checks
from nova_lite.db import migration
from tests.functional.manage_helpers import Deployment

CELL0_UUID = '00000000-0000-0000-0000-000000000000'
UNKNOWN_UUID = '9b7d5c3e-1111-4222-8333-944455556666'
UNREACHABLE_MYSQL = 'mysql+pymysql://root:secret@127.0.0.1:1/nova_lite'


@pytest.fixture
def dep(tmp_path, capsys, conf):
    return Deployment(tmp_path, capsys)


def _cells(dep):
    return {c['name']: c for c in json.loads(
        dep.ok('cell_v2', 'list_cells', '--json', '--verbose'))}


def _hosts(dep, *args):
    return [(h['cell_name'], h['host']) for h in json.loads(
        dep.ok('cell_v2', 'list_hosts', '--json', *args))]


# --- parsing ----------------------------------------------------------------

def test_no_category_is_a_usage_error(dep):
    code, _, err = dep.manage()
    assert code == 2
    assert 'category' in err


def test_help_documents_exit_codes(dep):
    code, out, _ = dep.manage('cell_v2', 'delete_cell', '--help')
    assert code == 0
    assert 'Exit codes' in out and '--force' in out


def test_unknown_command_is_a_usage_error(dep):
    code, _, _ = dep.manage('cell_v2', 'frobnicate')
    assert code == 2


# --- api_db / db ------------------------------------------------------------

def test_api_db_sync_reports_head_version(dep):
    assert dep.ok('api_db', 'version').strip() == 'None'
    dep.ok('api_db', 'sync')
    assert dep.ok('api_db', 'version').strip() == migration.head('api')


def test_api_db_sync_to_unknown_revision_fails(dep):
    code, _, err = dep.manage('api_db', 'sync', 'no_such_revision')
    assert code == 1
    assert 'Failed to sync API database' in err


def test_api_db_commands_need_api_database(tmp_path, capsys, conf):
    dep = Deployment(tmp_path, capsys, api=False)
    for args in (('api_db', 'sync'), ('api_db', 'version'),
                 ('cell_v2', 'list_cells'), ('cell_v2', 'map_cell0')):
        code, _, err = dep.manage(*args)
        assert code == 1, args
        assert '[api_database] connection' in err


def test_db_sync_local_cell_syncs_only_database_connection(dep):
    dep.setup_cells(names=('cell2',))
    assert dep.ok('db', 'version').strip() == migration.head('main')
    dep.ok('db', 'sync', '--local_cell')
    # cell1 is [database] connection; cell2 and cell0 are from the mappings.
    os.remove(os.path.join(dep.path, 'cell2.sqlite'))
    dep.ok('db', 'sync', '--local_cell')
    assert not os.path.exists(os.path.join(dep.path, 'cell2.sqlite'))


def test_db_sync_syncs_every_mapped_cell_and_cell0(dep):
    dep.setup_cells()
    for name in ('cell1', 'cell2', 'cell1_cell0'):
        assert migration.db_version('main', dep.url(name)) == \
            migration.head('main'), name


def test_db_sync_without_database_connection(tmp_path, capsys, conf):
    dep = Deployment(tmp_path, capsys, database=False)
    code, _, err = dep.manage('db', 'sync', '--local_cell')
    assert code == 1
    assert '[database] connection' in err
    code, _, _ = dep.manage('db', 'version')
    assert code == 1
    # Without --local_cell the mapped cells are still synced.
    dep.ok('api_db', 'sync')
    dep.ok('cell_v2', 'map_cell0', '--database_connection',
           dep.url('cell0'))
    dep.ok('db', 'sync')
    assert migration.db_version('main', dep.url('cell0')) == \
        migration.head('main')


def test_db_sync_reports_an_unreachable_cell_and_syncs_the_rest(dep):
    uuids = dep.setup_cells()
    dep.sql('api', 'UPDATE cell_mappings SET database_connection = ? '
            'WHERE uuid = ?', 'sqlite:////nonexistent/dir/x.sqlite',
            uuids['cell2'])
    os.remove(os.path.join(dep.path, 'cell1_cell0.sqlite'))
    code, _, err = dep.manage('db', 'sync')
    assert code == 1
    assert 'cell2' in err
    assert migration.db_version('main', dep.url('cell1_cell0')) == \
        migration.head('main')


# --- local_services ---------------------------------------------------------

def test_local_services_sync_then_defaults_ship_images_and_network(dep):
    assert dep.ok('local_services', 'version').strip() == 'None'
    dep.ok('local_services', 'sync')
    assert dep.ok('local_services', 'version').strip() == migration.head(
        'local_services')
    dep.ok('local_services', 'create_defaults')
    dep.ok('local_services', 'create_defaults')   # idempotent
    conn = sqlite3.connect(os.path.join(dep.path, 'local_services.sqlite'))
    try:
        images = conn.execute('SELECT id, status, visibility FROM images '
                              'ORDER BY name').fetchall()
        nets = conn.execute('SELECT n.name, n.shared, n.external, s.cidr '
                            'FROM networks n JOIN subnets s ON '
                            's.network_id = n.id ORDER BY n.name'
                            ).fetchall()
    finally:
        conn.close()
    assert ('155d900f-4e14-4e4c-a73d-069cbf4541e6', 'active',
            'public') in images
    assert len(images) == 3
    # The shared network and the external one (the floating IP pool).
    assert nets == [('private', 1, 0, '10.0.0.0/24'),
                    ('public', 0, 1, '172.24.4.0/24')]


def test_local_services_commands_need_their_connection(tmp_path, capsys,
                                                       conf):
    dep = Deployment(tmp_path, capsys, local_services=False)
    for command in ('sync', 'version', 'create_defaults'):
        code, _, err = dep.manage('local_services', command)
        assert code == 1, command
        assert '[local_services] connection' in err


# --- map_cell0 --------------------------------------------------------------

def test_map_cell0_derives_database_name_and_is_idempotent(dep):
    dep.ok('api_db', 'sync')
    dep.ok('cell_v2', 'map_cell0')
    out = dep.ok('cell_v2', 'map_cell0')
    assert 'already' in out
    cell0 = _cells(dep)['cell0']
    assert cell0['uuid'] == CELL0_UUID
    assert cell0['database_connection'] == dep.url('cell1_cell0')
    assert cell0['transport_url'] == 'none:///'


def test_map_cell0_with_explicit_database(dep):
    dep.ok('api_db', 'sync')
    dep.ok('cell_v2', 'map_cell0', '--database_connection',
           dep.url('zero'))
    assert _cells(dep)['cell0']['database_connection'] == dep.url('zero')


@pytest.mark.parametrize('url,expected', [
    ('mysql+pymysql://nova:pw@db/nova_lite?charset=utf8',
     'mysql+pymysql://nova:pw@db/nova_lite_cell0?charset=utf8'),
    ('postgresql+psycopg2://postgres@127.0.0.1/nl',
     'postgresql+psycopg2://postgres@127.0.0.1/nl_cell0'),
    ('sqlite:////var/lib/nl/main.sqlite',
     'sqlite:////var/lib/nl/main_cell0.sqlite'),
    ('sqlite:////var/lib/nl/main.db', 'sqlite:////var/lib/nl/main_cell0.db'),
    ('sqlite:////var/lib/nl/main', 'sqlite:////var/lib/nl/main_cell0'),
])
def test_cell0_database_url_follows_nova_naming(url, expected):
    assert checks.cell0_database_url(url) == expected


def test_map_cell0_refuses_in_memory_database(tmp_path, capsys, conf):
    dep = Deployment(tmp_path, capsys)
    dep.db_url = 'sqlite://'
    dep.write_config(transport_url='inproc:///')
    dep.ok('api_db', 'sync')
    code, _, err = dep.manage('cell_v2', 'map_cell0')
    assert code == 1
    assert '--database_connection' in err


# --- create_cell ------------------------------------------------------------

def test_create_cell_prints_uuid_and_lists_it(dep):
    uuids = dep.setup_cells()
    cells = _cells(dep)
    assert sorted(cells) == ['cell0', 'cell1', 'cell2']
    assert cells['cell2']['uuid'] == uuids['cell2']
    assert cells['cell2']['transport_url'] == 'inproc:///cell2'
    assert cells['cell2']['disabled'] is False


def test_create_cell_defaults_to_configured_urls(dep):
    dep.ok('api_db', 'sync')
    dep.ok('cell_v2', 'create_cell', '--name', 'cell1', '--disabled')
    cell = _cells(dep)['cell1']
    assert cell['transport_url'] == 'inproc:///cell1'
    assert cell['database_connection'] == dep.db_url
    assert cell['disabled'] is True


def test_create_cell_duplicate_name_returns_2(dep):
    dep.setup_cells()
    code, _, err = dep.manage('cell_v2', 'create_cell', '--name', 'cell2',
                              '--database_connection', dep.url('other'))
    assert code == 2
    assert 'cell2' in err and 'exists' in err


def test_create_cell_same_urls_as_existing_cell_returns_2(dep):
    dep.setup_cells()
    code, _, err = dep.manage('cell_v2', 'create_cell', '--name', 'again',
                              '--transport-url', 'inproc:///cell2',
                              '--database_connection', dep.url('cell2'))
    assert code == 2
    assert 'already uses' in err


def test_create_cell_without_transport_url_returns_1(tmp_path, capsys, conf):
    dep = Deployment(tmp_path, capsys, transport_url=None)
    dep.ok('api_db', 'sync')
    code, _, err = dep.manage('cell_v2', 'create_cell', '--name', 'c')
    assert code == 1
    assert 'transport' in err


def test_create_cell_without_database_returns_1(tmp_path, capsys, conf):
    dep = Deployment(tmp_path, capsys, database=False)
    dep.ok('api_db', 'sync')
    code, _, err = dep.manage('cell_v2', 'create_cell', '--name', 'c')
    assert code == 1
    assert '--database_connection' in err


@pytest.mark.parametrize('url,reason', [
    (UNREACHABLE_MYSQL, 'Cannot connect'),
    ('sqlite:////nonexistent/dir/cell.sqlite', 'does not exist'),
    ('not a url', 'invalid database URL'),
    ('nosuchdialect://host/db', 'Cannot connect'),
])
def test_create_cell_unreachable_database_returns_3(dep, url, reason):
    dep.ok('api_db', 'sync')
    code, _, err = dep.manage('cell_v2', 'create_cell', '--name', 'c',
                              '--database_connection', url)
    assert code == 3
    assert reason in err
    assert 'secret' not in err
    assert _cells(dep) == {}


def test_create_cell_invalid_transport_url_returns_3(dep):
    dep.ok('api_db', 'sync')
    code, _, err = dep.manage('cell_v2', 'create_cell', '--name', 'c',
                              '--transport-url', 'rabbit://u:p@h:notaport/')
    assert code == 3
    assert 'transport URL' in err


# --- list_cells -------------------------------------------------------------

def test_list_cells_masks_passwords_unless_verbose(dep):
    dep.ok('api_db', 'sync')
    dep.ok('cell_v2', 'create_cell', '--name', 'c',
           '--transport-url', 'rabbit://nova:mqpass@mq1:5672,'
           'nova:mqpass@mq2:5672/cell1')
    dep.sql('api', "UPDATE cell_mappings SET database_connection = "
            "'mysql+pymysql://nova:dbpass@db/cell1'")
    table = dep.ok('cell_v2', 'list_cells')
    assert 'mqpass' not in table and 'dbpass' not in table
    assert 'rabbit://nova:****@mq1:5672,nova:****@mq2:5672/cell1' in table
    assert 'mysql+pymysql://nova:****@db/cell1' in table
    assert '| Name' in table and 'Database Connection' in table
    verbose = dep.ok('cell_v2', 'list_cells', '--verbose')
    assert 'mqpass' in verbose and 'dbpass' in verbose


# --- update_cell ------------------------------------------------------------

def test_update_cell_changes_only_given_fields(dep):
    uuids = dep.setup_cells()
    dep.ok('cell_v2', 'update_cell', '--cell_uuid', uuids['cell2'],
           '--name', 'renamed', '--transport-url', 'inproc:///new')
    cell = _cells(dep)['renamed']
    assert cell['transport_url'] == 'inproc:///new'
    assert cell['database_connection'] == dep.url('cell2')
    dep.ok('cell_v2', 'update_cell', '--cell_uuid', uuids['cell2'],
           '--disable')
    assert _cells(dep)['renamed']['disabled'] is True
    dep.ok('cell_v2', 'update_cell', '--cell_uuid', uuids['cell2'],
           '--enable')
    assert _cells(dep)['renamed']['disabled'] is False


def test_update_cell_bad_input_exit_codes(dep):
    uuids = dep.setup_cells()
    cases = [
        (('--cell_uuid', UNKNOWN_UUID, '--name', 'x'), 1),
        (('--cell_uuid', uuids['cell2'], '--name', 'cell1'), 2),
        (('--cell_uuid', uuids['cell2'], '--database_connection',
          UNREACHABLE_MYSQL), 2),
        (('--cell_uuid', CELL0_UUID, '--disable'), 3),
        (('--cell_uuid', uuids['cell2'], '--disable', '--enable'), 4),
    ]
    for args, expected in cases:
        code, _, err = dep.manage('cell_v2', 'update_cell', *args)
        assert code == expected, (args, err)
        assert err
    cell2 = _cells(dep)['cell2']
    assert cell2['database_connection'] == dep.url('cell2')
    assert cell2['disabled'] is False


def test_update_cell_requires_cell_uuid(dep):
    code, _, err = dep.manage('cell_v2', 'update_cell', '--name', 'x')
    assert code == 2
    assert '--cell_uuid' in err


# --- delete_cell ------------------------------------------------------------

def test_delete_empty_cell(dep):
    uuids = dep.setup_cells()
    dep.ok('cell_v2', 'delete_cell', '--cell_uuid', uuids['cell2'])
    assert sorted(_cells(dep)) == ['cell0', 'cell1']


def test_delete_unknown_cell_returns_1(dep):
    dep.setup_cells()
    code, _, err = dep.manage('cell_v2', 'delete_cell', '--cell_uuid',
                              UNKNOWN_UUID)
    assert code == 1
    assert 'not found' in err


def test_delete_cell_with_hosts_returns_2_unless_forced(dep):
    uuids = dep.setup_cells()
    dep.add_compute('cell2', 'c2-host1')
    dep.ok('cell_v2', 'discover_hosts')
    code, _, err = dep.manage('cell_v2', 'delete_cell', '--cell_uuid',
                              uuids['cell2'])
    assert code == 2
    assert 'c2-host1' in err and '--force' in err
    assert 'cell2' in _cells(dep)

    dep.ok('cell_v2', 'delete_cell', '--cell_uuid', uuids['cell2'],
           '--force')
    assert 'cell2' not in _cells(dep)
    assert _hosts(dep) == []
    # The compute's service record is soft-deleted, so it is not rediscovered
    # if the same database is mapped again.
    assert dep.sql('cell2', 'SELECT host, deleted != 0 FROM services') == \
        [('c2-host1', 1)]


def test_delete_cell_with_instances_returns_3_even_forced(dep):
    uuids = dep.setup_cells()
    dep.add_compute('cell2', 'c2-host1')
    dep.ok('cell_v2', 'discover_hosts')
    dep.sql('api', 'INSERT INTO instance_mappings (instance_uuid, cell_id, '
            'project_id) SELECT ?, id, ? FROM cell_mappings WHERE uuid = ?',
            UNKNOWN_UUID, 'p1', uuids['cell2'])
    for force in ((), ('--force',)):
        code, _, err = dep.manage('cell_v2', 'delete_cell', '--cell_uuid',
                                  uuids['cell2'], *force)
        assert code == 3
        assert 'instances' in err
    assert 'cell2' in _cells(dep)
    assert _hosts(dep) == [('cell2', 'c2-host1')]


# --- discover_hosts / list_hosts --------------------------------------------

def test_discover_hosts_maps_computes_of_every_cell_once(dep):
    dep.setup_cells()
    dep.add_compute('cell1', 'c1-host1')
    dep.add_compute('cell1', 'c1-host1', binary='nova-conductor')
    dep.add_compute('cell2', 'c2-host1')
    dep.add_compute('cell2', 'c2-host2')
    out = dep.ok('cell_v2', 'discover_hosts', '--verbose')
    assert 'Mapped 3 new hosts' in out
    expected = [('cell1', 'c1-host1'), ('cell2', 'c2-host1'),
                ('cell2', 'c2-host2')]
    assert _hosts(dep) == expected
    out = dep.ok('cell_v2', 'discover_hosts', '--verbose')
    assert 'Mapped 0 new hosts' in out
    assert _hosts(dep) == expected


def test_discover_hosts_in_one_cell(dep):
    uuids = dep.setup_cells()
    dep.add_compute('cell1', 'c1-host1')
    dep.add_compute('cell2', 'c2-host1')
    dep.ok('cell_v2', 'discover_hosts', '--cell_uuid', uuids['cell2'])
    assert _hosts(dep) == [('cell2', 'c2-host1')]
    code, _, _ = dep.manage('cell_v2', 'discover_hosts', '--cell_uuid',
                            UNKNOWN_UUID)
    assert code == 1


def test_discover_hosts_reports_host_mapped_elsewhere(dep):
    dep.setup_cells()
    dep.add_compute('cell1', 'same-host')
    dep.ok('cell_v2', 'discover_hosts')
    dep.add_compute('cell2', 'same-host')
    dep.add_compute('cell2', 'c2-host1')
    code, _, err = dep.manage('cell_v2', 'discover_hosts')
    assert code == 2
    assert 'same-host' in err and 'already mapped' in err
    assert _hosts(dep) == [('cell1', 'same-host'), ('cell2', 'c2-host1')]


def test_discover_hosts_skips_unreadable_cell_and_maps_the_rest(dep):
    uuids = dep.setup_cells()
    dep.add_compute('cell1', 'c1-host1')
    dep.sql('api', 'UPDATE cell_mappings SET database_connection = ? '
            'WHERE uuid = ?', 'sqlite:////nonexistent/dir/x.sqlite',
            uuids['cell2'])
    code, _, err = dep.manage('cell_v2', 'discover_hosts')
    assert code == 2
    assert 'cell2' in err
    assert _hosts(dep) == [('cell1', 'c1-host1')]


def test_list_hosts_filters_by_cell(dep):
    uuids = dep.setup_cells()
    dep.add_compute('cell1', 'c1-host1')
    dep.add_compute('cell2', 'c2-host1')
    dep.ok('cell_v2', 'discover_hosts')
    table = dep.ok('cell_v2', 'list_hosts')
    assert 'Cell Name' in table and 'c1-host1' in table \
        and 'c2-host1' in table
    assert _hosts(dep, '--cell_uuid', uuids['cell1']) == \
        [('cell1', 'c1-host1')]
    code, _, err = dep.manage('cell_v2', 'list_hosts', '--cell_uuid',
                              UNKNOWN_UUID)
    assert code == 1
    assert 'not found' in err


# --- online data migrations -------------------------------------------------

def test_online_data_migrations_rejects_non_positive_max_count(dep):
    for command in ('online_data_migrations', 'migrate_flavors'):
        code, _, err = dep.manage('db', command, '--max-count', '0')
        assert code == 127
        assert '--max-count' in err


def test_online_data_migrations_on_fresh_deployment_has_nothing_to_do(dep):
    dep.setup_cells()
    code, out, err = dep.manage('db', 'online_data_migrations')
    assert code == 0, err
    assert 'Migration' in out and 'Total Found' in out
    code, out, err = dep.manage('db', 'migrate_flavors', '--json')
    assert code == 0, err
    summary = json.loads(out)
    assert [m['name'] for m in summary['migrations']] == ['migrate_flavors']
    assert summary['migrations'][0]['found'] == 0


# --- the console script -----------------------------------------------------

def _console_script(name):
    path = os.path.join(os.path.dirname(sys.executable), name)
    if not os.path.exists(path):
        pytest.skip('%s is not installed next to %s' % (name,
                                                         sys.executable))
    return path


def test_console_script_creates_and_lists_cells(dep):
    script = _console_script('nova-lite-manage')

    def run(*args):
        return subprocess.run([script, '--config-file', dep.config_file]
                              + list(args), capture_output=True, text=True,
                              timeout=120, cwd=dep.path)

    assert run('api_db', 'sync').returncode == 0
    created = run('cell_v2', 'create_cell', '--name', 'cell1')
    assert created.returncode == 0, created.stderr
    duplicate = run('cell_v2', 'create_cell', '--name', 'cell1')
    assert duplicate.returncode == 2
    listed = run('cell_v2', 'list_cells')
    assert listed.returncode == 0
    assert created.stdout.strip() in listed.stdout


# --- finding the configuration without --config-file -------------------------

@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    """A working directory and home with no configuration, and no
    OS_NOVA_LITE_CONFIG_* in the environment."""
    work = tmp_path / 'work'
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv('HOME', str(tmp_path / 'home'))
    monkeypatch.delenv('OS_NOVA_LITE_CONFIG_FILES', raising=False)
    monkeypatch.delenv('OS_NOVA_LITE_CONFIG_DIR', raising=False)
    return work


def _deployment_in(directory, capsys):
    directory.mkdir()
    dep = Deployment(directory, capsys)
    dep.setup_cells(names=('cell1',))
    return dep


def _bare(capsys, main, *args):
    """(code, stdout, stderr) of a CLI called with no --config-file."""
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_without_any_configuration_manage_says_where_it_looked(
        elsewhere, capsys, conf):
    from nova_lite.cmd import manage
    code, _, err = _bare(capsys, manage.main, 'cell_v2', 'list_cells')
    assert code == 1
    assert 'No configuration file was found' in err
    assert os.path.join(str(elsewhere), 'nova-lite-state',
                        'nova_lite.conf') in err
    assert '/etc/nova_lite/' in err and 'OS_NOVA_LITE_CONFIG_FILES' in err
    assert '--config-file FILE' in err


def test_without_any_configuration_status_says_where_it_looked(
        elsewhere, capsys, conf):
    from nova_lite.cmd import status
    code, out, err = _bare(capsys, status.main, 'upgrade', 'check')
    assert code == 2, out
    assert '[api_database] connection is not set' in out
    assert 'No configuration file was found' in err
    assert 'nova-lite-state' in err and '--config-file FILE' in err


def test_the_all_in_one_state_directory_config_is_found(
        elsewhere, capsys, conf):
    from nova_lite.cmd import manage
    from nova_lite.cmd import status
    # What an all-in-one started in this directory leaves: its state
    # directory with the config it writes.
    _deployment_in(elsewhere / 'nova-lite-state', capsys)
    code, out, err = _bare(capsys, manage.main, 'cell_v2', 'list_cells',
                           '--json')
    assert code == 0, err
    assert sorted(c['name'] for c in json.loads(out)) == ['cell0', 'cell1']
    code, out, err = _bare(capsys, status.main, 'upgrade', 'check',
                           '--json')
    assert code in (0, 1), (out, err)
    assert 'No configuration file was found' not in err


def test_os_nova_lite_config_files_wins_over_the_state_directory(
        elsewhere, capsys, conf, monkeypatch):
    from nova_lite.cmd import manage
    _deployment_in(elsewhere / 'nova-lite-state', capsys)
    (elsewhere / 'other').mkdir()
    other = Deployment(elsewhere / 'other', capsys)
    other.setup_cells(names=('cell1', 'cell2'))
    monkeypatch.setenv('OS_NOVA_LITE_CONFIG_DIR', other.path)
    monkeypatch.setenv('OS_NOVA_LITE_CONFIG_FILES', 'nova_lite.conf')
    code, out, err = _bare(capsys, manage.main, 'cell_v2', 'list_cells',
                           '--json')
    assert code == 0, err
    assert sorted(c['name'] for c in json.loads(out)) == [
        'cell0', 'cell1', 'cell2']
    monkeypatch.setenv('OS_NOVA_LITE_CONFIG_FILES', 'missing.conf')
    code, _, err = _bare(capsys, manage.main, 'cell_v2', 'list_cells')
    assert code == 1
    assert 'missing.conf' in err
