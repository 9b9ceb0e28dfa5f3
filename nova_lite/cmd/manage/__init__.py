"""nova-lite-manage: database schemas, cells and host mappings.

    nova-lite-manage [--config-file FILE] <category> <command> [options]

Categories: api_db, db (nova_lite.cmd.manage.db), cell_v2
(nova_lite.cmd.manage.cell_v2), limits (nova_lite.cmd.manage.limits),
local_services
(nova_lite.cmd.manage.local_services), placement
(nova_lite.cmd.manage.placement). Every command documents its exit
codes in its --help. Unexpected errors print a message and exit 255.

Without --config-file it reads OS_NOVA_LITE_CONFIG_FILES (';'-separated
names in OS_NOVA_LITE_CONFIG_DIR, default /etc/nova_lite), else the
first of oslo.config's usual places (~/.nova_lite/, ~/, /etc/nova_lite/,
/etc/), else ./nova-lite-state/nova_lite.conf (the all-in-one's, when run
beside it). With none, a command that needs a database exits 1 saying
where it looked and how to point at a file.
"""
import sys
import traceback

from oslo_config import cfg

from nova_lite.cmd import common
from nova_lite.cmd.manage import cell_v2
from nova_lite.cmd.manage import db
from nova_lite.cmd.manage import limits
from nova_lite.cmd.manage import local_services
from nova_lite.cmd.manage import placement
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.local_services import api as local_services_db
from nova_lite.db.main import api as main_db
from nova_lite import objects
from nova_lite.objects import service_version
from nova_lite import version

UNEXPECTED_ERROR = 255


CATEGORIES = {
    'api_db': db.ApiDbCommands,
    'db': db.DbCommands,
    'cell_v2': cell_v2.CellV2Commands,
    'limits': limits.LimitsCommands,
    'local_services': local_services.LocalServicesCommands,
    'placement': placement.PlacementCommands,
}

_category_opt = cfg.SubCommandOpt(
    'category', title='Command categories',
    help='Available categories',
    handler=common.make_parser_handler(CATEGORIES))


def _reset_process_state():
    # In-process callers (tests) may run several commands with different
    # configuration files; engines are cached per process.
    api_db.reset()
    main_db.reset()
    local_services_db.reset()
    nova_context.clear_cell_cache()
    # Minimum service versions are cached per process, per deployment.
    service_version.reset_min_version_cache()


def main(argv=None):
    """Parse argv (default: sys.argv[1:]), run the command, return its code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    common.prepare_cli(CONF, _category_opt)
    try:
        try:
            CONF(argv, project='nova_lite', prog='nova-lite-manage',
                 version=version.release_string(),
                 default_config_files=common.find_config_files(
                     argv, 'nova-lite-manage'))
        except SystemExit as exc:  # --help, or argparse rejected the input
            return exc.code if isinstance(exc.code, int) else 1
        except cfg.Error as exc:
            common.error(str(exc))
            return 1
        objects.register_all()
        _reset_process_state()
        try:
            return common.call_parsed_command(CONF, CATEGORIES) or 0
        except Exception as exc:
            common.error('An error has occurred: %s' % exc)
            traceback.print_exc()
            return UNEXPECTED_ERROR
    finally:
        _reset_process_state()
        common.release_cli(CONF)
