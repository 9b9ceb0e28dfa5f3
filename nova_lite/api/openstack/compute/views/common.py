"""Formatting shared by views."""


def isotime(value):
    """A datetime as the Compute API prints it (no zone, microseconds)."""
    if value is None:
        return None
    return value.replace(tzinfo=None).isoformat(timespec='microseconds')
