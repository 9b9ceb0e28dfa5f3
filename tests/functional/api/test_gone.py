"""APIs Nova 34 answers 410 Gone (nova-network's, cells v1, cloudpipe,
agents, certificates, default security-group rules): 410 at every
microversion, to every persona, whatever the body, before any policy
check; an action these routes do not know is a 400, as Nova answers."""
import re

import pytest

from nova_lite.api.openstack.compute import gone
from tests.functional.api.test_nova_fidelity import GONE
from tests.functional.api.test_servers_boot import ADMIN
from tests.functional.api.test_servers_boot import MEMBER
from tests.functional.api.test_servers_boot import OTHER

VERSIONS = ('2.1', '2.36', 'latest')
BODIES = ({}, {'x': {'y': 1}})


@pytest.fixture
def api(running):
    return running.api


def _fill(path):
    return re.sub(r'\{[^}]*\}', 'x1', path)


def test_every_gone_route_answers_410_to_everyone(api):
    wrong = []
    for method, path in gone.ROUTES:
        for version in VERSIONS:
            for token in (ADMIN, MEMBER, OTHER):
                for body in (BODIES if method in ('POST', 'PUT')
                             else (None,)):  # (the body is never read)
                    resp = api(method, _fill(path), body, token=token,
                               version=version)
                    if (resp.status_code != 410 or resp.json() != {
                            'computeFault': {'code': 410,
                                             'message': GONE}}):
                        wrong.append((method, path, version, token, body,
                                      resp.status_code))
    assert wrong == []


def test_gone_actions_answer_410_and_unknown_ones_400(api):
    for path, _controller, names in gone.ACTION_ROUTES:
        for version in ('2.1', '2.36', 'latest'):
            for token in (ADMIN, MEMBER, OTHER):
                for name in names:
                    for value in (None, {}, {'host': 'h'}):
                        resp = api('POST', _fill(path), {name: value},
                                   token=token, version=version)
                        assert resp.status_code == 410, (path, name)
                        assert resp.json()['computeFault']['message'] == (
                            GONE)
                resp = api('POST', _fill(path), {'nope': None},
                           token=token, version=version)
                assert resp.status_code == 400, resp.text
                resp = api('POST', _fill(path), {}, token=token,
                           version=version)
                assert resp.status_code == 400, resp.text


def test_other_methods_of_gone_paths_are_refused_without_a_5xx(api):
    served = set(gone.ROUTES)
    for _method, path in gone.ROUTES:
        for method in ('GET', 'POST', 'PUT', 'DELETE'):
            if (method, path) in served:
                continue
            resp = api(method, _fill(path), {} if method in (
                'POST', 'PUT') else None, token=MEMBER)
            # (GET /os-networks[/{id}] and /os-tenant-networks[/{id}]
            # are the network proxies below 2.36.)
            assert resp.status_code in (200, 404, 405, 410), (method, path)
