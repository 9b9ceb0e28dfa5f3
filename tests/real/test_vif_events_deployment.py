"""network-vif-plugged across processes (tests/real/conftest.py
shared_deployment: MariaDB, RabbitMQ, 2 cells x 2 computes, every
service its own process): the embedded network service of a compute
process sends the event over HTTP to the API process's
/os-server-external-events ([external_events] of the deployment's
configs, as Neutron's [nova] section), the API routes it to that
compute over its cell's vhost, and the build waits for it with
[DEFAULT] vif_plugging_timeout / vif_plugging_is_fatal.

One compute is restarted with a simulated notifier lag (the OS_* form
of [local_services] vif_plugged_event_delay, read by oslo.config from
the environment): the build waits in spawning with its port already
ACTIVE, then goes ACTIVE once the event came; with a lag longer than
the timeout the build fails there and is rescheduled, and having no
alternate (the request names the host) ends in ERROR with the retries'
fault, ports freed. The compute is restarted with its plain config
afterwards.
"""
import time

import pytest

from tests.functional.conftest import wait_for
from tests.real.test_deployment import api

IMAGE = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
HOST = 'cell1-compute1'
DELAY = 'OS_LOCAL_SERVICES__VIF_PLUGGED_EVENT_DELAY'
TIMEOUT = 'OS_DEFAULT__VIF_PLUGGING_TIMEOUT'


def _restart(dep, env=None):
    """HOST again (with env), once its service reports up after the
    restart."""
    dep.terminate(HOST)
    since = time.time()
    dep.respawn(HOST, env=env)

    def reported():
        status, body = api(dep, 'GET', '/os-services?host=%s' % HOST)
        for svc in body['services']:
            if svc['binary'] == 'nova-compute' and svc['state'] == 'up' \
                    and svc['updated_at'] and _epoch(svc['updated_at']) \
                    > since:
                return True
        return False
    wait_for(reported, timeout=90, message='%s reporting again' % HOST)


def _epoch(stamp):
    import calendar
    import datetime
    parsed = datetime.datetime.strptime(stamp[:19], '%Y-%m-%dT%H:%M:%S')
    return calendar.timegm(parsed.timetuple())


@pytest.fixture(scope='module')
def deployment(shared_deployment):
    dep = shared_deployment
    api(dep, 'POST', '/flavors', {'flavor': {
        'name': 'vif.tiny', 'id': 'vif.tiny', 'ram': 64, 'vcpus': 1,
        'disk': 0}})
    try:
        yield dep
    finally:
        _restart(dep)
        api(dep, 'DELETE', '/flavors/vif.tiny')


def _boot(dep):
    status, body = api(dep, 'POST', '/servers', {'server': {
        'name': 'vif', 'flavorRef': 'vif.tiny', 'imageRef': IMAGE,
        'networks': 'auto', 'host': HOST}}, version='2.74')
    assert status == 202, body
    return body['server']['id']


def _server(dep, uuid):
    return api(dep, 'GET', '/servers/%s' % uuid)[1]['server']


def _ports(dep, uuid):
    status, body = api(dep, 'GET', '/ports?device_id=%s' % uuid,
                       prefix='/networking/v2.0')
    assert status == 200, body
    return body['ports']


def _delete(dep, uuid):
    assert api(dep, 'DELETE', '/servers/%s' % uuid)[0] == 204
    wait_for(lambda: api(dep, 'GET', '/servers/%s' % uuid)[0] == 404,
             timeout=60, message='deleted')


def test_build_waits_for_the_event_sent_over_http(deployment):
    dep = deployment
    _restart(dep, {DELAY: '4'})
    uuid = _boot(dep)
    # Plugged (the compute told the network service: ACTIVE) and the
    # event not in yet: the build waits in spawning.
    wait_for(lambda: [p['status'] for p in _ports(dep, uuid)]
             == ['ACTIVE'], timeout=60, message='port plugged')
    server = _server(dep, uuid)
    assert (server['status'], server['OS-EXT-STS:task_state']) == (
        'BUILD', 'spawning'), server
    wait_for(lambda: _server(dep, uuid)['status'] == 'ACTIVE', timeout=60,
             message='ACTIVE once the event came')
    assert _ports(dep, uuid)[0]['binding:host_id'] == HOST
    _delete(dep, uuid)


def test_missing_event_fails_the_build(deployment):
    dep = deployment
    _restart(dep, {DELAY: '600', TIMEOUT: '3'})
    uuid = _boot(dep)
    wait_for(lambda: _server(dep, uuid)['status'] == 'ERROR', timeout=90,
             message='ERROR after the timeout')
    server = _server(dep, uuid)
    # Rescheduled, with no alternate to go to (the host was asked for).
    assert server['fault']['message'].startswith(
        'Exceeded maximum number of retries.'), server['fault']
    assert _ports(dep, uuid) == []
    _delete(dep, uuid)
