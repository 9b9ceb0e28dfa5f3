"""A boot's cast to the super conductors reaches a queue or fails.

With oslo.messaging's default transient queues, a broker restart drops
the super conductors' queue; a cast sent before a conductor declared it
again was routed nowhere and lost without an error, and the boot the API
had accepted waited in BUILD for ever. The boot cast is published with
the mandatory flag (oslo.messaging's at_least_once transport option):
on RabbitMQ, a cast no queue takes raises MessageUndeliverable, one of
the send failures the API answers with 503 after undoing the boot
(nova_lite.rpc.SEND_FAILURES); with a conductor's queue there it is
delivered as before.
"""
import threading

import oslo_messaging as messaging
import pytest

from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.conf import CONF
from nova_lite import context as nova_context
from nova_lite import rpc


class _SuperConductor(object):
    target = messaging.Target(
        namespace=conductor_rpcapi.COMPUTE_TASK_NAMESPACE, version='1.4')

    def __init__(self):
        self.received = []
        self.event = threading.Event()

    def schedule_and_build_instances(self, context, instance_uuids,
                                     request_spec, requested_networks,
                                     admin_password=None):
        self.received.append(instance_uuids)
        self.event.set()


def test_boot_cast_no_queue_takes_raises_a_send_failure(
        rabbit_transport_url):
    transport = messaging.get_rpc_transport(CONF, url=rabbit_transport_url)
    api = conductor_rpcapi.ComputeTaskAPI(transport=transport)
    ctxt = nova_context.get_admin_context()
    try:
        # No super conductor has declared its queue on this broker.
        with pytest.raises(rpc.SEND_FAILURES) as caught:
            api.schedule_and_build_instances(ctxt, ['u1'], None, 'none')
        assert isinstance(caught.value, messaging.MessageUndeliverable)

        conductor = _SuperConductor()
        server = rpc.get_server(
            messaging.Target(topic=conductor_rpcapi.TOPIC, server='sc'),
            [conductor], transport=transport)
        server.start()
        try:
            api.schedule_and_build_instances(ctxt, ['u2'], None, 'none')
            assert conductor.event.wait(20)
            assert conductor.received == [['u2']]
        finally:
            server.stop()
            server.wait()
    finally:
        transport.cleanup()
