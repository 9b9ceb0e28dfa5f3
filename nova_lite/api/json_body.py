"""Strict JSON request bodies.

``loads()`` accepts RFC 8259 JSON only: no NaN, Infinity or -Infinity, no
number that overflows to an infinite float, and no array or object nested
deeper than MAX_DEPTH. The depth is measured on the raw bytes before
anything parses them, so no parser, schema validator, logger or copy
downstream ever recurses over a body deeper than MAX_DEPTH. Every refusal
is an ``exception.MalformedRequestBody`` (400).
"""
import itertools
import json
import math
import operator
import re

from nova_lite import exception

# Deeper than any Compute API body (a server create nests about 5 levels),
# far below Python's recursion limit even with a few frames per level.
MAX_DEPTH = 64

_ESCAPE = re.compile(rb'\\.', re.DOTALL)
_STRING = re.compile(rb'"[^"]*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b'[]{}')
_STEPS = bytes.maketrans(b'[{]}', b'\x02\x02\x00\x00')


class TooDeep(exception.MalformedRequestBody):
    msg_fmt = ('Malformed request body: arrays and objects nested deeper '
               'than %(limit)d levels')


class NotFinite(exception.MalformedRequestBody):
    msg_fmt = ('Malformed request body: %(value)s is not a JSON number '
               '(JSON has no NaN or Infinity)')


def nesting_depth_exceeds(raw, limit=MAX_DEPTH):
    """Whether brackets outside strings nest deeper than ``limit``.

    Works on any bytes (valid JSON or not) in one pass without recursion.
    """
    if raw.count(b'[') + raw.count(b'{') <= limit:
        return False
    brackets = _STRING.sub(b'', _ESCAPE.sub(b'', raw)).translate(
        _STEPS, _NOT_BRACKETS)
    # Opening brackets are 2 and closing ones 0 after the translation: the
    # running sum of (byte - 1) is the depth at each bracket.
    depths = itertools.accumulate(map(operator.sub, brackets,
                                      itertools.repeat(1)))
    return max(depths, default=0) > limit


def _reject_constant(name):
    raise NotFinite(value=name)


def _finite_float(text):
    value = float(text)
    if not math.isfinite(value):
        raise NotFinite(value=text)
    return value


def check_strict(raw):
    """Raise if ``raw`` is too deep, or JSON only with non-finite numbers.

    Bodies that are not JSON at all pass: an endpoint that reads a body
    rejects them itself, one that does not ignores them.
    """
    try:
        loads(raw)
    except (TooDeep, NotFinite):
        raise
    except exception.MalformedRequestBody:
        pass


def _decode(raw):
    return json.loads(raw, parse_constant=_reject_constant,
                      parse_float=_finite_float)


def loads(raw):
    """The body as a Python value; MalformedRequestBody unless strict."""
    if isinstance(raw, str):
        raw = raw.encode('utf-8', 'surrogatepass')
    if nesting_depth_exceeds(raw):
        raise TooDeep(limit=MAX_DEPTH)
    try:
        return _decode(raw)
    except NotFinite:
        raise
    except ValueError as exc:   # UnicodeDecodeError is one
        raise exception.MalformedRequestBody(reason=str(exc))
