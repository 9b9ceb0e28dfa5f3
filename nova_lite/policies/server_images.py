"""Policy defaults of the server actions rebuild and createImage, as in
Nova 34: a project's members (and administrators) may rebuild a server
(with trusted image certificates, microversion 2.63) and snapshot it
(a volume-backed one too). Another project's server does not exist for
a non-administrator (404, before any of these rules)."""
from nova_lite.policies import base
from nova_lite.policies import servers

REBUILD = servers.SERVERS % 'rebuild'
REBUILD_TRUSTED_CERTS = servers.SERVERS % 'rebuild:trusted_certs'
CREATE_IMAGE = servers.SERVERS % 'create_image'
CREATE_IMAGE_VOLUME_BACKED = (servers.SERVERS
                              % 'create_image:allow_volume_backed')

_ACTION = '/servers/{server_id}/action (%s)'
_rule = servers.server_rule

rules = [
    _rule(REBUILD, base.PROJECT_MEMBER_OR_ADMIN,
          'Rebuild a server.', [('POST', _ACTION % 'rebuild')]),
    _rule(REBUILD_TRUSTED_CERTS, base.PROJECT_MEMBER_OR_ADMIN,
          'Rebuild a server with trusted image certificates '
          '(microversion 2.63).', [('POST', _ACTION % 'rebuild')]),
    _rule(CREATE_IMAGE, base.PROJECT_MEMBER_OR_ADMIN,
          'Create an image from a server.',
          [('POST', _ACTION % 'createImage')]),
    _rule(CREATE_IMAGE_VOLUME_BACKED, base.PROJECT_MEMBER_OR_ADMIN,
          'Create an image from a volume-backed server.',
          [('POST', _ACTION % 'createImage')]),
]


def list_rules():
    return rules
