"""Compute RPC 1.17: evacuate_instance and
check_can_live_migrate_destination carry the request spec only to a
destination that speaks 1.17 (an older one gets the 1.14 / 1.15 call
it knows, without it)."""
from nova_lite.compute import rpcapi


class _Prepared(object):
    def __init__(self, sent, version):
        self.sent = sent
        self.version = version

    def cast(self, context, method, **kwargs):
        self.sent.append((self.version, method, kwargs))

    call = cast


class _Client(object):
    def __init__(self, sent):
        self.sent = sent

    def prepare(self, server=None, version=None, timeout=None,
                call_monitor_timeout=None):
        return _Prepared(self.sent, version)


def _api(speaks_1_17):
    api = rpcapi.ComputeAPI()
    sent = []
    api._client = lambda context, host: _Client(sent)
    api.can_send = lambda context, host, version: (
        speaks_1_17 or version != rpcapi.GROUP_CHECK_VERSION)
    return api, sent


def test_evacuate_sends_the_spec_only_at_1_17():
    for speaks, version, has_spec in ((True, '1.17', True),
                                      (False, '1.14', False)):
        api, sent = _api(speaks)
        api.evacuate_instance(None, 'h', 'inst', 'mig',
                              request_spec='spec')
        assert sent[0][0] == version
        assert ('request_spec' in sent[0][2]) is has_spec
    api, sent = _api(True)
    api.evacuate_instance(None, 'h', 'inst', 'mig')
    assert sent[0][0] == '1.14' and 'request_spec' not in sent[0][2]


def test_live_destination_check_sends_the_spec_only_at_1_17():
    for speaks, version, has_spec in ((True, '1.17', True),
                                      (False, '1.15', False)):
        api, sent = _api(speaks)
        api.check_can_live_migrate_destination(
            None, 'h', 'inst', 'mig', None, None, request_spec='spec')
        assert sent[0][0] == version
        assert ('request_spec' in sent[0][2]) is has_spec
