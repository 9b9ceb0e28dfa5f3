"""What each compute's driver runs against what the cells say
(nova-lite-manage placement check_guests).

For every compute service of every cell that is up, its guests (compute
RPC get_guests) are compared with the instances of its cell: a guest
whose server is deleted, gone from the cell or idle on another host is
an orphan (as its compute's reaper, compute.service.orphans, judges
it); an idle server of the host in a state that has a guest (active,
stopped, paused, suspended, resized) with no guest is missing one.
Computes that are down, or too old to list their guests, are counted
as not checked. Changes nothing.
"""
from oslo_log import log as logging

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.compute.service import orphans
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite import objects
from nova_lite.objects import instance as instance_obj

LOG = logging.getLogger(__name__)

# vm_states of an idle server whose host runs its guest.
HAS_GUEST = (instance_obj.ACTIVE, instance_obj.STOPPED, instance_obj.PAUSED,
             instance_obj.SUSPENDED, instance_obj.RESIZED)


class Difference(object):
    """kind: 'orphan' (a guest without a live server here) or 'missing'
    (a server without its guest); host, guest (driver key or None),
    server uuid, detail."""

    def __init__(self, kind, host, guest, server, detail):
        self.kind = kind
        self.host = host
        self.guest = guest
        self.server = server
        self.detail = detail

    def to_dict(self):
        return {'kind': self.kind, 'host': self.host, 'guest': self.guest,
                'server': self.server, 'detail': self.detail}


class Report(object):
    def __init__(self):
        self.differences = []
        self.checked = {'cells': 0, 'computes': 0, 'guests': 0}
        self.not_checked = {}   # host -> why

    @property
    def ok(self):
        return not self.differences

    def to_dict(self):
        return {'differences': [d.to_dict() for d in self.differences],
                'checked': dict(self.checked),
                'not_checked': dict(self.not_checked)}


def _check_host(cctxt, rpcapi, host, report):
    try:
        guests = rpcapi.get_guests(cctxt, host)['guests']
    except Exception as exc:
        report.not_checked[host] = 'did not answer (%s)' % (
            type(exc).__name__)
        return
    if guests is None:
        report.not_checked[host] = 'too old to list its guests'
        return
    report.checked['computes'] += 1
    report.checked['guests'] += len(guests)
    for key in guests:
        orphan = orphans.classify(cctxt, host, key)
        if orphan is not None:
            report.differences.append(Difference(
                'orphan', host, key, orphan.uuid, orphan.describe(host)))
    running = set(guests)
    for instance in objects.InstanceList.get_by_filters(cctxt,
                                                        {'host': host}):
        if (instance.vm_state in HAS_GUEST and instance.task_state is None
                and instance.uuid not in running):
            report.differences.append(Difference(
                'missing', host, None, instance.uuid,
                'server is %s on %s but its guest is not running there'
                % (instance.vm_state, host)))


def check(context):
    """The Report of every cell but cell0."""
    report = Report()
    rpcapi = compute_rpcapi.ComputeAPI()
    for cell in objects.CellMappingList.get_all(context):
        if cell.is_cell0():
            continue
        report.checked['cells'] += 1
        with nova_context.target_cell(context, cell) as cctxt:
            for service in objects.ServiceList.get_by_binary(
                    cctxt, constants.COMPUTE_BINARY):
                if not service.is_up():
                    report.not_checked[service.host] = 'down'
                    continue
                _check_host(cctxt, rpcapi, service.host, report)
    return report
