"""What a request costs right after its server sat idle, beside what it
costs back to back: the floor under a ratio taken from an interleaved
bench (quotas.py, limits_pair.py), where each side's request follows
the other side's and so finds its server idle for that long.

    python tools/bench/request_floor.py NAME=PORT [NAME=PORT ...]
        [--paths /,/v2.1/,/v2.1/limits] [--gaps 0,9] [--runs 200]

Sides are servers already running (held up by ``quotas.py --hold``).
Besides them, a one-line HTTP responder on a raw socket in its own
process (no framework, no parsing beyond the blank line): what the
machine itself charges for a round trip, idle or not. Each path is
asked --runs times per gap (milliseconds of sleep before each request;
the first ten untimed), one connection per side, as the benches ask.
Prints p50 and min of each side, path and gap.
"""
import argparse
import http.client
import multiprocessing
import os
import socket
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import servers  # noqa: E402

WARMUP = 10


def _responder(listener):
    body = b'{"ok": 1}'
    answer = (b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n'
              b'Content-Length: %d\r\n\r\n%s' % (len(body), body))
    while True:
        conn, _ = listener.accept()
        pending = b''
        while True:
            data = conn.recv(65536)
            if not data:
                break
            pending += data
            while b'\r\n\r\n' in pending:
                _, pending = pending.split(b'\r\n\r\n', 1)
                conn.sendall(answer)
        conn.close()


def _times(port, path, runs, gap_s):
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=600)
    headers = servers._headers()    # the benches' token and version
    took = []
    for _ in range(runs + WARMUP):
        if gap_s:
            time.sleep(gap_s)
        start = time.perf_counter()
        conn.request('GET', path, headers=headers)
        resp = conn.getresponse()
        resp.read()
        took.append(time.perf_counter() - start)
        if resp.status != 200:
            raise SystemExit('%s on port %d: %d' % (path, port, resp.status))
    conn.close()
    return took[WARMUP:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('sides', nargs='*', metavar='NAME=PORT')
    parser.add_argument('--paths', default='/,/v2.1/,/v2.1/limits')
    parser.add_argument('--gaps', default='0,9',
                        help='idle milliseconds before each request')
    parser.add_argument('--runs', type=int, default=200)
    args = parser.parse_args()
    listener = socket.socket()
    listener.bind(('127.0.0.1', 0))
    listener.listen(8)
    raw = multiprocessing.Process(target=_responder, args=(listener,),
                                  daemon=True)
    raw.start()
    sides = [('raw socket', listener.getsockname()[1], ['/'])]
    for side in args.sides:
        name, port = side.split('=')
        sides.append((name, int(port), args.paths.split(',')))
    gaps = [float(g) for g in args.gaps.split(',')]
    print('%d requests per side, path and idle gap (ms before each): %s'
          % (args.runs, ', '.join('%g' % g for g in gaps)), flush=True)
    try:
        for name, port, paths in sides:
            for path in paths:
                line = []
                for gap in gaps:
                    took = _times(port, path, args.runs, gap / 1000.0)
                    line.append('gap %g ms: p50 %.3f ms min %.3f ms' % (
                        gap, 1000 * statistics.median(took),
                        1000 * min(took)))
                print('%-10s %-14s %s' % (name, path, '; '.join(line)),
                      flush=True)
    finally:
        raw.terminate()


if __name__ == '__main__':
    main()
