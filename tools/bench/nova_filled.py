#!/usr/bin/env python3
"""Real Nova 34 (../shared/anchors/real_nova_server.py, unchanged) with
one extra route for the listing benchmark: ``POST /_bench/fill`` with
``{"total": N}`` makes Nova hold N servers by copying the servers it
booted, through Nova's own objects, in its own process.

For the usage benchmark (tools/bench/usage.py) the body may also say
``"projects": P`` (copy i belongs to project ``project-<i % P>``),
``"launched_from": ISO time`` (copy i launched that many minutes after
it) and ``"deleted_every": K`` (every copy i with i % K == K - 1 is
then terminated 5 hours after its launch and destroyed with
``Instance.destroy()``, Nova's own soft delete of the rows), and
``"start": K, "add": M`` instead of a total: make copies K to K + M - 1
(a large fill in several requests, each inside a client's timeout).

Why: Nova builds about 20-30 servers a minute on this machine, so a
benchmark cannot boot 2,000 of them in a session. A listing reads rows,
not history: each copy is an ``objects.Instance(...).create()`` in the
booted server's cell (instance row, instance_extra with the flavor,
system metadata, info cache, as Nova writes them at boot) plus its
``InstanceMapping`` in the API database, ACTIVE on the same host.
Nothing of Nova is patched; the route sits in front of the API app,
like the anchor's own noauth2 emulation.

Run it as the anchor (same arguments), with Nova's python:

    /tmp/nova-venv/bin/python tools/bench/nova_filled.py --port 18774 \\
        --ready-file F --stop-file S
"""
import json
import os
import sys

# As flavor_create.ANCHORS: beside the checkout, or $NOVA_LITE_ANCHORS.
ANCHORS = os.environ.get('NOVA_LITE_ANCHORS') or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'shared',
    'anchors')
sys.path.insert(0, os.path.abspath(ANCHORS))

import real_nova_server as anchor  # noqa: E402  (monkey-patches first)

# Instance fields a copy takes from the booted server it copies.
_COPIED = ('user_id', 'project_id', 'image_ref', 'kernel_id', 'ramdisk_id',
           'hostname', 'host', 'node', 'compute_id', 'launched_on',
           'instance_type_id', 'memory_mb', 'vcpus', 'root_gb',
           'ephemeral_gb', 'vm_state', 'task_state', 'power_state',
           'availability_zone', 'launched_at', 'flavor', 'system_metadata',
           'metadata', 'reservation_id', 'root_device_name', 'config_drive',
           'key_name', 'key_data')


def _fill(total, projects=None, launched_from=None, deleted_every=None,
          start=0, add=None):
    import datetime

    from nova import context as nova_context
    from nova import objects
    from oslo_utils import timeutils
    from oslo_utils import uuidutils

    ctxt = nova_context.get_admin_context()
    sources = []
    for cell in objects.CellMappingList.get_all(ctxt):
        if cell.is_cell0():
            continue
        with nova_context.target_cell(ctxt, cell) as cctxt:
            booted = objects.InstanceList.get_by_filters(
                cctxt, {'deleted': False}, expected_attrs=[
                    'flavor', 'system_metadata', 'metadata', 'info_cache'])
            sources.extend((cell, inst) for inst in booted
                           if not inst.display_name.startswith('copy-'))
    if not sources:
        raise RuntimeError('boot at least one server first')
    have = len(sources)
    indexes = (range(max(0, total - have)) if add is None
               else range(start, start + add))
    for i in indexes:
        cell, src = sources[i % len(sources)]
        with nova_context.target_cell(ctxt, cell) as cctxt:
            copy = objects.Instance(context=cctxt)
            for field in _COPIED:
                if src.obj_attr_is_set(field):
                    setattr(copy, field, getattr(src, field))
            copy.uuid = uuidutils.generate_uuid()
            copy.display_name = 'copy-%05d' % i
            copy.info_cache = objects.InstanceInfoCache(
                network_info=src.info_cache.network_info)
            if projects:
                copy.project_id = 'project-%d' % (i % projects)
            if launched_from:
                copy.launched_at = timeutils.parse_isotime(
                    launched_from) + datetime.timedelta(minutes=i)
            copy.create()
            if deleted_every and i % deleted_every == deleted_every - 1:
                copy.vm_state = 'deleted'
                copy.terminated_at = copy.launched_at + datetime.timedelta(
                    hours=5)
                copy.save()
                copy.destroy()
        objects.InstanceMapping(
            context=ctxt, instance_uuid=copy.uuid, cell_mapping=cell,
            project_id=copy.project_id, user_id=copy.user_id,
            queued_for_delete=False).create()
    if add is not None:
        return {'had': have, 'made': len(indexes)}
    return {'had': have, 'total': max(total, have)}


class _FillRoute(anchor.NoAuth2Emulation):
    def __call__(self, environ, start_response):
        if environ.get('PATH_INFO') != '/_bench/fill':
            return super().__call__(environ, start_response)
        length = int(environ.get('CONTENT_LENGTH') or 0)
        asked = json.loads(environ['wsgi.input'].read(length))
        body = json.dumps(_fill(
            int(asked.get('total', 0)), projects=asked.get('projects'),
            launched_from=asked.get('launched_from'),
            deleted_every=asked.get('deleted_every'),
            start=int(asked.get('start', 0)),
            add=asked.get('add'))).encode()
        start_response('200 OK', [('Content-Type', 'application/json'),
                                  ('Content-Length', str(len(body)))])
        return [body]


anchor.NoAuth2Emulation = _FillRoute

if __name__ == '__main__':
    anchor.main()
