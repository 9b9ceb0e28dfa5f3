"""doc/private-apis.rst lists exactly the library internals each
nova_lite/_compat module declares it uses (its INTERNALS), and every
module there declares them and has a canary test."""
import importlib
import os
import pkgutil
import re

import nova_lite
from nova_lite import _compat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(nova_lite.__file__)))
DOC = os.path.join(ROOT, 'doc', 'private-apis.rst')
HERE = os.path.dirname(os.path.abspath(__file__))


def _modules():
    return sorted(info.name for info in pkgutil.iter_modules(_compat.__path__))


def _documented():
    """{module: [internal, ...]} from the doc's per-module lists."""
    lines = open(DOC, encoding='utf-8').read().splitlines()
    found, current = {}, None
    for i, line in enumerate(lines):
        underline = lines[i + 1] if i + 1 < len(lines) else ''
        heading = underline and set(underline) in ({'-'}, {'='}) and \
            len(underline) >= len(line) > 0
        if heading:
            match = re.match(r'``nova_lite/_compat/(\w+)\.py``', line)
            current = found.setdefault(match.group(1), []) if match else None
            continue
        item = re.match(r'- ``(.+)``$', line)
        if current is not None and item:
            current.append(item.group(1))
    return found


def test_the_doc_lists_exactly_what_each_compat_module_uses():
    documented = _documented()
    assert sorted(documented) == _modules()
    for name in _modules():
        module = importlib.import_module('nova_lite._compat.' + name)
        assert len(set(module.INTERNALS)) == len(module.INTERNALS), name
        assert sorted(documented[name]) == sorted(module.INTERNALS), name


def test_every_compat_module_has_a_canary():
    for name in _modules():
        assert os.path.exists(os.path.join(HERE, 'test_%s.py' % name)), name


def test_the_doc_checker_sees_items():
    documented = _documented()
    assert 'oslo_policy._checks.inspect' in documented['oslo_policy']
