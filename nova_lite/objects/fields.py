"""Field types oslo.versionedobjects does not have."""
from oslo_serialization import jsonutils
from oslo_versionedobjects import fields


class _NotPlain(Exception):
    pass


_SCALARS = (str, int, float, bool, type(None))


def _plain_copy(value):
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is list or kind is tuple:
        return [_plain_copy(item) for item in value]
    if kind is dict:
        copy = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain()
            copy[key] = _plain_copy(item)
        return copy
    raise _NotPlain()


class Json(fields.FieldType):
    """Any JSON-serialisable value (lists and dicts of plain values),
    sent as itself; used for data whose shape belongs to another
    service (a network info cache)."""

    @staticmethod
    def coerce(obj, attr, value):
        # What is stored is what JSON can hold: a copy, as a JSON round
        # trip makes it. Plain data (dicts with string keys, lists,
        # strings, numbers, booleans, None) is copied directly; anything
        # else goes through the round trip (oslo.serialization's, which
        # converts what JSON cannot hold).
        try:
            return _plain_copy(value)
        except _NotPlain:
            return jsonutils.loads(jsonutils.dumps(value))

    @staticmethod
    def to_primitive(obj, attr, value):
        return value

    @staticmethod
    def from_primitive(obj, attr, value):
        return value


class JsonField(fields.AutoTypedField):
    AUTO_TYPE = Json()
