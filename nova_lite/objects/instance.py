"""Instance: a server in its cell's database, with its own flavor copy.

The object is what services pass around and persist (computes through
their cell conductor). Its flavor, old_flavor and new_flavor are
EmbeddedFlavor snapshots (instance_extra.flavor), readable with no API
DB. save() writes only what changed, in one transaction, and can be
made conditional on the task and vm states the caller expects
(compare-and-swap under the row lock): that is how a delete racing a
build, or two actions racing each other, is settled.

The REST API reads servers as records (the read model,
nova_lite.compute.api.server_records.ServerRecord, built from the rows of
nova_lite.db.main.instances) instead of objects: one page of servers is
a constant number of statements and no object construction per row.
The compute API writes through Instance, and through the functions at
the end of this module for what needs no object loaded.
"""
from oslo_utils import versionutils
from oslo_versionedobjects import fields

from nova_lite.db.main import api as main_db
from nova_lite.db.main import instance_actions as actions_db
from nova_lite.db.main import instance_lock
from nova_lite.db.main import instance_pages as pages
from nova_lite.db.main import instance_tags as tags_db
from nova_lite.db.main import instances as db
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import embedded_flavor
from nova_lite.objects import fields as nl_fields
from nova_lite.objects import instance_action

# vm_state / task_state / power_state values used by the services.
ACTIVE, BUILDING, ERROR, DELETED, STOPPED = (
    'active', 'building', 'error', 'deleted', 'stopped')
SCHEDULING, NETWORKING, SPAWNING, DELETING = (
    'scheduling', 'networking', 'spawning', 'deleting')
# Task states of a rebuild, in order (then None).
REBUILDING, REBUILD_BLOCK_DEVICE_MAPPING, REBUILD_SPAWNING = (
    'rebuilding', 'rebuild_block_device_mapping', 'rebuild_spawning')
# Task states of a snapshot (createImage), in order (then None).
IMAGE_SNAPSHOT, IMAGE_PENDING_UPLOAD, IMAGE_UPLOADING = (
    'image_snapshot', 'image_pending_upload', 'image_uploading')
# Resize and cold migration: vm_state resized (VERIFY_RESIZE) and the
# task states of a move, in order (then None), and of a revert.
RESIZED = 'resized'
RESIZE_PREP, RESIZE_MIGRATING, RESIZE_MIGRATED, RESIZE_FINISH = (
    'resize_prep', 'resize_migrating', 'resize_migrated', 'resize_finish')
RESIZE_REVERTING = 'resize_reverting'
# A live migration's one task state (the server stays ACTIVE).
MIGRATING = 'migrating'
RESIZE_TASK_STATES = (RESIZE_PREP, RESIZE_MIGRATING, RESIZE_MIGRATED,
                      RESIZE_FINISH, RESIZE_REVERTING)
NOSTATE, RUNNING, SHUTDOWN = 0, 1, 4
# Server actions (nova_lite.compute.api.server_actions; values as Nova's).
PAUSED, SUSPENDED = 'paused', 'suspended'            # vm_state
POWER_PAUSED, POWER_SUSPENDED = 3, 7                 # power_state
POWERING_OFF, POWERING_ON = 'powering-off', 'powering-on'
PAUSING, UNPAUSING = 'pausing', 'unpausing'
SUSPENDING, RESUMING = 'suspending', 'resuming'
REBOOTING, REBOOT_PENDING, REBOOT_STARTED = (
    'rebooting', 'reboot_pending', 'reboot_started')
REBOOTING_HARD, REBOOT_PENDING_HARD, REBOOT_STARTED_HARD = (
    'rebooting_hard', 'reboot_pending_hard', 'reboot_started_hard')
SOFT_REBOOT_STATES = (REBOOTING, REBOOT_PENDING, REBOOT_STARTED)
HARD_REBOOT_STATES = (REBOOTING_HARD, REBOOT_PENDING_HARD,
                      REBOOT_STARTED_HARD)
ACTION_TASK_STATES = (POWERING_OFF, POWERING_ON, PAUSING, UNPAUSING,
                      SUSPENDING, RESUMING) + SOFT_REBOOT_STATES + \
    HARD_REBOOT_STATES

# Shelve and unshelve (nova_lite.compute.api.server_shelve; values as
# Nova's): vm_states, then the task states of a shelve, in order.
SHELVED, SHELVED_OFFLOADED = 'shelved', 'shelved_offloaded'
SHELVING = 'shelving'
SHELVING_IMAGE_PENDING_UPLOAD = 'shelving_image_pending_upload'
SHELVING_IMAGE_UPLOADING = 'shelving_image_uploading'
SHELVING_OFFLOADING = 'shelving_offloading'
UNSHELVING = 'unshelving'
SHELVE_TASK_STATES = (SHELVING, SHELVING_IMAGE_PENDING_UPLOAD,
                      SHELVING_IMAGE_UPLOADING, SHELVING_OFFLOADING,
                      UNSHELVING)
# Rescue: vm_state rescued and the task states in and out of it.
RESCUED, RESCUING, UNRESCUING = 'rescued', 'rescuing', 'unrescuing'
# Soft delete ([DEFAULT] reclaim_instance_interval > 0): vm_state and the
# task states of a soft delete and of a restore.
SOFT_DELETED, SOFT_DELETING, RESTORING = (
    'soft-delete', 'soft-deleting', 'restoring')
# createBackup's first task state (then as a snapshot's), changePassword's.
IMAGE_BACKUP, UPDATING_PASSWORD = 'image_backup', 'updating_password'

# fn(context, instance, old_vm_state, old_task_state), called where a
# save() wrote a change of vm_state or task_state (after its commit).
# The notifications layer (above us) adds its instance.update sender.
STATE_CHANGE_HOOKS = []

_COLUMN_FIELDS = {
    'id': fields.IntegerField(read_only=True),
    'uuid': fields.UUIDField(),
    'user_id': fields.StringField(nullable=True),
    'project_id': fields.StringField(nullable=True),
    'image_ref': fields.StringField(nullable=True),
    'hostname': fields.StringField(nullable=True),
    'host': fields.StringField(nullable=True),
    'node': fields.StringField(nullable=True),
    'launched_on': fields.StringField(nullable=True),
    'instance_type_id': fields.IntegerField(nullable=True),
    'vm_state': fields.StringField(nullable=True),
    'task_state': fields.StringField(nullable=True),
    'power_state': fields.IntegerField(nullable=True),
    'memory_mb': fields.IntegerField(nullable=True),
    'vcpus': fields.IntegerField(nullable=True),
    'root_gb': fields.IntegerField(nullable=True),
    'ephemeral_gb': fields.IntegerField(nullable=True),
    'display_name': fields.StringField(nullable=True),
    'display_description': fields.StringField(nullable=True),
    'key_name': fields.StringField(nullable=True),
    'key_data': fields.StringField(nullable=True),
    'user_data': fields.StringField(nullable=True),
    'reservation_id': fields.StringField(nullable=True),
    'launch_index': fields.IntegerField(nullable=True),
    'availability_zone': fields.StringField(nullable=True),
    'locked': fields.BooleanField(default=False),
    'locked_by': fields.StringField(nullable=True),
    'launched_at': fields.DateTimeField(nullable=True),
    'terminated_at': fields.DateTimeField(nullable=True),
    'access_ip_v4': fields.StringField(nullable=True),
    'access_ip_v6': fields.StringField(nullable=True),
    'config_drive': fields.StringField(nullable=True),
    'progress': fields.IntegerField(nullable=True),
    'root_device_name': fields.StringField(nullable=True),
    'hidden': fields.BooleanField(default=False),
    'auto_disk_config': fields.BooleanField(nullable=True),
}
COLUMNS = tuple(_COLUMN_FIELDS)
# Every field read from the instances row itself.
_ROW_FIELDS = COLUMNS + ('created_at', 'updated_at', 'deleted_at', 'deleted')
# Related data: a change to any of them is written with the row.
_FLAVOR_FIELDS = ('flavor', 'old_flavor', 'new_flavor')
_RELATED_FIELDS = {
    'metadata': fields.DictOfStringsField(),
    'system_metadata': fields.DictOfNullableStringsField(),
    'flavor': fields.ObjectField('EmbeddedFlavor', nullable=True),
    'old_flavor': fields.ObjectField('EmbeddedFlavor', nullable=True),
    'new_flavor': fields.ObjectField('EmbeddedFlavor', nullable=True),
    'network_info': nl_fields.JsonField(),
    'tags': fields.ListOfStringsField(),
    'keypairs': nl_fields.JsonField(),
    'migration_context': nl_fields.JsonField(nullable=True),
}


def _snapshot(primitive):
    return (None if not primitive
            else base.from_stored(embedded_flavor.EmbeddedFlavor,
                                    primitive))


def _reset_all(instance):
    """obj_reset_changes(recursive=True), without its walk over every
    field for nested objects: the flavor snapshots are the only ones
    (and hold none)."""
    for slot in _FLAVOR_FIELDS:
        if instance.obj_attr_is_set(slot):
            snapshot = getattr(instance, slot)
            if snapshot is not None:
                snapshot.obj_reset_changes()
    instance.obj_reset_changes()


@base.NovaLiteObjectRegistry.register
class Instance(base.NovaLiteObject, base.NovaLitePersistentObject):
    # 1.0: initial
    # 1.1: save_and_finish_event
    # 1.2: save_and_finish_event takes start_time
    # 1.3: auto_disk_config
    VERSION = '1.3'

    fields = dict(base.NovaLitePersistentObject.fields, **_COLUMN_FIELDS,
                  **_RELATED_FIELDS)

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        if versionutils.convert_version_to_tuple(target_version) < (1, 3):
            primitive.pop('auto_disk_config', None)

    @classmethod
    def _from_record(cls, context, obj, rec):
        obj.set_fields(rec, _ROW_FIELDS)
        for name in ('metadata', 'system_metadata', 'tags'):
            if name in rec:
                setattr(obj, name, rec[name])
        flavors = rec.get('flavor') or {}
        obj.flavor = _snapshot(flavors.get('cur'))
        obj.old_flavor = _snapshot(flavors.get('old'))
        obj.new_flavor = _snapshot(flavors.get('new'))
        obj.network_info = rec.get('network_info') or []
        obj.keypairs = rec.get('keypairs') or []
        obj.migration_context = rec.get('migration_context')
        # The flavor snapshots just read are not changes either (a save
        # would rewrite instance_extra.flavor every time).
        _reset_all(obj)
        obj.context = context
        return obj

    @property
    def name(self):
        """The instance name a hypervisor would use."""
        return 'instance-%08x' % self.id

    def _flavor_blob(self):
        def prim(slot):
            flavor = getattr(self, slot) if self.obj_attr_is_set(slot) \
                else None
            return None if flavor is None else flavor.obj_to_primitive()
        return {'cur': prim('flavor'), 'old': prim('old_flavor'),
                'new': prim('new_flavor')}

    @base.remotable_classmethod
    def get_by_uuid(cls, context, uuid, read_deleted='no'):
        return cls._from_record(context, cls(), db.get_record(
            context, uuid, read_deleted=read_deleted))

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        changes = self.obj_get_changes()
        values = {k: v for k, v in changes.items() if k in COLUMNS}
        rec = db.create(
            self.context, values, flavor=self._flavor_blob(),
            network_info=changes.get('network_info'),
            metadata=changes.get('metadata'),
            system_metadata=changes.get('system_metadata'),
            tags=changes.get('tags'), keypairs=changes.get('keypairs'))
        self._from_record(self.context, self, rec)

    @base.remotable
    def save(self, expected_task_state=None, expected_vm_state=None):
        """Write what changed. expected_*_state: a list of states the
        instance must be in (None in the list: no task), or None for no
        check; UnexpectedTaskStateError / InstanceInvalidState when it is
        not, and nothing is written."""
        self._save(expected_task_state, expected_vm_state)

    @base.remotable
    def save_and_finish_event(self, event_name, host=None,
                              expected_task_state=None, start_time=None):
        """1.1: finish event event_name (Success) of the context's
        request's action on this instance and save() it, in one
        transaction of its cell: a compute's last two writes of an
        action, in one call to its cell conductor. Nothing is written
        when the save is refused (UnexpectedTaskStateError,
        InstanceNotFound); InstanceActionNotFound when the request
        started no action. 1.2: an event never started is recorded as
        started at start_time (default now)."""
        with main_db.writing(self.context):
            actions_db.event_finish(
                self.context, self.uuid, self.context.request_id,
                event_name, actions_db.RESULT_SUCCESS, host=host,
                want_result=False,
                start_time=instance_action.start_time_value(start_time))
            self._save(expected_task_state, None)

    def _save(self, expected_task_state, expected_vm_state):
        changes = self.obj_get_changes()
        values = {k: v for k, v in changes.items()
                  if k in COLUMNS and k != 'id'}
        extra = {}
        if any(f in changes for f in _FLAVOR_FIELDS):
            extra['flavor'] = self._flavor_blob()
        for key in ('keypairs', 'migration_context'):
            if key in changes:
                extra[key] = changes[key]
        kwargs = {}
        if expected_task_state is not None:
            kwargs['expected_task_state'] = expected_task_state
        if expected_vm_state is not None:
            kwargs['expected_vm_state'] = expected_vm_state
        if 'network_info' in changes:
            kwargs['network_info'] = changes['network_info']
        previous = ({} if STATE_CHANGE_HOOKS and (
            'vm_state' in values or 'task_state' in values) else None)
        rec = db.update(self.context, self.uuid, values, extra=extra,
                        metadata=changes.get('metadata'),
                        system_metadata=changes.get('system_metadata'),
                        tags=changes.get('tags'), previous=previous,
                        **kwargs)
        # The row as written; the related data is what this object holds
        # (it was just written, or is unchanged). An object missing some
        # of it (made from part of a record) reads the whole record.
        if all(self.obj_attr_is_set(name) for name in _RELATED_FIELDS):
            for name in _ROW_FIELDS:
                # Only what differs: a coercing setattr per field costs
                # more than the comparison.
                value = rec[name]
                if not self.obj_attr_is_set(name) or \
                        getattr(self, name) != value:
                    setattr(self, name, value)
            _reset_all(self)
        else:
            self._from_record(self.context, self,
                              db.get_record(self.context, self.uuid))
        if previous and (previous['vm_state'], previous['task_state']) != (
                self.vm_state, self.task_state):
            for hook in STATE_CHANGE_HOOKS:
                hook(self.context, self, previous['vm_state'],
                     previous['task_state'])

    @base.remotable
    def destroy(self):
        """Soft delete: the row stays (deleted = id) for the record."""
        rec = db.soft_delete(self.context, self.uuid,
                             {'vm_state': DELETED, 'task_state': None,
                              'power_state': NOSTATE})
        self._from_record(self.context, self, rec)

    @base.remotable
    def hard_delete(self):
        """Remove the instance and every related row, in one
        transaction (a cross-cell move drops its source copy so)."""
        db.hard_delete(self.context, self.uuid)

    @base.remotable
    def add_fault(self, code, message, details=None, host=None):
        db.add_fault(self.context, self.uuid, code, message, details, host)


@base.NovaLiteObjectRegistry.register
class InstanceList(base.NovaLiteObject, base.ObjectListBase):
    # 1.0: initial
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('Instance')}

    @base.remotable_classmethod
    def get_by_filters(cls, context, filters, sort_key='created_at',
                       sort_dir='desc', limit=None):
        """filters as nova_lite.db.main.instance_pages.list_records takes."""
        recs = pages.list_records(context, filters, [sort_key, 'uuid'],
                               [sort_dir, sort_dir], limit=limit)
        return cls._make(context, recs)

    @classmethod
    def _make(cls, context, recs):
        result = cls(objects=[Instance._from_record(context, Instance(), r)
                              for r in recs])
        result.context = context
        result.obj_reset_changes()
        return result

    @base.remotable_classmethod
    def get_by_host(cls, context, host):
        return cls._make(context, pages.list_records(
            context, {'host': host}, ['created_at', 'uuid'],
            ['asc', 'asc']))


# --- writes the compute API makes around (or without) an Instance -------

def locked(context, uuid):
    """A context manager: one writer transaction on context (targeted at
    the instance's cell) holding the instance row's write lock, to read
    (get_by_uuid), change and save() the Instance inside it without
    interleaving with another writer; InstanceNotFound if there is no
    live instance."""
    return instance_lock.locked(context, uuid)


def add_tag(context, uuid, tag, vm_states, max_tags):
    """Add one tag in one transaction under the instance's row lock, if
    it is in one of vm_states (InstanceInvalidState); at max_tags tags
    none, not even one it has (TooManyTags). Returns whether it was
    added (False: it was there)."""
    return tags_db.add(context, uuid, tag, vm_states, max_tags)


def delete_tag(context, uuid, tag, vm_states):
    """Remove one tag in one transaction under the instance's row lock,
    if it is in one of vm_states; TagNotFound if it has not that tag."""
    tags_db.delete(context, uuid, tag, vm_states)


def session_transaction(context):
    """A context manager: one writer transaction of context's cell that
    every write made on context inside it joins -- Instance.create(),
    add_fault() and save(), block device mappings, action records -- so
    that they commit or roll back together (a build buried in cell0
    once, whole, however often a database outage makes it try)."""
    return main_db.get_context_manager(context).writer.using(context)


def transaction(context):
    """A context manager: one writer transaction of context's cell that
    the Instance.save()s and action records made on context inside it
    join (all of them or none)."""
    return main_db.writing(context)
