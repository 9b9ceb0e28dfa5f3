"""Console entry points. eventlet is monkey-patched once, here, first, and
the database drivers with it (nova_lite.green)."""
from nova_lite import green

green.monkey_patch()
