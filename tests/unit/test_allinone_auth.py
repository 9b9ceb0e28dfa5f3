"""The all-in-one runs noauth2 unless a config file asks for Keystone."""
from nova_lite import allinone


def test_noauth2_by_default_but_a_config_file_may_choose_keystone(
        tmp_path, conf):
    keystone_conf = tmp_path / 'keystone-auth.conf'
    keystone_conf.write_text('[api]\nauth_strategy = keystone\n')
    allinone.configure(str(tmp_path / 'state'))
    try:
        assert conf.api.auth_strategy == 'noauth2'
        conf(['--config-file', str(keystone_conf)], project='nova_lite',
             default_config_files=[])
        assert conf.api.auth_strategy == 'keystone'
        allinone.write_config(str(tmp_path / 'state'), '127.0.0.1', 8774)
        written = (tmp_path / 'state' / 'nova_lite.conf').read_text()
        assert 'auth_strategy = keystone' in written
    finally:
        allinone.unconfigure()
    # unconfigure() gives the option its own default back.
    conf([], project='nova_lite', default_config_files=[])
    assert conf.api.auth_strategy == 'keystone'
