"""Console entry points. eventlet is monkey-patched once, here, first."""
import eventlet

eventlet.monkey_patch()
