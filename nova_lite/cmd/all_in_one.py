"""nova-lite-all-in-one: the whole control plane in one process."""
import argparse
import sys
import time

from nova_lite import cmd  # noqa: F401  (eventlet first)
from nova_lite import allinone
from nova_lite import config
from nova_lite.conf import CONF
from nova_lite import service


def _parse(argv):
    parser = argparse.ArgumentParser(
        prog='nova-lite-all-in-one',
        description='Run API, conductors, scheduler and simulated computes '
                    'in one process on SQLite (state kept in --state-dir).')
    parser.add_argument('--state-dir', default='./nova-lite-state')
    parser.add_argument('--cells', type=int, default=2)
    parser.add_argument('--computes-per-cell', type=int, default=2)
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--port', type=int, default=8774)
    parser.add_argument('--debug', action='store_true')
    return parser.parse_args(argv)


def main(argv=None):
    started = time.monotonic()
    args = _parse(sys.argv[1:] if argv is None else argv)
    config.parse_args(['nova-lite-all-in-one'] +
                      (['--debug'] if args.debug else []),
                      default_config_files=[])
    plane = allinone.Plane(args.state_dir, cells=args.cells,
                           computes_per_cell=args.computes_per_cell,
                           host=args.host, port=args.port).build()
    conf_file = '%s/nova_lite.conf' % CONF.state_path

    def announce():
        print('nova_lite all-in-one is up in %.1fs: %s/v2.1\n'
              '  curl -H "X-Auth-Token: admin:admin" %s/v2.1/os-services\n'
              '  export OS_AUTH_TYPE=admin_token OS_TOKEN=admin:admin '
              'OS_ENDPOINT=%s/v2.1 OS_IDENTITY_API_VERSION=3 '
              'OS_IDENTITY_ENDPOINT_OVERRIDE=%s/identity\n'
              '  openstack compute service list\n'
              '  nova-lite-manage --config-file %s cell_v2 list_cells\n'
              'Stop with Ctrl-C.'
              % (time.monotonic() - started, plane.endpoint, plane.endpoint,
                 plane.endpoint, plane.endpoint, conf_file), flush=True)
    plane.on_started = announce
    launcher = service.serve([plane])
    launcher.wait()
    return 0
