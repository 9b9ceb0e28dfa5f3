"""The route table (compute/routes.py) against the docs, the policy
rules and the controllers' own policy checks."""
import ast
import importlib
import inspect
import itertools
import os
import re

from oslo_policy import policy as oslo_policy

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute import routes
from nova_lite.api.openstack import root
from nova_lite import policies
from nova_lite.policies import servers as server_policies

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
DOCS = ('README.rst', os.path.join('doc', 'api_version_history.rst'))
METHOD = r'(?:GET|HEAD|POST|PUT|DELETE|PATCH)'
ROUTE_IN_TEXT = re.compile(r'(%s(?:\|%s)*)\s+(/(?:\{[^{}]*\}|[^\s`,;)])*)'
                           % (METHOD, METHOD))

# Rules defined and named by a route that no code checks yet (the
# Compute API checks them; nova_lite does not serve what they guard).
NOT_CHECKED_YET = {
    server_policies.CREATE_ZERO_DISK_FLAVOR: 'boot from a zero-disk flavor',
}


def _expand(path):
    """/os-services/{enable,disable} -> both paths; /ips[/{label}] ->
    /ips and /ips/{label}."""
    parts = re.split(r'\{([^{}]*,[^{}]*)\}|\[([^\[\]]*)\]', path)
    choices = []
    for i, part in enumerate(parts):
        if i % 3 == 0:
            choices.append([part])
        elif i % 3 == 1 and part is not None:
            choices.append(part.split(','))
        elif i % 3 == 2 and part is not None:
            choices.append(['', part])
    return [''.join(c) for c in itertools.product(*choices)]


def _normal(path):
    path = re.sub(r'\{[^{}/]*\}', '{}', path.rstrip('/.:'))
    return path or '/'


def _documented():
    """{(method, normalised path)} the docs name."""
    found = set()
    for name in DOCS:
        with open(os.path.join(REPO, name)) as f:
            text = ' '.join(f.read().replace('``', '').split())
        for methods, path in ROUTE_IN_TEXT.findall(text):
            for one in _expand(path):
                for method in methods.split('|'):
                    found.add((method, _normal(one)))
    return found, text


def _doc_text():
    text = ''
    for name in DOCS:
        with open(os.path.join(REPO, name)) as f:
            text += f.read()
    return text


def test_every_route_is_documented():
    documented, _ = _documented()
    missing = [(r.method, r.path) for r in routes.ROUTES
               if r.path != '/'
               and (r.method, _normal(r.path)) not in documented]
    assert missing == []


def test_every_action_is_documented():
    """By name, or (os-services before 2.53) as the path naming it."""
    text = _doc_text()
    documented, _ = _documented()
    missing = [(r.path, a.name) for r in routes.ROUTES for a in r.actions
               if '``%s``' % a.name not in text
               and (r.method, _normal(r.path.rsplit('/', 1)[0] + '/' + a.name))
               not in documented]
    assert missing == []


def _api_rules():
    """Every documented (API operation) rule nova_lite defines."""
    return {rule.name for rule in policies.list_rules()
            if isinstance(rule, oslo_policy.DocumentedRuleDefault)}


def _route_rules():
    named = set()
    for route in routes.ROUTES:
        named.update(route.policies)
        for action in route.actions:
            named.update(action.policies)
    return named


def test_every_policy_rule_is_used_by_a_route():
    assert sorted(_api_rules() - _route_rules()) == []


def test_routes_name_only_defined_rules():
    assert sorted(_route_rules() - _api_rules()) == []


def _constant_names(rule):
    """The names the policy modules give ``rule`` (e.g. {'SHOW'})."""
    names = set()
    for module in _policy_modules():
        for name, value in vars(module).items():
            if name.isupper() and value == rule:
                names.add(name)
    return names


def _policy_modules():
    package = os.path.dirname(policies.__file__)
    return [importlib.import_module('nova_lite.policies.' + f[:-3])
            for f in sorted(os.listdir(package))
            if f.endswith('.py') and f != '__init__.py']


def _api_sources(cls):
    """The source of the modules serving ``cls``: its own and its bases',
    and the controller modules they import (shared helpers)."""
    modules = {inspect.getmodule(k) for k in cls.__mro__
               if k.__module__.startswith('nova_lite.api.')}
    for module in list(modules):
        for value in vars(module).values():
            if inspect.ismodule(value) and value.__name__.startswith(
                    'nova_lite.api.openstack.compute.'):
                modules.add(value)
    return '\n'.join(inspect.getsource(m) for m in modules)


def _checked_in(source, rule):
    return any(re.search(r'\b\w+\.%s\b' % name, source)
               for name in _constant_names(rule))


def test_controllers_check_the_rules_their_routes_name():
    unchecked = []
    for route in routes.ROUTES:
        entries = [(route.path, route.policies)] + [
            ('%s %s' % (route.path, a.name), a.policies)
            for a in route.actions]
        source = _api_sources(route.controller)
        for where, rules in entries:
            unchecked += [(where, rule) for rule in rules
                          if rule not in NOT_CHECKED_YET
                          and not _checked_in(source, rule)]
    assert unchecked == []


def test_exemptions_are_still_needed():
    """Once a rule is checked by its controller, drop its exemption."""
    for rule in NOT_CHECKED_YET:
        for route in routes.ROUTES:
            for where in [route] + list(route.actions):
                if rule in where.policies:
                    assert not _checked_in(_api_sources(route.controller),
                                           rule), rule


def test_every_rule_the_controllers_check_is_in_the_table():
    """Every ``<policies module>.<RULE>`` in a controller's code is named
    by some route."""
    package = os.path.dirname(inspect.getfile(routes))
    checked = set()
    for name in sorted(os.listdir(package)):
        if not name.endswith('.py') or name == 'routes.py':
            continue
        with open(os.path.join(package, name)) as f:
            tree = ast.parse(f.read())
        aliases = {alias.asname or alias.name: node.module + '.' + alias.name
                   for node in ast.walk(tree)
                   if isinstance(node, ast.ImportFrom)
                   and node.module == 'nova_lite.policies'
                   for alias in node.names}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute)
                    and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and node.attr.isupper()):
                module = importlib.import_module(aliases[node.value.id])
                checked.add(getattr(module, node.attr))
    assert sorted(checked - _route_rules()) == []


def test_every_handler_exists():
    for route in routes.ROUTES:
        assert callable(getattr(route.controller, route.handler)), route
        for action in route.actions:
            assert callable(action.handler), action


def test_no_two_routes_share_a_method_path_and_versions():
    seen = set()
    for route in routes.ROUTES:
        key = (route.method, _normal(route.path), route.min_version,
               route.max_version)
        assert key not in seen, route
        seen.add(key)


def test_the_router_serves_the_table():
    """Each path of the table matches its own route, its parameters in
    order."""
    for route in routes.ROUTES:
        segments = [s if not s.startswith('{') else 'p%d' % i
                    for i, s in enumerate(route.path.split('/')[1:])]
        version = av.APIVersion(route.min_version or av.MIN)
        compiled, params = root.match(segments, route.method, version)
        assert compiled.route is route
        assert params == [s for s in segments if s.startswith('p')
                          and s[1:].isdigit()]
