"""The removed [DEFAULT] rpc_response_timeout_seconds still sets the RPC
timeout (deprecated), unless oslo.messaging's rpc_response_timeout is set."""
from oslo_config import cfg
import pytest

from nova_lite.conf import default


@pytest.fixture
def parse(tmp_path):
    def parse(text):
        path = tmp_path / 'nova_lite.conf'
        path.write_text('[DEFAULT]\n' + text)
        conf = cfg.ConfigOpts()
        default.register_opts(conf)
        conf(['--config-file', str(path)], project='nova_lite')
        default.apply_deprecated_options(conf)
        return conf
    return parse


def test_old_name_sets_the_rpc_timeout(parse):
    assert parse('rpc_response_timeout_seconds = 7\n') \
        .rpc_response_timeout == 7


def test_new_name_wins_over_the_old(parse):
    conf = parse('rpc_response_timeout_seconds = 7\n'
                 'rpc_response_timeout = 9\n')
    assert conf.rpc_response_timeout == 9


def test_neither_name_keeps_oslo_messaging_default(parse):
    assert parse('').rpc_response_timeout == 60


def test_oslo_messaging_options_register_before_a_transport(parse):
    conf = parse('transport_url = inproc:///\ncontrol_exchange = x\n')
    assert (conf.transport_url, conf.control_exchange) == ('inproc:///', 'x')
