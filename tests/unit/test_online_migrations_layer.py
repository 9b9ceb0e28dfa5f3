"""online_migrations sits above objects and db: nothing in those packages
imports it back, at module or function level."""
import ast
import pathlib

import nova_lite

ROOT = pathlib.Path(nova_lite.__file__).parent


def _imported_modules(path):
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
            yield from ('%s.%s' % (node.module, alias.name)
                        for alias in node.names)


def test_objects_and_db_never_import_online_migrations():
    offenders = sorted(
        '%s imports %s' % (path.relative_to(ROOT.parent), name)
        for package in ('objects', 'db')
        for path in (ROOT / package).rglob('*.py')
        for name in _imported_modules(path)
        if name == 'nova_lite.online_migrations'
        or name.startswith('nova_lite.online_migrations.'))
    assert offenders == []


def test_the_check_sees_function_level_imports(tmp_path):
    module = tmp_path / 'm.py'
    module.write_text('def f():\n'
                      '    from nova_lite.online_migrations import runner\n')
    assert 'nova_lite.online_migrations.runner' in set(
        _imported_modules(module))
