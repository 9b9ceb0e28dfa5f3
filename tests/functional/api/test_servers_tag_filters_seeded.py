"""The tag filters (2.26) on what no API call holds still: a build
request's own tags, and a statement count over 200 servers (seeded:
booting 200 servers through the API would take minutes). The filters on
booted servers: test_servers_tag_filters.py."""
import datetime
import json

import pytest

from nova_lite.db.api import api as api_db
from nova_lite.db.api import models as api_models
from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import headers
from tests.functional.api.fixtures import MEMBER
from tests.functional.api import server_fixtures as sf
from tests.functional.api.test_servers_list import _statements

T0 = sf.T0


@pytest.fixture
def env(seeded):
    return seeded.env


@pytest.fixture
def small(env):
    return sf.flavor(env.ctxt, 'small')


def names(app, query, v='2.26', token=MEMBER):
    body = app.get('/v2.1/servers?' + query, headers=headers(v, token)).json
    return sorted(s['name'] for s in body['servers'])


@api_db.writer
def _tag_build_request(context, uuid, tags):
    table = api_models.BuildRequest.__table__
    context.session.execute(table.update().where(
        table.c.instance_uuid == uuid).values(tags=json.dumps(tags)))


def test_a_build_requests_tags_are_filtered_too(app, env, small):
    uuid = sf.add_build_request(env, small, name='tagged-build')
    _tag_build_request(env.ctxt, uuid, ['x'])
    assert names(app, 'tags=x') == ['tagged-build']
    assert names(app, 'tags-any=x,y') == ['tagged-build']
    assert names(app, 'not-tags-any=x') == []
    assert names(app, 'not-tags=x,y') == ['tagged-build']
    assert app.get('/v2.1/servers/%s/tags' % uuid,
                   headers=headers('2.26', MEMBER)).json == {'tags': ['x']}


def test_statements_do_not_grow_with_the_servers(app, env, small):
    def fill(n, start):
        for i in range(n):
            sf.add_server(env, 'cell1' if i % 2 else 'cell2', small,
                          created_at=T0 + datetime.timedelta(minutes=start
                                                             + i),
                          tags=['t', 'even' if i % 2 == 0 else 'odd'])
    query = ('/v2.1/servers/detail?all_tenants=1&limit=1000'
             '&tags=t&tags-any=even,odd&not-tags=x,y&not-tags-any=z')
    fill(10, 0)
    few = _statements(app, env, query)
    fill(190, 100)
    many = _statements(app, env, query)
    listed = app.get(query, headers=headers('2.26', ADMIN)).json['servers']
    assert len(listed) == 200
    assert many == few, (few, many)
    odd = app.get('/v2.1/servers?all_tenants=1&limit=1000&tags=odd',
                  headers=headers('2.26', ADMIN)).json['servers']
    assert len(odd) == 100
