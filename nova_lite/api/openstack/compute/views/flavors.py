"""Flavor response bodies, per microversion.

A Builder settles the microversion questions and URL prefixes once per
request. Lists render from the plain rows compute.api.flavors.get_all returns
(objects.flavor.list_rows: dicts keyed by Flavor field names), a single
flavor from its Flavor object; both give the same body.
"""
import re
from urllib import parse

from nova_lite.api.openstack import api_version as av
from nova_lite.api.openstack.compute.views import common

COLLECTION = 'flavors'
_URL_SAFE = re.compile(r'^[A-Za-z0-9._~-]*$').match
# The fields a flavor body shows (extra_specs only from 2.61).
_SHOWN = ('flavorid', 'name', 'memory_mb', 'root_gb', 'swap',
          'ephemeral_gb', 'disabled', 'vcpus', 'is_public', 'rxtx_factor',
          'description')


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
        self.bookmark = '%s/%s/' % (common.unversioned(application_url),
                                    COLLECTION)
        self.version = version
        self.description = version >= av.FLAVOR_DESCRIPTION
        self.extra_specs = (include_extra_specs and
                            version >= av.FLAVOR_EXTRA_SPECS_IN_BODY)
        self.swap_zero = version >= av.STRICT_QUERY_EMPTY_SERVERS
        # rxtx_factor and OS-FLV-DISABLED:disabled are gone from 2.102.
        self.legacy_fields = version < av.FLAVOR_NAME_FILTER

    def links(self, flavorid):
        quoted = _quote(flavorid)
        return [{'rel': 'self', 'href': self.href + quoted},
                {'rel': 'bookmark', 'href': self.bookmark + quoted}]

    def _row(self, flavor):
        """A Flavor as the row shape lists render from."""
        row = {name: getattr(flavor, name) for name in _SHOWN}
        if self.extra_specs:
            row['extra_specs'] = flavor.extra_specs
        return row

    def summary(self, row):
        flavorid = row['flavorid']
        body = {'id': flavorid, 'name': row['name'],
                'links': self.links(flavorid)}
        if self.description:
            body['description'] = row['description']
        return body

    def detail(self, flavor):
        """The body of one Flavor."""
        return self.details([self._row(flavor)])[0]

    def show(self, flavor):
        return {'flavor': self.detail(flavor)}

    def details(self, rows):
        """Detail bodies of rows, in one loop with the per-request choices
        and URL prefixes in locals (a page holds a thousand)."""
        href, bookmark = self.href, self.bookmark
        description, extra_specs = self.description, self.extra_specs
        no_swap = 0 if self.swap_zero else ''
        legacy = self.legacy_fields
        safe = _URL_SAFE
        bodies = []
        append = bodies.append
        for f in rows:
            flavorid = f['flavorid']
            quoted = flavorid if safe(flavorid) else _quote(flavorid)
            body = {
                'id': flavorid,
                'name': f['name'],
                'ram': f['memory_mb'],
                'disk': f['root_gb'],
                'swap': f['swap'] or no_swap,
                'OS-FLV-EXT-DATA:ephemeral': f['ephemeral_gb'],
                'vcpus': f['vcpus'],
                'os-flavor-access:is_public': f['is_public'],
                'links': [
                    {'rel': 'self', 'href': href + quoted},
                    {'rel': 'bookmark', 'href': bookmark + quoted}],
            }
            if legacy:
                body['OS-FLV-DISABLED:disabled'] = f['disabled']
                body['rxtx_factor'] = f['rxtx_factor'] or ''
            if description:
                body['description'] = f['description']
            if extra_specs:
                body['extra_specs'] = f['extra_specs']
            append(body)
        return bodies

    def index(self, rows, detailed, limit, params):
        """{'flavors': [...]} with a 'next' link when the page is full.

        rows: a page of compute.api.flavors.get_all. limit is the page size in
        force (the requested limit capped by [api] max_limit, or
        max_limit); params are the request's query parameters, kept in
        the next link with the marker replaced.
        """
        body = {'flavors': self.details(rows) if detailed
                else [self.summary(r) for r in rows]}
        if limit and len(rows) == limit:
            next_params = dict(sorted(params.items()))
            next_params['marker'] = rows[-1]['flavorid']
            url = self.href + 'detail' if detailed else self.href[:-1]
            body['flavors_links'] = [{
                'rel': 'next',
                'href': '%s?%s' % (url, parse.urlencode(next_params))}]
        return body


def embedded(flavor, include_extra_specs):
    """The flavor a server carries (an EmbeddedFlavor), as the server body
    shows it from 2.47: extra_specs only if the caller may read them."""
    body = {'original_name': flavor.name, 'vcpus': flavor.vcpus,
            'ram': flavor.memory_mb, 'disk': flavor.root_gb,
            'ephemeral': flavor.ephemeral_gb, 'swap': flavor.swap}
    if include_extra_specs:
        body['extra_specs'] = dict(flavor.extra_specs)
    return body


def access(flavor):
    """The access list of a private flavor."""
    return {'flavor_access': [{'flavor_id': flavor.flavorid,
                               'tenant_id': project}
                              for project in flavor.projects]}
