"""Flavor response bodies, per microversion.

Lists of a thousand flavors are common: a Builder settles the microversion
questions and URL prefixes once per request, then each flavor is one dict
literal built from the object's attributes.
"""
import re
from urllib import parse

from nova_lite.api.openstack import api_version as av

COLLECTION = 'flavors'
_URL_SAFE = re.compile(r'^[A-Za-z0-9._~-]*$').match


def _quote(flavorid):
    return flavorid if _URL_SAFE(flavorid) else parse.quote(flavorid,
                                                              safe='')


class Builder(object):
    """Renders flavors for one request.

    application_url is the API's URL including /v2.1; bookmarks leave the
    version out. include_extra_specs is whether the caller may read extra
    specs (the extra-specs index policy); it only matters from 2.61.
    """

    def __init__(self, application_url, version, include_extra_specs=False):
        self.href = '%s/%s/' % (application_url.rstrip('/'), COLLECTION)
        base = application_url.rstrip('/')
        if base.endswith('/v2.1'):
            base = base[:-len('/v2.1')]
        self.bookmark = '%s/%s/' % (base, COLLECTION)
        self.version = version
        self.description = version >= av.FLAVOR_DESCRIPTION
        self.extra_specs = (include_extra_specs and
                            version >= av.FLAVOR_EXTRA_SPECS_IN_BODY)
        self.swap_zero = version >= av.STRICT_QUERY_EMPTY_SERVERS

    def links(self, flavorid):
        quoted = _quote(flavorid)
        return [{'rel': 'self', 'href': self.href + quoted},
                {'rel': 'bookmark', 'href': self.bookmark + quoted}]

    def summary(self, flavor):
        flavorid = flavor.flavorid
        body = {'id': flavorid, 'name': flavor.name,
                'links': self.links(flavorid)}
        if self.description:
            body['description'] = flavor.description
        return body

    def detail(self, flavor):
        flavorid = flavor.flavorid
        swap = flavor.swap
        body = {
            'id': flavorid,
            'name': flavor.name,
            'ram': flavor.memory_mb,
            'disk': flavor.root_gb,
            'swap': swap or (0 if self.swap_zero else ''),
            'OS-FLV-EXT-DATA:ephemeral': flavor.ephemeral_gb,
            'OS-FLV-DISABLED:disabled': flavor.disabled,
            'vcpus': flavor.vcpus,
            'os-flavor-access:is_public': flavor.is_public,
            'rxtx_factor': flavor.rxtx_factor or '',
            'links': self.links(flavorid),
        }
        if self.description:
            body['description'] = flavor.description
        if self.extra_specs:
            body['extra_specs'] = flavor.extra_specs
        return body

    def show(self, flavor):
        return {'flavor': self.detail(flavor)}

    def details(self, flavors):
        """[detail(f) for f in flavors], in one loop: the per-request
        choices and URL prefixes in locals, and the fields read straight
        from each object's attribute storage (a thousand flavors make
        eleven thousand reads). A flavor missing one of them goes through
        detail(), which loads or fails as attribute access does."""
        href, bookmark = self.href, self.bookmark
        description, extra_specs = self.description, self.extra_specs
        no_swap = 0 if self.swap_zero else ''
        safe = _URL_SAFE
        bodies = []
        append = bodies.append
        # An object list's own list: iterating the ObjectListBase goes
        # through Sequence.__iter__ and __getitem__ per item.
        for flavor in getattr(flavors, 'objects', flavors):
            f = flavor.__dict__
            try:
                flavorid = f['_obj_flavorid']
                quoted = flavorid if safe(flavorid) else _quote(flavorid)
                body = {
                    'id': flavorid,
                    'name': f['_obj_name'],
                    'ram': f['_obj_memory_mb'],
                    'disk': f['_obj_root_gb'],
                    'swap': f['_obj_swap'] or no_swap,
                    'OS-FLV-EXT-DATA:ephemeral': f['_obj_ephemeral_gb'],
                    'OS-FLV-DISABLED:disabled': f['_obj_disabled'],
                    'vcpus': f['_obj_vcpus'],
                    'os-flavor-access:is_public': f['_obj_is_public'],
                    'rxtx_factor': f['_obj_rxtx_factor'] or '',
                    'links': [
                        {'rel': 'self', 'href': href + quoted},
                        {'rel': 'bookmark', 'href': bookmark + quoted}],
                }
                if description:
                    body['description'] = f['_obj_description']
                if extra_specs:
                    body['extra_specs'] = f['_obj_extra_specs']
            except KeyError:
                body = self.detail(flavor)
            append(body)
        return bodies

    def index(self, flavors, detailed, limit, params):
        """{'flavors': [...]} with a 'next' link when the page is full.

        limit is the page size in force (the requested limit capped by
        [api] max_limit, or max_limit); params are the request's query
        parameters, kept in the next link with the marker replaced.
        """
        body = {'flavors': self.details(flavors) if detailed
                else [self.summary(f) for f in flavors]}
        if limit and len(flavors) == limit:
            next_params = dict(sorted(params.items()))
            next_params['marker'] = flavors[-1].flavorid
            url = self.href + 'detail' if detailed else self.href[:-1]
            body['flavors_links'] = [{
                'rel': 'next',
                'href': '%s?%s' % (url, parse.urlencode(next_params))}]
        return body


def access(flavor):
    """The access list of a private flavor."""
    return {'flavor_access': [{'flavor_id': flavor.flavorid,
                               'tenant_id': project}
                              for project in flavor.projects]}
