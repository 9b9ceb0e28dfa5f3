"""Migration: the record of one resize or cold migration of a server, in
its cell's database (the write side; GET /os-migrations reads the table
with its own queries).

Its uuid is the placement consumer holding the source host's allocation
while the move is in progress (see nova_lite.placement.allocations.claim's
move_to). Statuses of a same-cell move, in order:

    pre-migrating -> migrating -> post-migrating -> finished
        -> confirmed | reverted        (or error at any step)

(reverting and confirming mark a revert or confirm in progress).
Computes create nothing here: they move the record on through their cell
conductor (remotable save), each step a compare-and-swap on the status it
expects.
"""
from oslo_utils import versionutils
from oslo_versionedobjects import fields

from nova_lite.db.main import migrations as db
from nova_lite.objects import base

PRE_MIGRATING, MIGRATING, POST_MIGRATING, FINISHED = (
    'pre-migrating', 'migrating', 'post-migrating', 'finished')
CONFIRMING, CONFIRMED, REVERTING, REVERTED, ERROR = (
    'confirming', 'confirmed', 'reverting', 'reverted', 'error')
# A move whose source allocation is still held by the migration.
IN_PROGRESS = (PRE_MIGRATING, MIGRATING, POST_MIGRATING, FINISHED,
               CONFIRMING, REVERTING)
RESIZE, MIGRATION = 'resize', 'migration'     # migration_type
# An evacuation (as Nova's): accepted (the API) -> pre-migrating (the
# destination claimed by the super conductor) -> migrating (the
# destination rebuilds) -> done (rebuilt; the source allocation still
# held by the migration) -> completed (the source compute came back and
# cleaned up); error at any step.
EVACUATION = 'evacuation'
# A live migration (migration_type live-migration), as Nova's statuses:
# accepted (the super conductor's) -> queued -> preparing -> running ->
# post-migrating -> completed; error (failed, rolled back) or cancelled
# (aborted, rolled back) at any step before completed.
LIVE_MIGRATION = 'live-migration'
ACCEPTED, QUEUED, PREPARING, RUNNING = (
    'accepted', 'queued', 'preparing', 'running')
DONE, COMPLETED, CANCELLED, FAILED = (
    'done', 'completed', 'cancelled', 'failed')
LIVE_IN_PROGRESS = (ACCEPTED, QUEUED, PREPARING, RUNNING, POST_MIGRATING)
PROGRESS_FIELDS = ('memory_total', 'memory_processed', 'memory_remaining',
                   'disk_total', 'disk_processed', 'disk_remaining')


@base.NovaLiteObjectRegistry.register
class Migration(base.NovaLiteObject, base.NovaLitePersistentObject):
    # 1.0: initial
    # 1.1: a live migration's progress (memory_* and disk_*, bytes)
    VERSION = '1.1'

    fields = dict(base.NovaLitePersistentObject.fields, **{
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(),
        'source_compute': fields.StringField(nullable=True),
        'dest_compute': fields.StringField(nullable=True),
        'source_node': fields.StringField(nullable=True),
        'dest_node': fields.StringField(nullable=True),
        'dest_host': fields.StringField(nullable=True),
        'old_instance_type_id': fields.IntegerField(nullable=True),
        'new_instance_type_id': fields.IntegerField(nullable=True),
        'instance_uuid': fields.StringField(nullable=True),
        'status': fields.StringField(nullable=True),
        'migration_type': fields.StringField(nullable=True),
        'hidden': fields.BooleanField(default=False),
        'cross_cell_move': fields.BooleanField(default=False),
        'user_id': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
    }, **{name: fields.IntegerField(nullable=True)
          for name in PROGRESS_FIELDS})

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        if versionutils.convert_version_to_tuple(target_version) < (1, 1):
            for name in PROGRESS_FIELDS:
                primitive.pop(name, None)

    @classmethod
    def _from_record(cls, context, obj, rec):
        obj.set_fields(rec, cls.fields)
        obj.context = context
        obj.obj_reset_changes()
        return obj

    @base.remotable_classmethod
    def get_by_id(cls, context, migration_id):
        return cls._from_record(context, cls(), db.get_by_id(context,
                                                             migration_id))

    @base.remotable_classmethod
    def get_by_uuid(cls, context, uuid):
        return cls._from_record(context, cls(), db.get_by_uuid(context,
                                                               uuid))

    @base.remotable_classmethod
    def get_in_progress_by_instance(cls, context, instance_uuid,
                                    statuses=IN_PROGRESS):
        """The instance's newest migration in one of statuses
        (MigrationNotFoundByStatus when none)."""
        return cls._from_record(context, cls(),
                                db.get_in_progress_by_instance(
                                    context, instance_uuid, list(statuses)))

    @base.remotable
    def create(self):
        rec = db.create(self.context, self.obj_get_changes())
        self._from_record(self.context, self, rec)

    @base.remotable
    def save(self, expected_status=None):
        """Write what changed; with expected_status (a list), only while
        the status is one of them (MigrationStatusConflict, nothing
        written, otherwise)."""
        rec = db.update(self.context, self.id, self.obj_get_changes(),
                        expected_status=expected_status)
        self._from_record(self.context, self, rec)

    @property
    def is_live(self):
        return self.migration_type == LIVE_MIGRATION

    @property
    def is_resize(self):
        return self.migration_type == RESIZE


@base.NovaLiteObjectRegistry.register
class MigrationList(base.NovaLiteObject, base.ObjectListBase):
    # 1.0: initial
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('Migration')}

    @base.remotable_classmethod
    def get_unconfirmed_by_age(cls, context, older_than_seconds,
                               limit=None):
        """Moves in status finished whose last change is older than
        older_than_seconds in the context's cell, oldest first (what
        auto-confirm confirms). One query."""
        return cls._make(context, db.get_unconfirmed_by_age(
            context, FINISHED, older_than_seconds, limit))

    @base.remotable_classmethod
    def get_by_host_and_status(cls, context, host, statuses):
        """The cell's migrations in one of statuses with host as their
        source or destination (a compute's start-up recovery). One
        query."""
        return cls._make(context, db.get_by_host_and_status(
            context, host, list(statuses)))

    @classmethod
    def _make(cls, context, recs):
        result = cls(objects=[Migration._from_record(context, Migration(),
                                                     r) for r in recs])
        result.context = context
        result.obj_reset_changes()
        return result
