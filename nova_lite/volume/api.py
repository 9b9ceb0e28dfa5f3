"""The embedded volume service: volumes and their attachments in the
local-services database. It stands in for Cinder (there are no volume
bits: the simulated hypervisor needs none).

``VolumeAPI`` is the interface the compute API, the conductors and the
computes call; it is shaped like the part of python-cinderclient that
Nova uses (volumes, and the attachments API of Cinder 3.44: create,
update with a host's connector, complete, delete), so a client of a real
Cinder can implement the same methods and replace ``API``. Computes open
the local-services database (as they would call Cinder's REST API), never
a cell or the API database. Volumes are plain dicts::

    {'id', 'name', 'description', 'size' (GiB), 'status', 'bootable',
     'project_id', 'user_id', 'availability_zone', 'multiattach' (False),
     'volume_image_metadata' ({'image_id': ..} or {}), 'created_at',
     'updated_at', 'snapshot_id' (the one it was made from, or None),
     'metadata' ({str: str}), 'attachments': [{'id', 'attachment_id',
     'volume_id', 'server_id', 'host_name', 'device', 'attach_mode',
     'attach_status'}]}

Attachments (attachment_create/update/get) are::

    {'id', 'volume_id', 'instance', 'attached_host', 'attach_status',
     'attach_mode', 'mountpoint', 'connection_info' (a dict or None)}

Statuses, as Cinder's:

- a volume: ``available`` -> (attachment_create) ``reserved`` ->
  (attachment_update with a connector) ``attaching`` ->
  (attachment_complete) ``in-use`` -> (begin_detaching) ``detaching``
  -> (attachment_delete of its last attachment) ``available``;
  ``deleted`` once deleted (then never seen again). The legacy
  reserve_volume/unreserve_volume move ``available`` <-> ``attaching``.
  A reserved attachment may be completed with no connection (``in-use``
  at once: a volume attached to a shelved-offloaded server, which the
  unshelving host connects later), as Cinder allows Nova to.
- an attachment: ``reserved`` -> ``attaching`` -> ``attached``.

Invariants: a volume is attached to at most one instance (no
multiattach): every status change is one compare-and-swap UPDATE on the
volume row, so two racing attachment_create calls for one volume give
one attachment and one InvalidVolume. The instance a volume is attached
to may have a second attachment of it (a move: the destination host
connects before the source disconnects); the volume stays in-use until
its last attachment is deleted. A volume with attachments cannot
be deleted. attachment_delete is idempotent (VolumeAttachmentNotFound
only when the attachment never existed or is gone: callers cleaning up
may ignore it).

Visibility: a volume is seen by its project and by admins; any other
caller gets VolumeNotFound, as Cinder answers.
"""
from oslo_serialization import jsonutils
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.conf import CONF
from nova_lite import context as nl_context
from nova_lite.db.local_services import api as ls_db
from nova_lite.db.local_services import models
from nova_lite import exception
from nova_lite.network import nova_events
from nova_lite.volume import snapshots

VOLUMES = models.Volume.__table__
ATTACHMENTS = models.VolumeAttachment.__table__

AVAILABLE = 'available'
RESERVED = 'reserved'
ATTACHING = 'attaching'
IN_USE = 'in-use'
DETACHING = 'detaching'
ERROR = 'error'
DOWNLOADING = 'downloading'
DELETED = 'deleted'

ATTACHED = 'attached'
_VOLUME_FIELDS = ('id', 'name', 'description', 'size', 'status',
                  'bootable', 'project_id', 'user_id', 'availability_zone',
                  'image_id', 'created_at', 'updated_at', 'snapshot_id',
                  'properties')
_ATTACHMENT_FIELDS = ('id', 'volume_id', 'instance_uuid', 'attached_host',
                      'attach_status', 'attach_mode', 'mountpoint',
                      'connection_info')


class VolumeAPI(object):
    """What nova_lite needs of a block storage service (module doc)."""

    def get(self, context, volume_id):
        """The volume, or VolumeNotFound (missing, deleted, not
        visible)."""
        raise NotImplementedError()

    def get_all(self, context, search_opts=None):
        """Visible volumes, newest first; search_opts: name, status."""
        raise NotImplementedError()

    def create(self, context, size, name, description=None, image_id=None,
               availability_zone=None, volume_type=None, snapshot_id=None,
               metadata=None):
        """A new volume of size GiB owned by context's project, bootable
        when created from image_id (whose metadata it keeps), or a copy
        of snapshot_id (its size when size is None, its image), with
        metadata ({str: str}); 'available' on return (the embedded
        service creates at once)."""
        raise NotImplementedError()

    def delete(self, context, volume_id):
        """Delete the volume; InvalidVolume while it has attachments or
        is in another status than available or error."""
        raise NotImplementedError()

    def set_bootable(self, context, volume_id, bootable):
        """Set the volume's bootable flag (Cinder's os-set_bootable),
        whatever its status; VolumeNotFound."""
        raise NotImplementedError()

    def reimage_volume(self, context, volume_id, image_id,
                       reimage_reserved=False):
        """Write image_id's data over the volume (Cinder's os-reimage):
        available (or reserved, with reimage_reserved) -> downloading ->
        back, its image metadata image_id's; then volume-reimaged (tag:
        the volume) goes to the compute API for the server it is
        reserved for. Returns the volume as the call leaves it
        (downloading while the event is still to come). InvalidVolume
        in another status."""
        raise NotImplementedError()

    def create_snapshot_force(self, context, volume_id, name,
                              description=None):
        """A snapshot of the volume, whatever its status (Cinder's
        force=True, as Nova snapshots attached volumes); available."""
        raise NotImplementedError()

    def create_snapshot(self, context, volume_id, name, description=None):
        """A snapshot of an available volume (InvalidVolume
        otherwise)."""
        raise NotImplementedError()

    def get_all_snapshots(self, context):
        """The snapshots the caller sees, newest first."""
        raise NotImplementedError()

    def get_snapshot(self, context, snapshot_id):
        """SnapshotNotFound."""
        raise NotImplementedError()

    def delete_snapshot(self, context, snapshot_id):
        """SnapshotNotFound."""
        raise NotImplementedError()

    def reserve_volume(self, context, volume_id):
        """Legacy (pre-3.44) reservation: available -> attaching."""
        raise NotImplementedError()

    def unreserve_volume(self, context, volume_id):
        """Undo reserve_volume: attaching -> available."""
        raise NotImplementedError()

    def begin_detaching(self, context, volume_id):
        """in-use -> detaching (InvalidVolume from any other status)."""
        raise NotImplementedError()

    def roll_detaching(self, context, volume_id):
        """Undo begin_detaching: detaching -> in-use."""
        raise NotImplementedError()

    def attachment_create(self, context, volume_id, instance_id,
                          connector=None, mountpoint=None, mode='rw'):
        """Reserve the volume for instance_id; with a connector, also
        connect it (as attachment_update). InvalidVolume unless the volume
        is available. Returns the attachment."""
        raise NotImplementedError()

    def attachment_get(self, context, attachment_id):
        raise NotImplementedError()

    def attachment_update(self, context, attachment_id, connector,
                          mountpoint=None):
        """Connect the attachment to the connector's host: returns the
        attachment with its connection_info."""
        raise NotImplementedError()

    def attachment_complete(self, context, attachment_id):
        """The host has connected (or, for a shelved-offloaded server,
        none will until it is unshelved): attachment attached, volume
        in-use."""
        raise NotImplementedError()

    def attachment_delete(self, context, attachment_id):
        """Remove the attachment; its volume is available again once it
        has none left."""
        raise NotImplementedError()


class API(VolumeAPI):
    """VolumeAPI on the local-services database."""

    def get(self, context, volume_id):
        volume = _get(context, volume_id)
        if volume is None or not _visible(context, volume):
            raise exception.VolumeNotFound(volume_id=volume_id)
        return volume

    def get_all(self, context, search_opts=None):
        return _get_all(context, dict(search_opts or {}))

    def create(self, context, size, name, description=None, image_id=None,
               availability_zone=None, volume_type=None, snapshot_id=None,
               metadata=None):
        if snapshot_id is not None:
            snapshot = self.get_snapshot(context, snapshot_id)
            size = size or snapshot['size']
            image_id = snapshot['image_id']
        try:
            size = int(size)
        except (TypeError, ValueError):
            size = 0
        if size < 1:
            raise exception.InvalidInput(
                reason='A volume needs a size of at least 1 GiB.')
        if volume_type:
            raise exception.InvalidInput(
                reason='Volume type %s could not be found.' % volume_type)
        return _create(context, {
            'id': uuidutils.generate_uuid(), 'name': name,
            'description': description, 'size': size, 'status': AVAILABLE,
            'bootable': bool(image_id), 'image_id': image_id,
            'project_id': context.project_id, 'user_id': context.user_id,
            'availability_zone': availability_zone or 'nova',
            'snapshot_id': snapshot_id,
            'properties': jsonutils.dumps(metadata) if metadata else None,
            'created_at': timeutils.utcnow(), 'deleted': False})

    def delete(self, context, volume_id):
        self.get(context, volume_id)
        _delete(context, volume_id)

    def set_bootable(self, context, volume_id, bootable):
        self.get(context, volume_id)
        _set_bootable(context, volume_id, bool(bootable))

    def reimage_volume(self, context, volume_id, image_id,
                       reimage_reserved=False):
        volume = self.get(context, volume_id)
        allowed = (AVAILABLE, RESERVED) if reimage_reserved else (AVAILABLE,)
        if volume['status'] not in allowed:
            raise exception.InvalidVolume(
                reason='Volume %s status must be %s to reimage, but '
                       'current status is: %s.' % (
                           volume_id, ' or '.join(allowed),
                           volume['status']))
        before = volume['status']
        _swap_status(context, volume_id, allowed, DOWNLOADING)
        servers = sorted({a['server_id'] for a in volume['attachments']})

        def finish():
            _reimaged(nl_context.get_admin_context(), volume_id, image_id,
                      before)

        if not servers or not nova_events.sends_events():
            finish()
            return self.get(context, volume_id)
        events = [{'name': 'volume-reimaged', 'server_uuid': server,
                   'tag': volume_id, 'status': 'completed'}
                  for server in servers]
        nova_events.send_later(
            events, CONF.local_services.volume_reimage_delay, finish)
        return dict(volume, status=DOWNLOADING)

    def create_snapshot_force(self, context, volume_id, name,
                              description=None):
        return snapshots.create(context, volume_id, name, description,
                                force=True)

    def create_snapshot(self, context, volume_id, name, description=None):
        return snapshots.create(context, volume_id, name, description,
                                force=False)

    def get_all_snapshots(self, context):
        return snapshots.get_all(context)

    def get_snapshot(self, context, snapshot_id):
        return snapshots.get(context, snapshot_id)

    def delete_snapshot(self, context, snapshot_id):
        snapshots.delete(context, snapshot_id)

    def reserve_volume(self, context, volume_id):
        self._move(context, volume_id, (AVAILABLE,), ATTACHING)

    def unreserve_volume(self, context, volume_id):
        self._move(context, volume_id, (ATTACHING,), AVAILABLE)

    def begin_detaching(self, context, volume_id):
        self._move(context, volume_id, (IN_USE,), DETACHING)

    def roll_detaching(self, context, volume_id):
        self._move(context, volume_id, (DETACHING,), IN_USE)

    def _move(self, context, volume_id, from_statuses, to_status):
        self.get(context, volume_id)
        _swap_status(context, volume_id, from_statuses, to_status)

    def attachment_create(self, context, volume_id, instance_id,
                          connector=None, mountpoint=None, mode='rw'):
        self.get(context, volume_id)
        attachment_id = uuidutils.generate_uuid()
        _attachment_create(context, volume_id, attachment_id, instance_id,
                           mode)
        if connector is not None:
            return self.attachment_update(context, attachment_id, connector,
                                          mountpoint)
        return self.attachment_get(context, attachment_id)

    def attachment_get(self, context, attachment_id):
        attachment = _attachment_get(context, attachment_id)
        if attachment is None:
            raise exception.VolumeAttachmentNotFound(
                attachment_id=attachment_id)
        return attachment

    def attachment_update(self, context, attachment_id, connector,
                          mountpoint=None):
        attachment = self.attachment_get(context, attachment_id)
        host = (connector or {}).get('host')
        info = {'driver_volume_type': 'fake',
                'serial': attachment['volume_id'],
                'data': {'volume_id': attachment['volume_id'],
                         'target_iqn': 'iqn.2026-11.org.nova-lite:%s'
                                       % attachment['volume_id'],
                         'target_lun': 0, 'host': host,
                         'access_mode': attachment['attach_mode']}}
        return _attachment_update(context, attachment, {
            'attached_host': host, 'attach_status': ATTACHING,
            'mountpoint': mountpoint,
            'connector': jsonutils.dumps(connector or {}),
            'connection_info': jsonutils.dumps(info)})

    def attachment_complete(self, context, attachment_id):
        attachment = self.attachment_get(context, attachment_id)
        _attachment_complete(context, attachment)

    def attachment_delete(self, context, attachment_id):
        if not _attachment_delete(context, attachment_id):
            raise exception.VolumeAttachmentNotFound(
                attachment_id=attachment_id)


def _visible(context, volume):
    return context.is_admin or volume['project_id'] == context.project_id


def _columns():
    return [VOLUMES.c[name] for name in _VOLUME_FIELDS]


def _to_dict(row, attachments):
    volume = {name: row.get(name) for name in _VOLUME_FIELDS}
    image_id = volume.pop('image_id')
    properties = volume.pop('properties')
    volume['metadata'] = jsonutils.loads(properties) if properties else {}
    volume['bootable'] = bool(volume['bootable'])
    volume['multiattach'] = False
    volume['volume_image_metadata'] = (
        {'image_id': image_id} if image_id else {})
    volume['attachments'] = [
        {'id': volume['id'], 'attachment_id': a['id'],
         'volume_id': volume['id'], 'server_id': a['instance_uuid'],
         'host_name': a['attached_host'], 'device': a['mountpoint'],
         'attach_mode': a['attach_mode'],
         'attach_status': a['attach_status']}
        for a in attachments]
    return volume


def _attachments_of(session, volume_ids):
    found = {}
    if not volume_ids:
        return found
    for row in session.execute(sa.select(ATTACHMENTS).where(
            ATTACHMENTS.c.volume_id.in_(list(volume_ids))).order_by(
            ATTACHMENTS.c.created_at, ATTACHMENTS.c.id)):
        found.setdefault(row.volume_id, []).append(row._mapping)
    return found


def _attachment_dict(row):
    attachment = {name: row[name] for name in _ATTACHMENT_FIELDS}
    attachment['instance'] = attachment.pop('instance_uuid')
    attachment['connection_info'] = (
        jsonutils.loads(row['connection_info'])
        if row['connection_info'] else None)
    return attachment


@ls_db.reader
def _get(context, volume_id):
    row = context.session.execute(sa.select(*_columns()).where(
        VOLUMES.c.id == volume_id, VOLUMES.c.deleted == sa.false())).first()
    if row is None:
        return None
    attachments = _attachments_of(context.session, [volume_id])
    return _to_dict(row._mapping, attachments.get(volume_id, []))


@ls_db.reader
def _get_all(context, search_opts):
    query = sa.select(*_columns()).where(VOLUMES.c.deleted == sa.false())
    if not context.is_admin:
        query = query.where(VOLUMES.c.project_id == context.project_id)
    for name in ('name', 'status'):
        if search_opts.get(name) is not None:
            query = query.where(VOLUMES.c[name] == search_opts[name])
    rows = context.session.execute(query.order_by(
        VOLUMES.c.created_at.desc(), VOLUMES.c.id.desc())).fetchall()
    attachments = _attachments_of(context.session, [r.id for r in rows])
    return [_to_dict(r._mapping, attachments.get(r.id, [])) for r in rows]


@ls_db.writer
def _create(context, values):
    context.session.execute(VOLUMES.insert().values(**values))
    return _to_dict(dict(values, updated_at=None), [])


def _status_of(session, volume_id):
    return session.execute(sa.select(VOLUMES.c.status).where(
        VOLUMES.c.id == volume_id,
        VOLUMES.c.deleted == sa.false())).scalar()


def _cas(session, volume_id, from_statuses, to_status, action):
    """Move the volume from one of from_statuses to to_status, or raise
    InvalidVolume (VolumeNotFound when it is gone)."""
    moved = session.execute(VOLUMES.update().where(
        VOLUMES.c.id == volume_id, VOLUMES.c.deleted == sa.false(),
        VOLUMES.c.status.in_(list(from_statuses))).values(
        status=to_status, updated_at=timeutils.utcnow())).rowcount
    if moved:
        return
    status = _status_of(session, volume_id)
    if status is None:
        raise exception.VolumeNotFound(volume_id=volume_id)
    raise exception.InvalidVolume(
        reason="volume %s is %s: cannot %s it (its status must be %s)"
               % (volume_id, status, action, ' or '.join(from_statuses)))


@ls_db.writer
def _swap_status(context, volume_id, from_statuses, to_status):
    _cas(context.session, volume_id, from_statuses, to_status,
         'change it to %s' % to_status)


@ls_db.writer
def _reimaged(context, volume_id, image_id, status):
    _cas(context.session, volume_id, (DOWNLOADING,), status, 'reimage')
    context.session.execute(VOLUMES.update().where(
        VOLUMES.c.id == volume_id).values(image_id=image_id, bootable=True,
                                          updated_at=timeutils.utcnow()))


@ls_db.writer
def _set_bootable(context, volume_id, bootable):
    if not context.session.execute(VOLUMES.update().where(
            VOLUMES.c.id == volume_id, VOLUMES.c.deleted == sa.false()).values(
            bootable=bootable, updated_at=timeutils.utcnow())).rowcount:
        raise exception.VolumeNotFound(volume_id=volume_id)


@ls_db.writer
def _delete(context, volume_id):
    session = context.session
    if session.execute(sa.select(sa.func.count()).where(
            ATTACHMENTS.c.volume_id == volume_id)).scalar():
        raise exception.InvalidVolume(
            reason='volume %s has attachments: detach it first'
                   % volume_id)
    if snapshots.has_snapshots(session, volume_id):
        raise exception.InvalidVolume(
            reason='Volume %s still has dependent snapshots.' % volume_id)
    _cas(session, volume_id, (AVAILABLE, ERROR), DELETED, 'delete')
    session.execute(VOLUMES.update().where(VOLUMES.c.id == volume_id).values(
        deleted=True))


@ls_db.writer
def _attachment_create(context, volume_id, attachment_id, instance_id,
                       mode):
    """available -> reserved; or, for the instance the volume is already
    attached to (a move connects it on the destination host before the
    source lets go, as Cinder allows), another attachment with the
    status unchanged. The volume row is locked while deciding."""
    session = context.session
    status = session.execute(sa.select(VOLUMES.c.status).where(
        VOLUMES.c.id == volume_id, VOLUMES.c.deleted == sa.false())
        .with_for_update()).scalar()
    owners = {row.instance_uuid for row in session.execute(
        sa.select(ATTACHMENTS.c.instance_uuid).where(
            ATTACHMENTS.c.volume_id == volume_id))}
    if status == AVAILABLE or owners != {instance_id}:
        _cas(session, volume_id, (AVAILABLE,), RESERVED, 'attach')
    session.execute(ATTACHMENTS.insert().values(
        id=attachment_id, volume_id=volume_id, instance_uuid=instance_id,
        attach_status=RESERVED, attach_mode=mode,
        created_at=timeutils.utcnow()))


@ls_db.reader
def _attachment_get(context, attachment_id):
    row = context.session.execute(sa.select(ATTACHMENTS).where(
        ATTACHMENTS.c.id == attachment_id)).first()
    return _attachment_dict(row._mapping) if row is not None else None


@ls_db.writer
def _attachment_update(context, attachment, values):
    session = context.session
    # A volume in-use stays so (a second attachment of its instance).
    if _status_of(session, attachment['volume_id']) != IN_USE:
        _cas(session, attachment['volume_id'], (RESERVED, ATTACHING),
             ATTACHING, 'connect')
    session.execute(ATTACHMENTS.update().where(
        ATTACHMENTS.c.id == attachment['id']).values(
        updated_at=timeutils.utcnow(), **values))
    row = session.execute(sa.select(ATTACHMENTS).where(
        ATTACHMENTS.c.id == attachment['id'])).first()
    return _attachment_dict(row._mapping)


@ls_db.writer
def _attachment_complete(context, attachment):
    session = context.session
    # (From reserved too: Nova completes the attachment of a volume it
    # attaches to a shelved-offloaded server, with no connection, as
    # Cinder allows; the unshelving host connects it.)
    _cas(session, attachment['volume_id'], (RESERVED, ATTACHING, IN_USE),
         IN_USE, 'complete the attachment of')
    session.execute(ATTACHMENTS.update().where(
        ATTACHMENTS.c.id == attachment['id']).values(
        attach_status=ATTACHED, updated_at=timeutils.utcnow()))


@ls_db.writer
def _attachment_delete(context, attachment_id):
    session = context.session
    volume_id = session.execute(sa.select(ATTACHMENTS.c.volume_id).where(
        ATTACHMENTS.c.id == attachment_id)).scalar()
    if volume_id is None:
        return False
    session.execute(ATTACHMENTS.delete().where(
        ATTACHMENTS.c.id == attachment_id))
    left = {row.attach_status for row in session.execute(
        sa.select(ATTACHMENTS.c.attach_status).where(
            ATTACHMENTS.c.volume_id == volume_id))}
    # Its last attachment gone: available; only reservations left (a
    # rebuild's reimage, a swap): reserved, as Cinder.
    status = (AVAILABLE if not left
              else RESERVED if left == {RESERVED} else None)
    if status is not None:
        session.execute(VOLUMES.update().where(
            VOLUMES.c.id == volume_id,
            VOLUMES.c.deleted == sa.false()).values(
            status=status, updated_at=timeutils.utcnow()))
    return True
