"""Test-wide setup: eventlet first, then config and database fixtures."""
import eventlet

eventlet.monkey_patch()

import atexit  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import warnings  # noqa: E402

warnings.filterwarnings('ignore', message='.*[Ee]ventlet.*')
warnings.filterwarnings('ignore', category=DeprecationWarning)

import pytest  # noqa: E402

from nova_lite.conf import CONF  # noqa: E402
from nova_lite import context as nova_context  # noqa: E402
from nova_lite.db.api import api as api_db  # noqa: E402
from nova_lite.db.local_services import api as local_services_db  # noqa: E402,E501
from nova_lite.db.main import api as main_db  # noqa: E402
from nova_lite.db import migration  # noqa: E402
from nova_lite.image import api as image_api  # noqa: E402
from nova_lite.network import api as network_api  # noqa: E402
from nova_lite import objects  # noqa: E402
from nova_lite import rpc  # noqa: E402

objects.register_all()
CONF([], project='nova_lite', default_config_files=[])


def reset_process_state():
    """Forget engines, transports and cell caches between tests."""
    api_db.reset()
    main_db.reset()
    local_services_db.reset()
    nova_context._CELL_CACHE.clear()
    rpc.cleanup()
    CONF.reset()


@pytest.fixture
def conf():
    """oslo.config CONF with overrides undone after the test."""
    from nova_lite.objects import service_version
    service_version.reset_min_version_cache()
    yield CONF
    CONF.reset()
    for group, name in list(_OVERRIDDEN):
        CONF.clear_override(name, group=group)
    _OVERRIDDEN.clear()
    service_version.reset_min_version_cache()
    # reset() leaves CONF unparsed; later tests (policy file lookup) need
    # it parsed.
    CONF([], project='nova_lite', default_config_files=[])


_OVERRIDDEN = set()


def set_override(name, value, group=None):
    CONF.set_override(name, value, group=group)
    _OVERRIDDEN.add((group, name))


_TEMPLATES = {}


def synced_sqlite(kind, path):
    """A freshly synced SQLite database of kind ('api', 'main',
    'local_services') at path.

    Alembic runs once per process and kind; later databases are copies of
    that first result (the schema is the same, and copying is ~50x faster
    than replaying every migration for each test).
    """
    template = _TEMPLATES.get(kind)
    if template is None:
        tdir = tempfile.mkdtemp(prefix='nova-lite-schema-')
        atexit.register(shutil.rmtree, tdir, True)
        template = os.path.join(tdir, '%s.sqlite' % kind)
        migration.db_sync(kind, 'sqlite:///%s' % template)
        _TEMPLATES[kind] = template
    shutil.copyfile(template, path)
    return 'sqlite:///%s' % path


class CellsEnv(object):
    """API DB + cell0 + cell1 + cell2 + local services on SQLite files,
    mapped and synced.

    [api_database], [database] (= cell1, the top-level cell database) and
    [local_services] (with the default images and network) point at them;
    .cells maps name -> CellMapping.
    """

    def __init__(self, path, n_cells=2):
        self.path = path
        self.api_url = synced_sqlite('api', '%s/api.sqlite' % path)
        self.cell_urls = {}
        for name in ['cell0'] + ['cell%d' % i for i in range(1, n_cells + 1)]:
            self.cell_urls[name] = synced_sqlite(
                'main', '%s/%s.sqlite' % (path, name))
        set_override('connection', self.api_url, group='api_database')
        set_override('connection', self.cell_urls['cell1'], group='database')
        self.local_services_url = synced_sqlite(
            'local_services', '%s/local_services.sqlite' % path)
        set_override('connection', self.local_services_url,
                     group='local_services')
        api_db.reset()
        main_db.reset()
        local_services_db.reset()
        nova_context._CELL_CACHE.clear()
        self.ctxt = nova_context.get_admin_context()
        image_api.API().ensure_default_images(self.ctxt)
        network_api.API().ensure_default_network(self.ctxt)
        self.cells = {}
        for name, url in self.cell_urls.items():
            kwargs = {}
            if name == 'cell0':
                kwargs['uuid'] = objects.CellMapping.CELL0_UUID
                transport = 'none:///'
            else:
                transport = 'inproc:///%s' % name
            cell = objects.CellMapping(self.ctxt, name=name,
                                       database_connection=url,
                                       transport_url=transport, **kwargs)
            cell.create()
            self.cells[name] = cell

    def cleanup(self):
        api_db.reset()
        main_db.reset()
        local_services_db.reset()
        nova_context._CELL_CACHE.clear()
        rpc.cleanup()


@pytest.fixture
def cells_env(tmp_path, conf):
    env = CellsEnv(str(tmp_path))
    yield env
    env.cleanup()
