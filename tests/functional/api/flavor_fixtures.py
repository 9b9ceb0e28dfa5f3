"""A mixed flavor deployment behind the API: some flavors in the API DB,
some only in the legacy tables of the top-level cell DB (cell1)."""
import pytest
import webtest

from nova_lite.api import app as api_app
from nova_lite.db.api import flavors as api_flavors
from tests.functional.api.fixtures import ADMIN
from tests.functional.api.fixtures import version
from tests.functional.db.flavor_helpers import add_legacy
from tests.functional.db.flavor_helpers import api_flavor

# The member token's project (fixtures.MEMBER is bob:project-a).
MEMBER_PROJECT = 'project-a'
API_IDS = ['a1', 'a2', 'a3']
LEGACY_IDS = ['l1', 'l2', 'l3', 'l4']
ALL_IDS = API_IDS + LEGACY_IDS


def in_api_db(ctxt, flavorid):
    return api_flavors.flavorids_present(ctxt, [flavorid]) == {flavorid}


@pytest.fixture
def mixed(api_env):
    """a1 (public, one spec), a2 (private to the member's project), a3
    (disabled) in the API DB; l1 (public, two specs), l2 (public, big,
    swap, ephemeral, rxtx 2.0, described), l3 (private to the member's
    project), l4 (private to another project) only in the legacy tables.

    a1 and a2 are created through the REST API, as an administrator
    would."""
    ctxt = api_env.ctxt
    app = webtest.TestApp(api_app.load_app())
    for flavorid, ram, public in (('a1', 256, True), ('a2', 2048, False)):
        app.post_json('/v2.1/flavors', {'flavor': {
            'name': 'api-' + flavorid[1], 'id': flavorid, 'ram': ram,
            'vcpus': 2, 'disk': 10, 'os-flavor-access:is_public': public}},
            headers=ADMIN)
    app.post_json('/v2.1/flavors/a1/os-extra_specs',
                  {'extra_specs': {'hw:cpu_policy': 'shared'}}, headers=ADMIN)
    app.post_json('/v2.1/flavors/a2/action',
                  {'addTenantAccess': {'tenant': MEMBER_PROJECT}},
                  headers=ADMIN)
    # seeded: no API call creates a disabled flavor (as in Nova).
    api_flavor(ctxt, 'a3', name='api-3', memory_mb=4096, disabled=True)
    # seeded: legacy flavor rows for the online migration; the API only
    # writes the API DB.
    # add_legacy inserts many rows at once: every row names the same
    # columns.
    add_legacy([dict({'description': None}, **row) for row in [
        {'name': 'legacy-1', 'flavorid': 'l1', 'memory_mb': 128},
        {'name': 'legacy-2', 'flavorid': 'l2', 'memory_mb': 3072,
         'root_gb': 40, 'swap': 512, 'ephemeral_gb': 5, 'rxtx_factor': 2.0,
         'vcpus': 4, 'description': 'big one'},
        {'name': 'legacy-3', 'flavorid': 'l3', 'memory_mb': 1024,
         'is_public': False},
        {'name': 'legacy-4', 'flavorid': 'l4', 'memory_mb': 1024,
         'is_public': False}]],
        specs={'l1': {'quota:disk_read_bytes_sec': '5',
                      'hw:mem_page_size': 'large'}},
        projects={'l3': [MEMBER_PROJECT], 'l4': ['other']})
    return api_env


@pytest.fixture
def flavor_app(mixed):
    """The API over the mixed flavors (no services or compute nodes)."""
    return webtest.TestApp(api_app.load_app())


def get(app, path, v=None, token=ADMIN, status=200):
    headers = dict(token)
    if v:
        headers.update(version(v))
    return app.get('/v2.1' + path, headers=headers, status=status).json
