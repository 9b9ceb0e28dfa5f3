"""Field types oslo.versionedobjects does not have."""
from oslo_serialization import jsonutils
from oslo_versionedobjects import fields


class Json(fields.FieldType):
    """Any JSON-serialisable value (lists and dicts of plain values),
    sent as itself; used for data whose shape belongs to another
    service (a network info cache)."""

    @staticmethod
    def coerce(obj, attr, value):
        # Round-trip: what is stored is what JSON can hold.
        return jsonutils.loads(jsonutils.dumps(value))

    @staticmethod
    def to_primitive(obj, attr, value):
        return value

    @staticmethod
    def from_primitive(obj, attr, value):
        return value


class JsonField(fields.AutoTypedField):
    AUTO_TYPE = Json()
