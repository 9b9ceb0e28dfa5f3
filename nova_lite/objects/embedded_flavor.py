"""EmbeddedFlavor: the snapshot of a flavor a server carries in its cell's
instance_extra.flavor, as cur (what it runs with) and, during a resize,
old and new.

A snapshot never reads a database: it has no lazy loading (a field not
captured is an error, never a query) and no access list, so a cell
conductor or compute with no API DB reads it. It keeps what the server
body shows from microversion 2.47 (name as original_name, vcpus, ram,
disk, ephemeral, swap, extra_specs) and the flavor's id and flavorid for
resize. The instance_extra.flavor column holds JSON:
{"cur": <primitive>, "old": <primitive or null>, "new": <...>}.
"""
from oslo_serialization import jsonutils
from oslo_versionedobjects import fields

from nova_lite import exception
from nova_lite.objects import base

SLOTS = ('cur', 'old', 'new')


@base.NovaLiteObjectRegistry.register
class EmbeddedFlavor(base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(),
        'flavorid': fields.StringField(),
        'name': fields.StringField(nullable=True),
        'memory_mb': fields.IntegerField(),
        'vcpus': fields.IntegerField(),
        'root_gb': fields.IntegerField(),
        'ephemeral_gb': fields.IntegerField(),
        'swap': fields.IntegerField(),
        'extra_specs': fields.DictOfStringsField(),
    }

    @classmethod
    def from_flavor(cls, flavor):
        """A snapshot of flavor (a Flavor, or anything with its fields)
        as it is now; later changes to either do not reach the other."""
        return cls(**{name: (dict(flavor.extra_specs)
                             if name == 'extra_specs'
                             else getattr(flavor, name))
                      for name in cls.fields})

    def obj_load_attr(self, attrname):
        raise exception.ObjectActionError(
            action='obj_load_attr',
            reason='an embedded flavor is a snapshot; %s was not captured'
                   % attrname)


def to_json(cur, old=None, new=None, target_version=None):
    """The instance_extra.flavor JSON of these snapshots (target_version:
    backport them for older readers)."""
    return jsonutils.dumps({
        slot: (None if flavor is None
               else flavor.obj_to_primitive(target_version=target_version))
        for slot, flavor in zip(SLOTS, (cur, old, new))})


def from_json(blob):
    """{'cur': EmbeddedFlavor, 'old': ... or None, 'new': ... or None}
    from instance_extra.flavor JSON (None or empty: no flavor at all)."""
    data = jsonutils.loads(blob) if blob else {}
    return {slot: (None if data.get(slot) is None
                   else base.from_stored(EmbeddedFlavor, data[slot]))
            for slot in SLOTS}
