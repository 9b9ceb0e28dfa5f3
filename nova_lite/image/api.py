"""The embedded image service: image records in the local-services
database. It stands in for Glance (there are no image bits: the simulated
hypervisor needs none).

``ImageAPI`` is the interface the compute API and the images REST proxy
call; ``API`` implements it on the local-services database. A client of a
real Glance can implement the same methods and replace ``API``. Images
are plain dicts::

    {'id', 'name', 'status', 'visibility', 'owner', 'min_disk',
     'min_ram', 'size', 'disk_format', 'container_format', 'checksum',
     'created_at', 'updated_at' (naive UTC datetimes), 'properties'
     (a dict of strings)}

Visibility: a public image is seen by everyone, a private one by its
owner's project and by admins; an image nobody may see is reported as
not found (ImageNotFound), as Glance does. Deleted images are never seen.
"""
import datetime
import hashlib

from oslo_db import exception as db_exc
from oslo_serialization import jsonutils
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.db.local_services import api as ls_db
from nova_lite.db.local_services import models
from nova_lite import exception

IMAGES = models.Image.__table__
DATA = models.ImageData.__table__
FIELDS = ('id', 'name', 'status', 'visibility', 'owner', 'min_disk',
          'min_ram', 'size', 'disk_format', 'container_format', 'checksum',
          'created_at', 'updated_at', 'properties')

# Shipped with every all-in-one and test plane (created idempotently).
# cirros keeps the id of Nova's own fake image so that benchmark request
# bodies work against both. Listed first to last (newest first): each
# has a creation time of its own, cirros the newest, so that the small
# image heads a listing as it does on a devstack.
_SHIPPED_AT = datetime.datetime(2026, 1, 1)
DEFAULT_IMAGES = (
    {'id': '155d900f-4e14-4e4c-a73d-069cbf4541e6',
     'name': 'cirros-0.6.2-x86_64-disk', 'disk_format': 'qcow2',
     'container_format': 'bare', 'min_disk': 0, 'min_ram': 0,
     'size': 21430272, 'checksum': 'c8fc807773e5354afe61636071771906',
     'properties': {'os_distro': 'cirros', 'architecture': 'x86_64',
                    'hw_disk_bus': 'virtio'}},
    {'id': 'a2459075-d96c-40d5-893e-577ff92e721c',
     'name': 'ubuntu-24.04-server-cloudimg-amd64', 'disk_format': 'qcow2',
     'container_format': 'bare', 'min_disk': 3, 'min_ram': 512,
     'size': 587202560, 'checksum': '0fe3f3b0d5bfa1d8a4f4c3b1f09d8e2a',
     'properties': {'os_distro': 'ubuntu', 'os_version': '24.04',
                    'architecture': 'x86_64'}},
    {'id': '70a599e0-31e7-49b7-b260-868f441e862b',
     'name': 'debian-12-generic-amd64', 'disk_format': 'qcow2',
     'container_format': 'bare', 'min_disk': 2, 'min_ram': 256,
     'size': 429916160, 'checksum': '5a7c4fe2e3c6b1f4a0e8d7c2b9f1a6e3',
     'properties': {'os_distro': 'debian', 'os_version': '12',
                    'architecture': 'x86_64'}},
)
CIRROS_IMAGE_ID = DEFAULT_IMAGES[0]['id']

STATUSES = ('queued', 'active', 'deleted')
VISIBILITIES = ('public', 'private')


class ImageAPI(object):
    """What nova_lite needs of an image service (see the module doc)."""

    def get(self, context, image_id):
        """The image, or ImageNotFound (missing, deleted, not visible)."""
        raise NotImplementedError()

    def get_all(self, context, filters=None, limit=None, marker=None):
        """Visible images, newest first (created_at desc, id desc).

        filters: name, status, min_disk, min_ram (at least),
        changes_since (updated or created at or after, a datetime),
        properties ({name: value} the image's properties all have).
        marker: an image id (MarkerNotFound, 400, if not visible), the
        listing continues after it."""
        raise NotImplementedError()

    def create(self, context, name, visibility='private', status='active',
               disk_format='qcow2', container_format='bare', min_disk=0,
               min_ram=0, size=None, checksum=None, properties=None,
               image_id=None, owner=None):
        """A new image record owned by owner (default: context's
        project)."""
        raise NotImplementedError()

    def delete(self, context, image_id):
        """Delete the image (its owner or an admin); ImageNotFound."""
        raise NotImplementedError()

    def update(self, context, image_id, status=None, size=None,
               checksum=None):
        """Set the status (one of STATUSES but 'deleted'), size and
        checksum of the image given (None: left as they are), as an
        upload does (its owner's project or an admin; Forbidden, 403,
        otherwise). Returns the image."""
        raise NotImplementedError()

    def upload(self, context, image_id, data):
        """Keep data (bytes) as a queued image's data: it goes active
        with their size and MD5 checksum (its owner's project or an
        admin; Forbidden, 403, otherwise; Conflict, 409, for an image
        not queued -- uploaded already). Returns the image."""
        raise NotImplementedError()

    def download(self, context, image_id):
        """The data uploaded for a visible image (bytes), or None when
        it has none (a shipped image, a snapshot: records only);
        ImageNotFound."""
        raise NotImplementedError()

    def update_properties(self, context, image_id, properties, purge=False):
        """Set properties of the image (its owner's project or an admin;
        Forbidden, 403, otherwise): merged into the existing ones, or with
        purge replacing them all. Returns the image."""
        raise NotImplementedError()


class API(ImageAPI):
    """ImageAPI on the local-services database."""

    def get(self, context, image_id):
        image = _get(context, image_id)
        if image is None or not _visible(context, image):
            raise exception.ImageNotFound(image_id=image_id)
        return image

    def get_all(self, context, filters=None, limit=None, marker=None):
        return _get_all(context, dict(filters or {}), limit, marker)

    def create(self, context, name, visibility='private', status='active',
               disk_format='qcow2', container_format='bare', min_disk=0,
               min_ram=0, size=None, checksum=None, properties=None,
               image_id=None, owner=None):
        if visibility not in VISIBILITIES:
            raise exception.InvalidInput(
                reason='visibility must be one of %s' % (VISIBILITIES,))
        if status not in STATUSES:
            raise exception.InvalidInput(
                reason='status must be one of %s' % (STATUSES,))
        now = timeutils.utcnow()
        return _create(context, {
            'id': image_id or uuidutils.generate_uuid(), 'name': name,
            'status': status, 'visibility': visibility,
            'owner': owner if owner is not None else context.project_id,
            'disk_format': disk_format,
            'container_format': container_format, 'min_disk': min_disk,
            'min_ram': min_ram, 'size': size, 'checksum': checksum,
            'properties': dict(properties or {}), 'created_at': now,
            'updated_at': None})

    def delete(self, context, image_id):
        _check_may_write(context, self.get(context, image_id))
        _delete(context, image_id)

    def update(self, context, image_id, status=None, size=None,
               checksum=None):
        if status is not None and status not in STATUSES[:-1]:
            raise exception.InvalidInput(
                reason='status must be one of %s' % (STATUSES[:-1],))
        _check_may_write(context, self.get(context, image_id))
        values = {k: v for k, v in (('status', status), ('size', size),
                                    ('checksum', checksum))
                  if v is not None}
        return _update(context, image_id, values)

    def upload(self, context, image_id, data):
        _check_may_write(context, self.get(context, image_id))
        return _upload(context, image_id, data, hashlib.md5(
            data, usedforsecurity=False).hexdigest())

    def download(self, context, image_id):
        self.get(context, image_id)
        return _data(context, image_id)

    def update_properties(self, context, image_id, properties, purge=False):
        image = self.get(context, image_id)
        _check_may_write(context, image)
        merged = {} if purge else dict(image['properties'])
        merged.update(properties)
        return _set_properties(context, image_id, merged)

    def ensure_default_images(self, context):
        """Create DEFAULT_IMAGES (public, active) that do not exist yet."""
        present = _present(context, [i['id'] for i in DEFAULT_IMAGES])
        for index, spec in enumerate(DEFAULT_IMAGES):
            if spec['id'] in present:
                continue
            shipped_at = _shipped_at(index)
            try:
                _create(context, dict(
                    spec, image_id=None, status='active',
                    visibility='public', owner=None,
                    created_at=shipped_at, updated_at=shipped_at))
            except db_exc.DBDuplicateEntry:
                pass   # created concurrently


def _shipped_at(index):
    """The creation time of DEFAULT_IMAGES[index]: a minute apart,
    the first (cirros, at _SHIPPED_AT) the newest."""
    return _SHIPPED_AT - datetime.timedelta(minutes=index)


def _visible(context, image):
    return (image['visibility'] == 'public' or context.is_admin
            or (image['owner'] is not None
                and image['owner'] == context.project_id))


def _check_may_write(context, image):
    """ImageNotAuthorized (403) unless context is an admin or of the
    image's project."""
    if not (context.is_admin or (image['owner'] is not None
                                 and image['owner'] == context.project_id)):
        raise exception.ImageNotAuthorized(image_id=image['id'])


def _to_dict(row):
    image = {name: row[name] for name in FIELDS}
    image['properties'] = jsonutils.loads(row['properties'] or '{}')
    image['size'] = int(row['size']) if row['size'] is not None else None
    return image


def _columns():
    return [IMAGES.c[name] for name in FIELDS]


@ls_db.reader
def _get(context, image_id):
    row = context.session.execute(sa.select(*_columns()).where(
        IMAGES.c.id == image_id, IMAGES.c.deleted == sa.false())).first()
    return _to_dict(row._mapping) if row is not None else None


@ls_db.reader
def _present(context, image_ids):
    return {row.id for row in context.session.execute(
        sa.select(IMAGES.c.id).where(IMAGES.c.id.in_(image_ids)))}


def _visibility_clause(context):
    if context.is_admin:
        return sa.true()
    return sa.or_(IMAGES.c.visibility == 'public',
                  IMAGES.c.owner == context.project_id)


@ls_db.reader
def _get_all(context, filters, limit, marker):
    session = context.session
    query = sa.select(*_columns()).where(
        IMAGES.c.deleted == sa.false(), _visibility_clause(context))
    if filters.get('name') is not None:
        query = query.where(IMAGES.c.name == filters['name'])
    if filters.get('status') is not None:
        query = query.where(IMAGES.c.status == filters['status'])
    if filters.get('min_disk') is not None:
        query = query.where(IMAGES.c.min_disk >= filters['min_disk'])
    if filters.get('min_ram') is not None:
        query = query.where(IMAGES.c.min_ram >= filters['min_ram'])
    if filters.get('changes_since') is not None:
        since = filters['changes_since']
        query = query.where(sa.func.coalesce(
            IMAGES.c.updated_at, IMAGES.c.created_at) >= since)
    if marker is not None:
        mark = session.execute(sa.select(
            IMAGES.c.created_at, IMAGES.c.id).where(
            IMAGES.c.id == marker, IMAGES.c.deleted == sa.false(),
            _visibility_clause(context))).first()
        if mark is None:
            raise exception.MarkerNotFound(marker=marker)
        # Newest first: continue with older rows, ties broken by id.
        query = query.where(sa.or_(
            IMAGES.c.created_at < mark.created_at,
            sa.and_(IMAGES.c.created_at == mark.created_at,
                    IMAGES.c.id < mark.id)))
    query = query.order_by(IMAGES.c.created_at.desc(), IMAGES.c.id.desc())
    wanted = filters.get('properties')
    if not wanted:
        if limit is not None:
            query = query.limit(limit)
        return [_to_dict(row._mapping) for row in session.execute(query)]
    # Properties are one JSON column: matched here, rows read in order
    # until limit of them match.
    found = []
    for row in session.execute(query):
        image = _to_dict(row._mapping)
        props = image['properties']
        if all(k in props and str(props[k]) == v
               for k, v in wanted.items()):
            found.append(image)
            if limit is not None and len(found) >= limit:
                break
    return found


@ls_db.writer
def _create(context, values):
    row = dict(values)
    row.pop('image_id', None)
    row['properties'] = jsonutils.dumps(values.get('properties') or {})
    row['deleted'] = False
    context.session.execute(IMAGES.insert().values(**row))
    return _to_dict(dict(row, properties=row['properties']))


@ls_db.writer
def _set_properties(context, image_id, properties):
    context.session.execute(IMAGES.update().where(
        IMAGES.c.id == image_id).values(
        properties=jsonutils.dumps(properties),
        updated_at=timeutils.utcnow()))
    row = context.session.execute(sa.select(*_columns()).where(
        IMAGES.c.id == image_id)).first()
    return _to_dict(row._mapping)


@ls_db.writer
def _update(context, image_id, values):
    context.session.execute(IMAGES.update().where(
        IMAGES.c.id == image_id).values(updated_at=timeutils.utcnow(),
                                        **values))
    row = context.session.execute(sa.select(*_columns()).where(
        IMAGES.c.id == image_id)).first()
    return _to_dict(row._mapping)


@ls_db.writer
def _upload(context, image_id, data, checksum):
    # Only a queued image takes data: of two uploads racing, one wins.
    if not context.session.execute(IMAGES.update().where(
            IMAGES.c.id == image_id, IMAGES.c.status == 'queued').values(
            status='active', size=len(data), checksum=checksum,
            updated_at=timeutils.utcnow())).rowcount:
        raise exception.Conflict(reason='Image %s is not queued: its data '
                                        'was uploaded already' % image_id)
    context.session.execute(DATA.insert().values(
        image_id=image_id, data=data, created_at=timeutils.utcnow()))
    row = context.session.execute(sa.select(*_columns()).where(
        IMAGES.c.id == image_id)).first()
    return _to_dict(row._mapping)


@ls_db.reader
def _data(context, image_id):
    return context.session.execute(sa.select(DATA.c.data).where(
        DATA.c.image_id == image_id)).scalar()


@ls_db.writer
def _delete(context, image_id):
    context.session.execute(DATA.delete().where(
        DATA.c.image_id == image_id))
    context.session.execute(IMAGES.update().where(
        IMAGES.c.id == image_id).values(
        deleted=True, status='deleted', updated_at=timeutils.utcnow()))
