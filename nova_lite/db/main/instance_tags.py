"""One tag of an instance added or removed atomically.

Each function is one transaction that first takes the instance row's
write lock (instance_lock.lock_row), so that the state check, the count of its
tags and the write see the same instance: two requests adding tags at
once cannot lose one or pass the limit together. (Replacing every tag
goes through Instance.save(), a whole-set write.)
"""
import sqlalchemy as sa

from nova_lite.db.main import api as main_db
from nova_lite.db.main import instance_lock
from nova_lite.db.main import models
from nova_lite import exception

INST = models.Instance.__table__
TAGS = models.Tag.__table__


def _lock(session, uuid, vm_states, action):
    """Lock the live instance's row and check its vm_state;
    InstanceNotFound or InstanceInvalidState (nothing written)."""
    instance_lock.lock_row(session, uuid)
    state = session.execute(sa.select(INST.c.vm_state).where(
        INST.c.uuid == uuid, INST.c.deleted == 0)).scalar()
    if state not in vm_states:
        raise exception.InstanceInvalidState(
            action=action, instance_uuid=uuid, attr='vm_state', state=state)


def _tags(session, uuid):
    return sorted(session.execute(sa.select(TAGS.c.tag).where(
        TAGS.c.resource_id == uuid)).scalars())


@main_db.writer
def add(context, uuid, tag, vm_states, max_tags):
    """Add tag to the instance if it is in one of vm_states. At max_tags
    tags it takes none, not even one it has (TooManyTags, as in Nova).
    Returns whether the tag was added (False: it was there)."""
    session = context.session
    _lock(session, uuid, vm_states, 'update tag')
    tags = _tags(session, uuid)
    if len(tags) >= max_tags:
        raise exception.TooManyTags(limit=max_tags)
    if tag in tags:
        return False
    session.execute(TAGS.insert().values(resource_id=uuid, tag=tag))
    return True


@main_db.writer
def delete(context, uuid, tag, vm_states):
    """Remove tag from the instance if it is in one of vm_states;
    TagNotFound if it has not that tag."""
    session = context.session
    _lock(session, uuid, vm_states, 'delete tag')
    if not session.execute(TAGS.delete().where(
            TAGS.c.resource_id == uuid, TAGS.c.tag == tag)).rowcount:
        raise exception.TagNotFound(instance_id=uuid, tag=tag)
