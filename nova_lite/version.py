"""The release of nova_lite that this code is.

Every command answers --version with it, and doc/upgrade.rst says how
to move from the previous release (tools/upgrade/PREVIOUS_RELEASE) to
this one.
"""
from importlib import metadata

PACKAGE = 'nova_lite'


def release_string():
    """The installed package's version, e.g. '0.2.0'."""
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        # Running from a tree that was never installed.
        return 'unknown'
