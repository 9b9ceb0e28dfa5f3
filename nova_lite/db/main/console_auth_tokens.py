"""Remote console tokens of one cell database (console_auth_tokens).

A token is stored as its sha256 only. It is valid until its expiry
while its server is not deleted and still on the host it was issued on
(a deleted or moved server's tokens are dead without anyone having to
delete them; expired rows are swept when a new token is stored). Every
function is one or two statements.
"""
import hashlib

import sqlalchemy as sa

from nova_lite.db.main import api as main_db
from nova_lite.db.main import models

TOKENS = models.ConsoleAuthToken.__table__
INSTANCES = models.Instance.__table__

COLUMNS = ('console_type', 'host', 'port', 'tls_port',
           'internal_access_path', 'instance_uuid', 'expires',
           'access_url_base')


def token_hash(token):
    return hashlib.sha256(token.encode('utf-8')).hexdigest()


@main_db.writer
def create(context, token, values, now):
    """Store token (values: COLUMNS and instance_host), sweeping the
    tokens that expired by now (unix time). Two statements."""
    context.session.execute(TOKENS.delete().where(TOKENS.c.expires <= now))
    context.session.execute(TOKENS.insert().values(
        token_hash=token_hash(token), **values))


@main_db.reader
def validate(context, token, now):
    """The token's record (COLUMNS) if it is valid at now (unix time),
    else None. One statement."""
    c = TOKENS.c
    row = context.session.execute(
        sa.select(*[c[name] for name in COLUMNS]).select_from(
            TOKENS.join(INSTANCES, INSTANCES.c.uuid == c.instance_uuid))
        .where(c.token_hash == token_hash(token), c.expires > now,
               INSTANCES.c.deleted == 0,
               INSTANCES.c.hidden == sa.false(),
               INSTANCES.c.host == c.instance_host)).first()
    return None if row is None else dict(zip(COLUMNS, row))


@main_db.writer
def delete_for_instance(context, instance_uuid):
    """Forget every token of a server. One statement."""
    context.session.execute(TOKENS.delete().where(
        TOKENS.c.instance_uuid == instance_uuid))
