"""What a process hooks into shared code it hooks as its first service
starts (nova_lite.service.prepare_process), never on import: the
instance.update sender on Instance.save and the start hooks of
installed plugins; production code carries no test machinery (the
tests' step hooks come from their plugin, tests/plugin)."""
import os
import subprocess
import sys

import nova_lite_test_hooks as step_hooks
import pytest

import nova_lite
from nova_lite.conductor.tasks import base
from nova_lite.notifications import instance as notify
from nova_lite.objects import instance as instance_obj
from nova_lite import service

PACKAGE_DIR = os.path.dirname(os.path.abspath(nova_lite.__file__))


def test_importing_nova_lite_registers_nothing():
    """Every service's modules imported (the all-in-one imports them
    all): no instance.update sender, no step observer."""
    code = ('import nova_lite.allinone\n'
            'import nova_lite.notifications.instance\n'
            'from nova_lite.conductor.tasks import base\n'
            'from nova_lite.objects import instance\n'
            'print(len(instance.STATE_CHANGE_HOOKS), '
            'len(base.STEP_OBSERVERS))\n')
    out = subprocess.run([sys.executable, '-c', code], check=True,
                         capture_output=True, text=True).stdout
    assert out.split() == ['0', '0']


def test_a_starting_process_registers_the_sender_and_start_hooks(
        monkeypatch):
    monkeypatch.setattr(service, '_prepared', [])
    monkeypatch.setattr(instance_obj, 'STATE_CHANGE_HOOKS', [])
    monkeypatch.setattr(base, 'STEP_OBSERVERS', [])
    # The tests' plugin is installed: its start hook reads this.
    monkeypatch.setenv(step_hooks.FAIL_ENV, 'mapping_swap')
    service.prepare_process()
    service.prepare_process()      # once per process
    assert instance_obj.STATE_CHANGE_HOOKS == [notify._state_changed]
    assert len(base.STEP_OBSERVERS) == 1
    with pytest.raises(step_hooks.SimulatedStepFailure):
        base.step_boundary('mapping_swap')


def test_production_code_carries_no_test_machinery():
    found = []
    for dirpath, _dirs, files in os.walk(PACKAGE_DIR):
        for name in files:
            if not name.endswith('.py'):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding='utf-8') as f:
                text = f.read()
            for word in ('NOVA_LITE_TEST_', 'SimulatedCrash',
                         'SimulatedStepFailure', 'nova_lite_test_hooks'):
                if word in text:
                    found.append('%s: %s' % (
                        os.path.relpath(path, PACKAGE_DIR), word))
    assert found == []
