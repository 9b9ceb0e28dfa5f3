"""nova-lite-compute: no database; objects persist through the conductor."""
from nova_lite import cmd  # noqa: F401  (monkey-patches first)
from nova_lite import baserpc  # noqa: H306
from nova_lite.cmd import _run
from nova_lite.compute.service import manager
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context
from nova_lite.db.api import api as api_db
from nova_lite.db.main import api as main_db
from nova_lite.objects import base as obj_base


def _prepare():
    api_db.disable()
    main_db.disable()
    obj_base.NovaLiteObject.indirection_api = conductor_rpcapi.ConductorAPI()
    # Everything a compute persists goes through its conductor: wait for
    # one to consume before the first remotable call (a call published
    # before the conductor declared its queue would be lost).
    baserpc.BaseAPI(conductor_rpcapi.TOPIC).wait_until_ready(
        context.get_admin_context())


def main():
    return _run.run(constants.COMPUTE_BINARY, 'compute',
                    lambda: [manager.ComputeManager(CONF.host)], _prepare)
