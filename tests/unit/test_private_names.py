"""No module reaches into another module's private names.

A name starting with one underscore is its module's own business: another
module of nova_lite may neither import it (``from x import _name``, or a
private module such as ``from lib._impl import y``) nor read it through a
module it imported (``other_module._name``). Library internals we cannot
do without are reached only from ``nova_lite/_compat/`` (one module per
library, each with a canary test; doc/private-apis.rst lists them).
"""
import ast
import os

import nova_lite

PACKAGE_DIR = os.path.dirname(os.path.abspath(nova_lite.__file__))
COMPAT_DIR = os.path.join(PACKAGE_DIR, '_compat')


# The one package whose purpose is to hold library internals.
COMPAT = 'nova_lite._compat'


def _private(name):
    return name.startswith('_') and not name.startswith('__') and name != '_'


def _module_of(path):
    root = os.path.dirname(PACKAGE_DIR)
    mod = os.path.relpath(path, root)[:-3].replace(os.sep, '.')
    return mod[:-len('.__init__')] if mod.endswith('.__init__') else mod


def private_reaches(source, mod, is_package=False):
    """[(line, what)] for every cross-module private access in source."""
    tree = ast.parse(source)
    package = mod if is_package else mod.rpartition('.')[0]
    modules = {}      # local name bound by an import -> dotted module
    found = []
    attributes = []   # read once imports are known (one walk of the tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            attributes.append(node)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if any(_private(p) for p in alias.name.split('.')):
                    found.append((node.lineno, 'import %s' % alias.name))
                local = alias.asname or alias.name.split('.')[0]
                modules[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                parts = package.split('.')
                parts = parts[:len(parts) - node.level + 1]
                base = '.'.join(parts + ([base] if base else []))
            if base != COMPAT and not base.startswith(COMPAT + '.') and any(
                    _private(p) for p in base.split('.')):
                found.append((node.lineno, 'from %s import ...' % base))
            for alias in node.names:
                # A package's private module is its own modules' to share.
                if _private(alias.name) and base != package:
                    found.append((node.lineno,
                                  'from %s import %s' % (base, alias.name)))
                modules[alias.asname or alias.name] = base + '.' + alias.name
    for node in attributes:
        if (_private(node.attr) and isinstance(node.value, ast.Name)
                and node.value.id in modules):
            found.append((node.lineno, '%s.%s (%s)' % (
                node.value.id, node.attr, modules[node.value.id])))
    return sorted(found)


def _every_module():
    for dirpath, _dirs, files in os.walk(PACKAGE_DIR):
        if dirpath == COMPAT_DIR or dirpath.startswith(COMPAT_DIR + os.sep):
            continue
        for name in sorted(files):
            if name.endswith('.py'):
                yield os.path.join(dirpath, name)


def test_no_module_reaches_into_another_modules_private_names():
    found = []
    for path in _every_module():
        with open(path, encoding='utf-8') as f:
            source = f.read()
        for line, what in private_reaches(
                source, _module_of(path), path.endswith('__init__.py')):
            found.append('%s:%d %s' % (
                os.path.relpath(path, PACKAGE_DIR), line, what))
    assert found == []


def test_the_checker_sees_each_kind_of_reach():
    source = '\n'.join([
        'from nova_lite.compute import servers',
        'from nova_lite.objects.base import _helper',
        'from oslo_messaging._drivers import impl_fake',
        'import pecan.routing as routing',
        'servers._rule(1)',
        'routing._lookup_controller',
        'servers.public(1)',
        'self._mine()',
    ])
    found = [what for _line, what in private_reaches(source, 'nova_lite.x')]
    assert found == [
        'from nova_lite.objects.base import _helper',
        'from oslo_messaging._drivers import ...',
        'servers._rule (nova_lite.compute.servers)',
        'routing._lookup_controller (pecan.routing)',
    ]
