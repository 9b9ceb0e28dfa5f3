"""Constants shared across layers: each is defined here and only here.

Plumbing: this module imports nothing from nova_lite, so every layer may
import it.
"""

# Service binaries as recorded in each cell's services table.
API_BINARY = 'nova-lite-api'
CONDUCTOR_BINARY = 'nova-lite-conductor'
SCHEDULER_BINARY = 'nova-lite-scheduler'
COMPUTE_BINARY = 'nova-lite-compute'
BINARIES = (API_BINARY, CONDUCTOR_BINARY, SCHEDULER_BINARY, COMPUTE_BINARY)
# The binary that serves each RPC API (by its name in [upgrade_levels]).
SERVER_BINARIES = {'compute': COMPUTE_BINARY, 'conductor': CONDUCTOR_BINARY,
                   'scheduler': SCHEDULER_BINARY,
                   'placement': SCHEDULER_BINARY}

# The cell that holds instances which could not be scheduled.
CELL0_UUID = '00000000-0000-0000-0000-000000000000'

# Largest value of a signed 32-bit INTEGER column (every backend), and so
# the upper bound of every integer a request may store in one.
DB_MAX_INT = 2 ** 31 - 1
