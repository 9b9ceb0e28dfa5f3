"""Placement pre-filters, as Nova's scheduler request filters: what a
request adds to the ONE allocation-candidate query
(placement/candidates.find's member_of, forbidden_aggregates,
required_traits and forbidden_traits), from its flavor's extra specs,
its image's properties and, in one read of the API database, the
metadata of the host aggregates:

- required (and forbidden) traits: ``trait:<NAME>=required``
  (``forbidden``) in the flavor's extra specs, ``trait:<NAME>=required``
  in the image's properties;
- ``[scheduler] query_placement_for_availability_zone``: the providers
  of the aggregates of the zone asked for (a zone no aggregate defines
  restricts nothing here; the AvailabilityZoneFilter still applies);
- ``[scheduler] limit_tenants_to_placement_aggregate``: a project named
  in ``filter_tenant_id[<suffix>]`` metadata only gets the providers of
  those aggregates (none at all when it is named nowhere and
  ``placement_aggregate_required_for_tenants``);
- ``[scheduler] enable_isolated_aggregate_filtering``: no provider of an
  aggregate whose ``trait:<NAME>=required`` metadata names a trait the
  request does not require.
"""
import collections

from nova_lite.conf import CONF
from nova_lite.objects import aggregate as aggregate_obj

TRAIT_PREFIX = 'trait:'
TENANT_KEY = 'filter_tenant_id'
REQUIRED, FORBIDDEN = 'required', 'forbidden'


def _image_properties(spec):
    image = spec.image if spec.obj_attr_is_set('image') else None
    return dict((image or {}).get('properties') or {})


def traits(spec):
    """(required trait names, forbidden trait names) of the request."""
    required, forbidden = set(), set()
    specs = dict(spec.flavor.extra_specs) if spec.obj_attr_is_set(
        'flavor') and spec.flavor is not None else {}
    for source in (specs, _image_properties(spec)):
        for key, value in source.items():
            if not key.startswith(TRAIT_PREFIX):
                continue
            name, value = key[len(TRAIT_PREFIX):], str(value).lower()
            if value == REQUIRED:
                required.add(name)
            elif value == FORBIDDEN and source is specs:
                forbidden.add(name)
    return sorted(required), sorted(forbidden)


def prefilters(context, spec):
    """The keyword arguments of candidates.find for spec, or None when
    no host can take it (a project that must be in an aggregate and is
    in none)."""
    required, forbidden = traits(spec)
    found = {'required_traits': required, 'forbidden_traits': forbidden}
    zone = spec.availability_zone if spec.obj_attr_is_set(
        'availability_zone') else None
    by_zone = bool(zone) and \
        CONF.scheduler.query_placement_for_availability_zone
    by_tenant = CONF.scheduler.limit_tenants_to_placement_aggregate
    isolated = CONF.scheduler.enable_isolated_aggregate_filtering
    if not (by_zone or by_tenant or isolated):
        return found
    keys = [aggregate_obj.AZ_KEY] if by_zone else []
    prefixes = ([TENANT_KEY] if by_tenant else []) + (
        [TRAIT_PREFIX] if isolated else [])
    rows = aggregate_obj.metadata_with_keys(context, keys, prefixes)
    member_of, forbidden_aggregates = [], set()
    if by_zone:
        in_zone = {u for u, k, v in rows
                   if k == aggregate_obj.AZ_KEY and v == zone}
        if in_zone:
            member_of.append(sorted(in_zone))
    if by_tenant:
        tenants = collections.defaultdict(set)
        for uuid, key, value in rows:
            if key.startswith(TENANT_KEY):
                for tenant in value.split(','):
                    tenants[tenant.strip()].add(uuid)
        mine = tenants.get(spec.project_id if spec.obj_attr_is_set(
            'project_id') else None)
        if mine:
            member_of.append(sorted(mine))
        elif CONF.scheduler.placement_aggregate_required_for_tenants:
            return None
    if isolated:
        wanted = set(required)
        for uuid, key, value in rows:
            if key.startswith(TRAIT_PREFIX) and \
                    str(value).lower() == REQUIRED and \
                    key[len(TRAIT_PREFIX):] not in wanted:
                forbidden_aggregates.add(uuid)
    if member_of:
        found['member_of'] = member_of
    if forbidden_aggregates:
        found['forbidden_aggregates'] = sorted(forbidden_aggregates)
    return found
