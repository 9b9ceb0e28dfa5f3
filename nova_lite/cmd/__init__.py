"""Console entry points. eventlet is monkey-patched once, here, first."""
import warnings

# eventlet announces its own deprecation on import: noise for an operator.
warnings.filterwarnings('ignore', message=r'(?s).*eventlet')

import eventlet  # noqa: E402

eventlet.monkey_patch()
