"""Outages answer honestly: while a database a request needs is
unreachable the API answers 503 (serviceUnavailable, saying so), never
500, and serves again by itself once it is back; while the message
queue cannot take a delete, the API gives up after a bounded wait with
a 503 and the server is left as it was (no task state left behind)."""
import time

from nova_lite import objects
from tests.functional.api.test_servers_boot import ADMIN

# Nothing listens on port 1: every connection is refused at once.
DEAD_BROKER = 'rabbit://guest:guest@127.0.0.1:1/'


def _cell(running, name):
    return next(c for c in objects.CellMappingList.get_all(running.ctxt)
                if c.name == name)


class _Pointed(object):
    """Point a cell's mapping at another database or message queue for
    the with-block, then back (as an operator fixing a mapping)."""

    def __init__(self, running, cell, **values):
        self.cell = _cell(running, cell)
        self.values = values
        self.saved = {k: getattr(self.cell, k) for k in values}

    def __enter__(self):
        for key, value in self.values.items():
            setattr(self.cell, key, value)
        self.cell.save()

    def __exit__(self, *exc):
        for key, value in self.saved.items():
            setattr(self.cell, key, value)
        self.cell.save()


def _unavailable(resp, word):
    assert resp.status_code == 503, resp.text
    fault = resp.json()['serviceUnavailable']
    assert fault['code'] == 503
    assert word in fault['message']
    assert 'Traceback' not in resp.text


def test_cell_database_down_is_503_then_recovers(running, tmp_path):
    uuid = running.boot('cell1')
    gone = 'sqlite:///%s' % (tmp_path / 'missing-dir' / 'cell1.sqlite')
    with _Pointed(running, 'cell1', database_connection=gone):
        _unavailable(running.api('DELETE', '/servers/%s' % uuid),
                     'database')
        _unavailable(running.api('POST', '/servers/%s/action' % uuid,
                                 {'os-stop': None}), 'database')
        # A read of the server: its cell does not answer.
        assert running.api('GET', '/servers/%s' % uuid).status_code == 503
        # A list leaves the cell out rather than fail.
        assert running.api('GET', '/servers').status_code == 200
    # Back: the same requests are served, nothing was lost.
    body = running.api('GET', '/servers/%s' % uuid,
                       token=ADMIN).json()['server']
    assert body['status'] == 'ACTIVE'
    assert body['OS-EXT-STS:task_state'] is None
    assert running.api('DELETE', '/servers/%s' % uuid).status_code == 204
    running.gone(uuid)


def test_broker_down_delete_is_503_fast_and_undone(running):
    uuid = running.boot('cell2')
    with _Pointed(running, 'cell2', transport_url=DEAD_BROKER):
        started = time.monotonic()
        resp = running.api('DELETE', '/servers/%s' % uuid)
        waited = time.monotonic() - started
        _unavailable(resp, 'message queue')
        # Bounded: [api] rpc_send_retries (2) retries, oslo.messaging's
        # rabbit_retry_interval (1 s) growing by rabbit_retry_backoff
        # (2 s): about 4 s, where it used to wait for ever.
        assert waited < 15, waited
        body = running.api('GET', '/servers/%s' % uuid,
                           token=ADMIN).json()['server']
        assert body['status'] == 'ACTIVE'
        assert body['OS-EXT-STS:task_state'] is None
    # The queue back: the delete goes through.
    assert running.api('DELETE', '/servers/%s' % uuid).status_code == 204
    running.gone(uuid)
