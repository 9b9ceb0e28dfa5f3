"""nova_lite.image.api on the local-services database (SQLite): the
shipped images, visibility, listing order, filters and markers."""
import datetime

import pytest

from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite.image import api as image_api

CIRROS = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
SHIPPED = [i['id'] for i in image_api.DEFAULT_IMAGES]


@pytest.fixture
def api():
    return image_api.API()


@pytest.fixture
def other(cells_env):
    return nova_context.RequestContext(user_id='u2', project_id='p2')


def test_shipped_cirros_is_public_and_active(api, user):
    image = api.get(user, CIRROS)
    assert image['name'] == 'cirros-0.6.2-x86_64-disk'
    assert (image['status'], image['visibility']) == ('active', 'public')
    assert sorted(image) == sorted(image_api.FIELDS)
    assert isinstance(image['created_at'], datetime.datetime)
    assert image['properties']['os_distro'] == 'cirros'


def test_ensure_default_images_twice_keeps_three(api, admin):
    api.ensure_default_images(admin)
    api.ensure_default_images(admin)
    assert sorted(i['id'] for i in api.get_all(admin)) == sorted(SHIPPED)


def test_private_image_seen_by_owner_and_admin_only(api, admin, user,
                                                    other):
    image = api.create(user, 'mine', properties={'k': 'v'}, size=10)
    assert image['owner'] == 'p1'
    assert api.get(user, image['id'])['properties'] == {'k': 'v'}
    assert api.get(admin, image['id'])['id'] == image['id']
    with pytest.raises(exception.ImageNotFound) as err:
        api.get(other, image['id'])
    assert err.value.code == 404
    assert image['id'] not in [i['id'] for i in api.get_all(other)]
    assert image['id'] in [i['id'] for i in api.get_all(user)]


def test_missing_image_is_not_found(api, user):
    with pytest.raises(exception.ImageNotFound):
        api.get(user, '00000000-0000-0000-0000-00000000dead')


def test_list_newest_first_with_marker_and_limit(api, user):
    made = [api.create(user, 'img%d' % i, visibility='public')['id']
            for i in range(3)]
    listed = [i['id'] for i in api.get_all(user)]
    # Created later, listed earlier; the shipped images are the oldest.
    assert set(listed[:3]) == set(made)
    assert set(listed[3:]) == set(SHIPPED)
    page1 = [i['id'] for i in api.get_all(user, limit=2)]
    page2 = [i['id'] for i in api.get_all(user, limit=2, marker=page1[-1])]
    rest = [i['id'] for i in api.get_all(user, marker=page2[-1])]
    assert page1 + page2 + rest == listed


def test_unknown_marker_is_400(api, user):
    with pytest.raises(exception.MarkerNotFound):
        api.get_all(user, marker='00000000-0000-0000-0000-00000000dead')


def test_filters(api, user):
    assert [i['name'] for i in api.get_all(
        user, filters={'name': 'cirros-0.6.2-x86_64-disk'})] == [
        'cirros-0.6.2-x86_64-disk']
    assert {i['id'] for i in api.get_all(
        user, filters={'min_ram': 300})} == {SHIPPED[1]}
    assert {i['id'] for i in api.get_all(
        user, filters={'min_disk': 2})} == {SHIPPED[1], SHIPPED[2]}
    queued = api.create(user, 'q', status='queued')
    assert [i['id'] for i in api.get_all(
        user, filters={'status': 'queued'})] == [queued['id']]
    since = datetime.datetime(2026, 6, 1)
    assert [i['id'] for i in api.get_all(
        user, filters={'changes_since': since})] == [queued['id']]


def test_delete_hides_the_image(api, user, other):
    image = api.create(user, 'gone', visibility='public')
    with pytest.raises(exception.Forbidden):
        api.delete(other, image['id'])
    api.delete(user, image['id'])
    with pytest.raises(exception.ImageNotFound):
        api.get(user, image['id'])
    with pytest.raises(exception.ImageNotFound):
        api.delete(user, image['id'])


def test_create_rejects_bad_visibility(api, user):
    with pytest.raises(exception.InvalidInput):
        api.create(user, 'x', visibility='shared-ish')
