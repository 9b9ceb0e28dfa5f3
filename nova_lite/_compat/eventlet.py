"""eventlet internals: the request line its HTTP protocol reads.

- ``eventlet.wsgi.HttpProtocol._read_request_line``: eventlet answers a
  request line of ``url_length_limit`` bytes or more with its own empty,
  non-JSON 414 right after reading it, before any WSGI application runs.
  RequestLineHook overrides this one method so that its subclass sees
  the line first (request_line_read) and may answer in its own format.
  Gone when eventlet lets a server answer its own refusals (a hook or an
  overridable ``send_error`` for the 414 it writes).

tests/unit/compat/test_eventlet.py is the canary.
"""
import eventlet.wsgi

INTERNALS = (
    'eventlet.wsgi.HttpProtocol._read_request_line',
)


class RequestLineHook(eventlet.wsgi.HttpProtocol):
    """eventlet's HTTP protocol, with request_line_read(line) called on
    each request line as read (before eventlet looks at it); what it
    returns is the line eventlet goes on with ('' closes the
    connection)."""

    def request_line_read(self, line):
        return line

    def _read_request_line(self):
        return self.request_line_read(super()._read_request_line())
