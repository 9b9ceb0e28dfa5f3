"""objects.fields.Json stores a copy of what JSON can hold, as a JSON
round trip (oslo.serialization's) makes it."""
import datetime

from oslo_serialization import jsonutils
import pytest

from nova_lite.objects import fields


@pytest.mark.parametrize('value', [
    [], {}, None, 'text', 7, 2.5, True, 10 ** 30,
    [{'address': '192.0.2.7', 'meta': {'tag': None}, 'ips': [1, 2.0]}],
    ('a', ['b']), {'k': ('x', 1)},
    {1: 'integer key'}, {'when': datetime.datetime(2026, 11, 28, 3, 4, 5)},
    {'set': {1, 2}}])
def test_coerce_equals_a_json_round_trip(value):
    ours = fields.Json.coerce(None, 'f', value)
    theirs = jsonutils.loads(jsonutils.dumps(value))
    assert ours == theirs
    assert type(ours) is type(theirs)


def test_coerce_copies():
    value = [{'a': [1]}]
    ours = fields.Json.coerce(None, 'f', value)
    ours[0]['a'].append(2)
    assert value == [{'a': [1]}]
