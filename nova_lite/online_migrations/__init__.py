"""Online data migrations: data that moves while the cloud runs, above the
objects and databases it moves between (nothing in objects/ or db/ imports
this package).

registry holds the one list, runner runs it for nova-lite-manage; importing
this package registers every migration, in run order.
"""
# Registration order is run order.
from nova_lite.online_migrations import flavors  # noqa: F401
from nova_lite.online_migrations import compute_inventory  # noqa: F401,H306
from nova_lite.online_migrations import service_binaries  # noqa: F401,H306
