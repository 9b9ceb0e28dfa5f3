"""Schemas of /servers/{id}/tags (microversion 2.26)."""
from nova_lite.compute.api import server_tags

# One tag (in a body, or in the URL of PUT /servers/{id}/tags/{tag}).
tag = {'type': 'string', 'minLength': 1,
       'maxLength': server_tags.MAX_TAG_LENGTH,
       'pattern': server_tags.TAG_RE.pattern}

# PUT /servers/{id}/tags
update_all = {
    'type': 'object',
    'properties': {'tags': {'type': 'array', 'items': tag,
                            'maxItems': server_tags.MAX_TAGS}},
    'required': ['tags'],
    'additionalProperties': False,
}
