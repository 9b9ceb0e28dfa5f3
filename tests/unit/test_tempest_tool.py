"""tools/tempest.py: what it tells Tempest about nova_lite."""
import importlib.util
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _tool():
    spec = importlib.util.spec_from_file_location(
        'nova_lite_tempest_tool', os.path.join(ROOT, 'tools', 'tempest.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_interop_list_is_the_guidelines_81_compute_tests():
    tests = _tool().interop_tests()
    assert len(tests) == len(set(tests)) == 81
    assert all(t.startswith('tempest.api.compute.') for t in tests)


def test_features_follow_the_route_table():
    from nova_lite.api.openstack.compute import routes
    actions = {a.name for r in routes.ROUTES for a in r.actions}
    features = _tool().features()
    assert set(features.values()) <= {'true', 'false', 'all'}
    assert features['resize'] == 'true'
    assert features['pause'] == 'true'
    # Each feature said to be there is served.
    for feature, action in (('shelve', 'shelve'), ('rescue', 'rescue'),
                            ('live_migration', 'os-migrateLive'),
                            ('console_output', 'os-getConsoleOutput'),
                            ('change_password', 'changePassword')):
        assert (features[feature] == 'true') == (action in actions)


def test_results_reader_and_report(capsys):
    tool = _tool()
    results = [{'id': 'a.b[id-1]', 'status': 'success', 'reason': None},
               {'id': 'a.c[id-2]', 'status': 'fail', 'reason': None},
               {'id': 'a.d[id-3]', 'status': 'skip', 'reason': 'No X'},
               {'id': 'a.e[id-4]', 'status': 'skip', 'reason': 'No X'}]
    assert tool.report(results) == 1
    out = capsys.readouterr().out
    assert 'FAIL a.c[id-2]' in out
    assert 'SKIP x2: No X' in out
    assert out.strip().endswith('passed 1, failed 1, skipped 2')
    assert re.search(r'import subunit', tool._RESULTS)


def test_min_compute_nodes_counts_one_cells_computes():
    tool = _tool()

    class Dep(object):
        def __init__(self, cells, computes_per_cell):
            self.cells, self.computes_per_cell = cells, computes_per_cell

    assert tool.min_compute_nodes(Dep(1, 2)) == 2
    assert tool.min_compute_nodes(Dep(1, 1)) == 1
    # Tempest's "another host" may be in another cell: moves stay in one.
    assert tool.min_compute_nodes(Dep(2, 2)) == 1


def test_scheduler_filters_are_the_deployments(tmp_path):
    """Tempest is told the filters the scheduler runs (not "all"): the
    same_host/different_host tests run only when their filters are on."""
    tool = _tool()
    assert 'scheduler_enabled_filters' not in tool.features()
    conf = tmp_path / 'top.conf'
    conf.write_text('[DEFAULT]\nhost = top\n')
    assert tool.scheduler_filters(str(conf)) == (
        'ComputeFilter,AvailabilityZoneFilter,'
        'ServerGroupAntiAffinityFilter,ServerGroupAffinityFilter')
    conf.write_text('[filter_scheduler]\nenabled_filters = ComputeFilter, '
                    'SameHostFilter,NoSuchFilter,DifferentHostFilter\n')
    assert tool.scheduler_filters(str(conf)) == (
        'ComputeFilter,SameHostFilter,DifferentHostFilter')


def test_validation_logs_into_guests_that_answer_ssh():
    class Dep(object):
        guest_ssh = True

    validation = _tool().validation(Dep())
    assert validation['run_validation'] == 'true'
    assert validation['connect_method'] == 'fixed'
    assert validation['network_for_ssh'] == 'private'
    # Tempest generates an ECDSA key and imports it (2.92 makes none).
    assert validation['ssh_key_type'] == 'ecdsa'
    assert validation['image_ssh_user'] == validation['image_alt_ssh_user']
    Dep.guest_ssh = False
    assert _tool().validation(Dep()) == {'run_validation': 'false'}
