"""Filters on the metadata of the hosts' aggregates (read for the whole
batch in one query):

- AggregateInstanceExtraSpecsFilter: every flavor extra spec that has no
  scope, or the ``aggregate_instance_extra_specs`` scope, is matched by
  the value of that key in the metadata of one of the host's aggregates
  (a host in no aggregate with the key fails). Values may use the
  operators Nova's filter knows: ``=`` (at least, numbers), ``<in>``
  (substring), ``<all-in>``, ``<or>``, ``s==``, ``s!=``, ``s>=``, ``s<=``,
  ``s>``, ``s<``, ``==``, ``!=``, ``>=``, ``<=``; a plain value is
  compared as a string.
- AggregateMultiTenancyIsolation: a host in aggregates with
  ``filter_tenant_id[<suffix>]`` metadata takes only the projects they
  name (comma-separated); other hosts take any project.
"""
import operator

from nova_lite.objects import aggregate as aggregate_obj
from nova_lite.scheduler import filters

SCOPE = 'aggregate_instance_extra_specs'
TENANT_KEY = 'filter_tenant_id'


def _metadata(context, states):
    """{host: [{key: value} of each of its aggregates]}."""
    found = aggregate_obj.metadata_by_host(context, {s.host for s in states})
    return {host: [meta for _uuid, meta in aggs]
            for host, aggs in found.items()}


def _number(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


_STRING_OPS = {'s==': operator.eq, 's!=': operator.ne, 's>=': operator.ge,
               's<=': operator.le, 's>': operator.gt, 's<': operator.lt}
_NUMBER_OPS = {'=': operator.ge, '==': operator.eq, '!=': operator.ne,
               '>=': operator.ge, '<=': operator.le}


def match(value, requirement):
    """Whether an aggregate's value meets a flavor's requirement."""
    words = requirement.split()
    if not words:
        return value == requirement
    op, rest = words[0], ' '.join(words[1:])
    if op == '<or>':
        return value in [w for w in words if w != '<or>']
    if op == '<in>':
        return rest in value
    if op == '<all-in>':
        return all(w in value for w in words[1:])
    if op in _STRING_OPS:
        return _STRING_OPS[op](value, rest)
    if op in _NUMBER_OPS:
        have, want = _number(value), _number(rest)
        return have is not None and want is not None and \
            _NUMBER_OPS[op](have, want)
    return value == requirement


def _wanted(spec):
    """{metadata key: requirement} of the flavor's extra specs."""
    wanted = {}
    if not spec.obj_attr_is_set('flavor') or spec.flavor is None:
        return wanted
    for key, value in dict(spec.flavor.extra_specs).items():
        scope, sep, name = key.partition(':')
        if not sep:
            wanted[key] = value
        elif scope == SCOPE and name:
            wanted[name] = value
    return wanted


class AggregateInstanceExtraSpecsFilter(filters.BaseHostFilter):

    def filter_all(self, context, states, spec):
        wanted = _wanted(spec)
        if not wanted:
            return list(states)
        metadata = _metadata(context, states)

        def passes(state):
            aggregates = metadata.get(state.host, [])
            for key, requirement in wanted.items():
                values = [meta[key] for meta in aggregates if key in meta]
                if not values or not any(
                        match(v.strip(), requirement.strip())
                        for value in values for v in value.split(',')):
                    return False
            return True
        return [s for s in states if passes(s)]


class AggregateMultiTenancyIsolation(filters.BaseHostFilter):

    def filter_all(self, context, states, spec):
        metadata = _metadata(context, states)
        project = spec.project_id if spec.obj_attr_is_set(
            'project_id') else None

        def passes(state):
            allowed = set()
            for meta in metadata.get(state.host, []):
                for key, value in meta.items():
                    if key.startswith(TENANT_KEY):
                        allowed.update(t.strip() for t in value.split(','))
            return not allowed or project in allowed
        return [s for s in states if passes(s)]
