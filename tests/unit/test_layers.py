"""The import graph of nova_lite follows the layers of DESIGN.md.

Every ``import``/``from ... import`` of a nova_lite module anywhere in a
module (at its top or inside a function) is an edge. The graph must have
no cycle, no edge may run up the layers, and no import of another nova_lite
package may hide inside a function (except those listed in
FUNCTION_LEVEL_ALLOWED, each with the reason start-up order needs it).
"""
import ast
import os

import nova_lite

PACKAGE_DIR = os.path.dirname(os.path.abspath(nova_lite.__file__))

# Lowest first; a module may import its own layer (if no cycle forms) and
# the layers below it. Keys are module names or package prefixes.
LAYERS = [
    # Library internals, fenced in: they import libraries only (below).
    ('_compat', ['nova_lite._compat']),
    ('plumbing', ['nova_lite', 'nova_lite.conf', 'nova_lite.constants',
                  'nova_lite.exception', 'nova_lite.utils',
                  'nova_lite.policies', 'nova_lite.policy', 'nova_lite.rpc',
                  'nova_lite.inproc_transport',
                  'nova_lite.baserpc', 'nova_lite.context']),
    ('data', ['nova_lite.db', 'nova_lite.virt', 'nova_lite.image',
              'nova_lite.network', 'nova_lite.volume',
              'nova_lite.share']),
    ('objects', ['nova_lite.objects', 'nova_lite.placement',
                 'nova_lite.quota']),
    # Payloads are built from objects; services emit them.
    ('notifications', ['nova_lite.notifications']),
    ('online migrations', ['nova_lite.online_migrations']),
    ('services', ['nova_lite.compute', 'nova_lite.conductor',
                  'nova_lite.scheduler', 'nova_lite.service']),
    ('api', ['nova_lite.api']),
    ('entry points', ['nova_lite.cmd', 'nova_lite.allinone',
                      'nova_lite.wsgi', 'nova_lite.config']),
]

# (importer, imported) -> why it must run inside a function.
FUNCTION_LEVEL_ALLOWED = {}


def _modules():
    mods = {}
    root = os.path.dirname(PACKAGE_DIR)
    for dirpath, _dirs, files in os.walk(PACKAGE_DIR):
        for name in files:
            if name.endswith('.py'):
                path = os.path.join(dirpath, name)
                mod = os.path.relpath(path, root)[:-3].replace(os.sep, '.')
                if mod.endswith('.__init__'):
                    mod = mod[:-len('.__init__')]
                mods[mod] = path
    return mods


MODULES = _modules()


def _resolve(name):
    """The nova_lite module an imported dotted name lives in."""
    while name and name not in MODULES:
        name = name.rpartition('.')[0]
    return name or None


def _imports(mod, path):
    """[(imported module, inside a function?)] of one module."""
    tree = ast.parse(open(path, encoding='utf-8').read(), path)
    package = mod if path.endswith('__init__.py') else mod.rpartition('.')[0]
    found = []

    def names(node):
        if isinstance(node, ast.Import):
            return [a.name for a in node.names]
        if isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                parts = package.split('.')
                parts = parts[:len(parts) - node.level + 1]
                base = '.'.join(parts + ([base] if base else []))
            return [base + '.' + a.name for a in node.names]
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == '__import__' and node.args
                and isinstance(node.args[0], ast.Constant)):
            return [node.args[0].value]
        return []

    def walk(node, in_function):
        for child in ast.iter_child_nodes(node):
            for name in names(child):
                if name.split('.')[0] == 'nova_lite':
                    target = _resolve(name)
                    if target and target != mod:
                        found.append((target, in_function))
            walk(child, in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))
    walk(tree, False)
    return found


GRAPH = {mod: _imports(mod, path) for mod, path in MODULES.items()}


def layer_of(mod):
    best, rank = None, None
    for i, (_name, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if mod == prefix or mod.startswith(prefix + '.'):
                if best is None or len(prefix) > len(best):
                    best, rank = prefix, i
    return rank


def test_every_module_has_a_layer():
    assert [m for m in MODULES if layer_of(m) is None] == []


def test_imports_run_down_the_layers():
    upward = sorted(
        '%s (%s) imports %s (%s)' % (mod, LAYERS[layer_of(mod)][0], target,
                                     LAYERS[layer_of(target)][0])
        for mod, imports in GRAPH.items() for target, _ in imports
        if layer_of(target) > layer_of(mod))
    assert upward == []


def _package(mod):
    """nova_lite.objects for nova_lite.objects.flavor; a module directly
    in nova_lite (context, rpc, ...) is a package of its own."""
    return '.'.join(mod.split('.')[:2])


def test_compat_imports_libraries_only():
    """nova_lite._compat holds what a library keeps private; it knows
    nothing of nova_lite (its own package aside)."""
    assert sorted(
        '%s imports %s' % (mod, target)
        for mod, imports in GRAPH.items() for target, _ in imports
        if layer_of(mod) == 0 and layer_of(target) != 0) == []


def test_no_function_level_imports_between_packages():
    hidden = sorted(
        '%s -> %s' % (mod, target)
        for mod, imports in GRAPH.items() for target, in_function in imports
        if in_function and _package(mod) != _package(target)
        and (mod, target) not in FUNCTION_LEVEL_ALLOWED)
    assert hidden == []


def _cycles():
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, comps = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w, _ in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return comps


def test_no_import_cycles():
    assert _cycles() == []


def test_the_checker_sees_function_level_imports_and_cycles():
    """The graph builder itself: a function-level import is an edge."""
    found = _imports('nova_lite.x', __file__)
    assert ('nova_lite', False) in found


def _within(mod, prefix):
    return mod == prefix or mod.startswith(prefix + '.')


# The compute API (nova_lite.compute.api) is all the REST layer may import
# of nova_lite.compute; the compute API in turn imports of nova_lite.compute
# only itself and the modules it shares with the nova-compute service:
# the compute RPC client, instance action recording and block device
# mappings. So neither the REST layer nor the compute API ever imports the
# nova-compute service.
COMPUTE_API = 'nova_lite.compute.api'
COMPUTE_SHARED = ('nova_lite.compute.rpcapi',
                  'nova_lite.compute.instance_events',
                  'nova_lite.compute.block_devices')


def test_rest_layer_imports_only_the_compute_api():
    reaching = sorted(
        '%s imports %s' % (mod, target)
        for mod, imports in GRAPH.items() if _within(mod, 'nova_lite.api')
        for target, _ in imports
        if _within(target, 'nova_lite.compute')
        and not _within(target, COMPUTE_API))
    assert reaching == []


def test_compute_api_imports_no_compute_service_module():
    reaching = sorted(
        '%s imports %s' % (mod, target)
        for mod, imports in GRAPH.items() if _within(mod, COMPUTE_API)
        for target, _ in imports
        if _within(target, 'nova_lite.compute')
        and not _within(target, COMPUTE_API)
        and target not in COMPUTE_SHARED)
    assert reaching == []


COMPUTE_SERVICE = 'nova_lite.compute.service'


def test_compute_service_imports_no_compute_api_module():
    """nova-compute (compute.service) and the compute API meet only in
    the shared modules (the RPC client, instance events, block devices);
    and only the compute entry points (and the guest audit) import the
    service."""
    reaching = sorted(
        '%s imports %s' % (mod, target)
        for mod, imports in GRAPH.items() if _within(mod, COMPUTE_SERVICE)
        for target, _ in imports
        if _within(target, 'nova_lite.compute')
        and not _within(target, COMPUTE_SERVICE)
        and target not in COMPUTE_SHARED)
    assert reaching == []
    importers = sorted(
        mod for mod, imports in GRAPH.items()
        if not _within(mod, COMPUTE_SERVICE)
        and any(_within(t, COMPUTE_SERVICE) for t, _ in imports))
    # guest_audit (nova-lite-manage placement check_guests) judges guests
    # with the reaper's own rules (compute.service.orphans).
    assert set(importers) <= {'nova_lite.cmd.compute', 'nova_lite.allinone',
                              'nova_lite.compute.guest_audit'}
