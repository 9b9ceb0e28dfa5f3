"""The compute API for a server's tags (/servers/{id}/tags, microversion
2.26).

Reads come from the server's record (a build request carries the tags
it was created with). Replacing or removing every tag changes the
instance in its cell through the Instance object; adding or removing
one tag is one transaction on the instance's tag rows under its row
lock (nova_lite.objects.instance.add_tag), as Nova writes single Tag
rows. Writes are allowed:

- only while the server is active, paused, suspended, stopped, shelved
  or shelved offloaded (409 otherwise, e.g. still building); the state
  is checked again under the row lock when the instance is saved;
- a server carries at most MAX_TAGS tags (TooManyTags, 400); a tag is
  1..60 characters with neither '/' nor ',' (InvalidTag, 400; the API
  validates bodies with its schemas);
- the lock does not apply (as in Nova).
"""
import re

from nova_lite.compute.api import server_metadata as common
from nova_lite import exception
from nova_lite.objects import instance as instance_obj

MAX_TAGS = 50
MAX_TAG_LENGTH = 60
TAG_RE = re.compile(r'^[^,/]*$')
# The vm_states in which a server's tags may change (any task).
TAG_VM_STATES = (instance_obj.ACTIVE, 'paused', 'suspended',
                 instance_obj.STOPPED, 'shelved', 'shelved_offloaded')


def check_tag(tag):
    """InvalidTag (400) unless tag is a valid tag."""
    if not tag:
        raise exception.InvalidTag(tag=tag, reason='It is empty.')
    if len(tag) > MAX_TAG_LENGTH:
        raise exception.InvalidTag(
            tag=tag, reason='It is longer than %d characters.'
            % MAX_TAG_LENGTH)
    if not TAG_RE.match(tag):
        raise exception.InvalidTag(tag=tag, reason='')


def get_all(context, rec):
    """The server's tags, sorted (rec: its record, as
    server_metadata.record returns it)."""
    return sorted(rec.tags)


def exists(context, rec, tag):
    """None if the server has tag; TagNotFound (404) otherwise."""
    if tag not in get_all(context, rec):
        raise exception.TagNotFound(instance_id=rec.uuid, tag=tag)


def _replace(context, rec, tags, action):
    """Make tags the server's tags through its Instance in its cell,
    once it is in a state that allows it; returns them, sorted."""
    common.check_state(rec, action, TAG_VM_STATES)
    with common.instance_in_cell(context, rec, action) as instance:
        common.check_state(instance, action, TAG_VM_STATES)
        instance.tags = sorted(set(tags))
        _save(instance, action)
        return sorted(instance.tags)


def _save(instance, action):
    try:
        instance.save(expected_vm_state=list(TAG_VM_STATES))
    except exception.InstanceInvalidState as exc:
        raise exception.InstanceInvalidState(
            action=action, instance_uuid=instance.uuid, attr='vm_state',
            state=exc.kwargs.get('state'))


def add(context, rec, tag):
    """Add one tag (one transaction in its cell, so concurrent adds
    neither lose a tag nor pass the limit). Returns True if it was
    added, False if the server already had it. At MAX_TAGS tags a server
    takes no tag, not even one it has (TooManyTags, as in Nova)."""
    common.check_state(rec, 'update tag', TAG_VM_STATES)
    check_tag(tag)
    with common.cell_context(context, rec, 'update tag') as cctxt:
        return instance_obj.add_tag(cctxt, rec.uuid, tag, TAG_VM_STATES,
                                    MAX_TAGS)


def check_tags(tags):
    """InvalidTag or TooManyTags (400) unless tags may be a server's
    tags (the REST layer checks them before it looks for the server, as
    Nova answers)."""
    for tag in tags:
        check_tag(tag)
    if len(set(tags)) > MAX_TAGS:
        raise exception.TooManyTags(limit=MAX_TAGS)


def replace(context, rec, tags):
    """Make tags (check_tags) the server's only tags; returns them,
    sorted."""
    check_tags(tags)
    return _replace(context, rec, tags, 'update tags')


def delete(context, rec, tag):
    """Remove one tag; TagNotFound (404) if the server has not it."""
    common.check_state(rec, 'delete tag', TAG_VM_STATES)
    with common.cell_context(context, rec, 'delete tag') as cctxt:
        instance_obj.delete_tag(cctxt, rec.uuid, tag, TAG_VM_STATES)


def delete_all(context, rec):
    """Remove every tag of the server."""
    _replace(context, rec, [], 'delete tags')
