"""Constants shared across layers: each is defined here and only here.

Plumbing: this module imports nothing from nova_lite, so every layer may
import it.
"""

# Service binaries as the Compute API names them (os-services "binary"),
# recorded in each cell's services table. The API's own record uses
# Nova's name for the compute API service, which os-services leaves out
# of its listing. The console scripts keep their nova-lite-* names.
API_BINARY = 'nova-osapi_compute'
CONDUCTOR_BINARY = 'nova-conductor'
SCHEDULER_BINARY = 'nova-scheduler'
COMPUTE_BINARY = 'nova-compute'
BINARIES = (API_BINARY, CONDUCTOR_BINARY, SCHEDULER_BINARY, COMPUTE_BINARY)
# What releases before service version 4 recorded instead; such rows are
# read under either name until the online migration
# migrate_service_binaries renames them.
LEGACY_BINARIES = {API_BINARY: 'nova-lite-api',
                   CONDUCTOR_BINARY: 'nova-lite-conductor',
                   SCHEDULER_BINARY: 'nova-lite-scheduler',
                   COMPUTE_BINARY: 'nova-lite-compute'}
_CURRENT_BINARIES = {old: new for new, old in LEGACY_BINARIES.items()}
# The binary that serves each RPC API (by its name in [upgrade_levels]).
SERVER_BINARIES = {'compute': COMPUTE_BINARY, 'conductor': CONDUCTOR_BINARY,
                   'scheduler': SCHEDULER_BINARY,
                   'placement': SCHEDULER_BINARY,
                   'compute_task': CONDUCTOR_BINARY}

# The cell that holds instances which could not be scheduled.
CELL0_UUID = '00000000-0000-0000-0000-000000000000'

# Largest value of a signed 32-bit INTEGER column (every backend), and so
# the upper bound of every integer a request may store in one.
DB_MAX_INT = 2 ** 31 - 1


def current_binary(binary):
    """The current name of binary (a legacy name maps to its successor;
    any other name is returned unchanged)."""
    return _CURRENT_BINARIES.get(binary, binary)


def binary_names(binary):
    """Every name a row of binary may be recorded under: the current name
    first, then its legacy name."""
    binary = current_binary(binary)
    legacy = LEGACY_BINARIES.get(binary)
    return (binary, legacy) if legacy else (binary,)
