"""nova-lite-manage placement: audit what placement holds (allocations
and resource providers in the API database) against the cells."""
import re

from nova_lite.cmd import common
from nova_lite.cmd.common import args
from nova_lite.cmd.manage import checks
from nova_lite.compute.api import aggregates as aggregates_api
from nova_lite.compute import guest_audit
from nova_lite.placement import aggregates as placement_aggregates
from nova_lite.placement import audit as placement_audit
from nova_lite.placement import consistency

# Exit codes, as nova-manage placement audit's.
NOTHING_FOUND = 0
ERROR = 1
FOUND = 3
ALL_DELETED = 4
# ... set_traits'.
TRAITS_NO_PROVIDER = 2
TRAITS_BAD_NAME = 3
# A trait's name, as Placement takes it (custom ones: CUSTOM_ prefix).
TRAIT_NAME = re.compile(r'^[A-Z0-9_]{1,255}$')
# ... and sync_aggregates' (Nova's numbers).
SYNC_UNEXPECTED = 2
SYNC_NO_MAPPING = 4
SYNC_NO_NODES = 5
SYNC_NO_PROVIDER = 6


def _resources(resources):
    return ', '.join('%s=%s' % item for item in sorted(resources.items()))


def _allocations(held):
    if held is None:
        return '?'
    return '; '.join('%s: %s' % (rp, _resources(res))
                     for rp, res in sorted(held.items())) or '-'


class PlacementCommands(object):
    """Placement data in the API database ([api_database] connection)."""

    @args('--verbose', action='store_true', default=False,
          help='Also say what was checked and what was done')
    @args('--delete', action='store_true', default=False,
          help='Delete the orphaned allocations and the resource providers '
               'without a compute node that were found')
    def audit(self, verbose=False, delete=False):
        """Find allocations of consumers that are neither instances nor
        migrations in any cell (nor servers being built, nor a node's own
        usage), and resource providers that are no compute node of any
        cell; print them, and with --delete remove them (a provider that
        live consumers still allocate from is kept). Idempotent.

        Exit codes: 0 nothing found; 1 an error (the API database is not
        configured, or a cell did not answer: nothing is deleted then);
        3 orphans found (and, with --delete, not all could be deleted);
        4 every orphan found was deleted.
        """
        if not checks.require_api_db():
            return ERROR
        ctxt = checks.admin_context()
        try:
            report = placement_audit.find(ctxt)
        except placement_audit.CellsUnreachable as exc:
            common.error(exc.format_message())
            return ERROR
        if verbose:
            print('Checked %d consumers and the resource providers against '
                  '%d cells.' % (report.consumers_checked,
                                 report.cells_checked))
        if not report.allocations and not report.providers:
            print('No orphaned allocations or resource providers found.')
            return NOTHING_FOUND
        done = placement_audit.delete(ctxt, report) if delete else None
        self._print(report, done)
        if done is None or done['kept']:
            return FOUND
        return ALL_DELETED

    @args('node', metavar='<node>',
          help='The compute node (hypervisor_hostname) whose resource '
               'provider gets the traits')
    @args('--trait', action='append', default=[], dest='traits',
          metavar='<trait>',
          help='A trait of the provider (repeat for more; none: remove '
               'them all), e.g. CUSTOM_GPU')
    def set_traits(self, node, traits=()):
        """Replace the traits of a compute node's resource provider (what
        `openstack resource provider trait set` does against Placement,
        or Nova's [compute] provider_config), so that flavors and images
        requiring them (trait:<NAME>=required) land there. The compute
        never changes them. Prints the traits the provider has after.

        Exit codes: 0 done; 1 the API database is not configured; 2 no
        resource provider is named node; 3 a trait name that is not
        upper case letters, digits and underscores (nothing changed).
        """
        if not checks.require_api_db():
            return ERROR
        bad = [t for t in traits if not TRAIT_NAME.match(t)]
        if bad:
            common.error('Invalid trait name(s): %s (upper case letters, '
                         'digits and underscores; custom traits start '
                         'with CUSTOM_).' % ', '.join(bad))
            return TRAITS_BAD_NAME
        ctxt = checks.admin_context()
        provider = placement_aggregates.provider_uuid_named(ctxt, node)
        if provider is None:
            common.error('No resource provider is named %s.' % node)
            return TRAITS_NO_PROVIDER
        placement_aggregates.set_traits(ctxt, provider,
                                        sorted(set(traits)))
        found = placement_aggregates.traits_of(ctxt, provider)
        print('Traits of %s (%s): %s' % (node, provider,
                                         ', '.join(found) or '-'))
        return 0

    @args('--verbose', action='store_true', default=False,
          help='Also print each provider made a member of an aggregate')
    def sync_aggregates(self, verbose=False):
        """Make placement's aggregates hold the resource providers of
        every host of every host aggregate (for nodes whose provider
        came after their host joined, or that drifted). Only adds.
        Idempotent.

        Exit codes (as nova-manage placement sync_aggregates'): 0 done;
        2 an unexpected error; 4 hosts without a host mapping; 5 hosts
        without compute nodes; 6 nodes without a resource provider
        (the others were synced).
        """
        if not checks.require_api_db():
            return ERROR
        ctxt = checks.admin_context()
        try:
            report = aggregates_api.sync_placement(ctxt)
        except Exception as exc:
            common.error('Unexpected error syncing aggregates: %s' % exc)
            return SYNC_UNEXPECTED
        if verbose:
            for aggregate, host, provider in report.added:
                print('Provider %s of host %s added to aggregate %s.'
                      % (provider, host, aggregate))
        code = 0
        if report.no_mapping:
            common.error('Failed to find host mappings for hosts: %s. Run '
                         '"nova-lite-manage cell_v2 discover_hosts".'
                         % ', '.join(sorted(report.no_mapping)))
            code = code or SYNC_NO_MAPPING
        if report.no_nodes:
            common.error('Failed to find compute nodes for hosts: %s.'
                         % ', '.join(sorted(report.no_nodes)))
            code = code or SYNC_NO_NODES
        if report.no_provider:
            common.error('Failed to find resource providers for: %s.' % (
                ', '.join('%s (host %s)' % (uuid, host)
                          for host, uuid in report.no_provider)))
            code = code or SYNC_NO_PROVIDER
        print('Added %d resource provider(s) to their aggregates.'
              % len(report.added))
        return code

    @args('--verbose', action='store_true', default=False,
          help='Also say what was checked')
    @args('--json', action='store_true', default=False, dest='as_json',
          help='Print the report as JSON ({"problems": [...], "checked": '
               '{...}})')
    def check_allocations(self, verbose=False, as_json=False):
        """Compare, for every instance in every cell, its allocations
        with its flavor and host (in VERIFY_RESIZE: the new flavor on the
        destination for the instance, the old flavor on the source for
        its migration); report mismatches, migrations that are over but
        still hold allocations (leaked), migrations left in progress by
        an idle instance (stale) and orphaned allocations. Instances
        with a task state are skipped (counted as busy). Changes nothing.

        Exit codes: 0 consistent; 1 an error (the API database is not
        configured, or a cell did not answer); 3 problems found.
        """
        if not checks.require_api_db():
            return ERROR
        try:
            report = consistency.check(checks.admin_context())
        except placement_audit.CellsUnreachable as exc:
            common.error(exc.format_message())
            return ERROR
        if as_json:
            common.print_json(report.to_dict())
        else:
            if verbose:
                print('Checked %(instances)d instances, %(migrations)d '
                      'migrations and %(consumers)d consumers in %(cells)d '
                      'cells; %(busy)d busy instances skipped.'
                      % report.checked)
            if report.ok:
                print('Allocations are consistent with the instances and '
                      'migrations.')
            else:
                print('Inconsistent allocations (%d):' % len(
                    report.problems))
                common.print_table(
                    ['Problem', 'Consumer', 'Instance', 'Expected', 'Held',
                     'Detail'],
                    [(p.kind, p.consumer, p.instance or '-',
                      _allocations(p.expected), _allocations(p.held),
                      p.detail) for p in report.problems])
        return NOTHING_FOUND if report.ok else FOUND

    @args('--verbose', action='store_true', default=False,
          help='Also say what was checked')
    @args('--json', action='store_true', default=False, dest='as_json',
          help='Print the report as JSON ({"differences": [...], '
               '"checked": {...}, "not_checked": {...}})')
    def check_guests(self, verbose=False, as_json=False):
        """Compare what each compute's driver runs (compute RPC
        get_guests, over each cell's message queue) with what its cell
        says: guests whose server is deleted, gone or on another host
        (orphans: the computes reap them as [DEFAULT]
        running_deleted_instance_action says) and idle servers whose
        guest is not running (missing). Computes that are down are not
        checked. Changes nothing.

        Exit codes: 0 consistent; 1 an error (the API database is not
        configured); 3 differences found.
        """
        if not checks.require_api_db():
            return ERROR
        report = guest_audit.check(checks.admin_context())
        if as_json:
            common.print_json(report.to_dict())
            return NOTHING_FOUND if report.ok else FOUND
        if verbose:
            print('Checked %(guests)d guests on %(computes)d computes in '
                  '%(cells)d cells.' % report.checked)
        for host, why in sorted(report.not_checked.items()):
            print('Not checked: %s (%s)' % (host, why))
        if report.ok:
            print('Every guest belongs to a live server of its host, and '
                  'every idle server has its guest.')
        else:
            print('Guests and servers differ (%d):' % len(
                report.differences))
            common.print_table(
                ['Problem', 'Host', 'Guest', 'Server', 'Detail'],
                [(d.kind, d.host, d.guest or '-', d.server, d.detail)
                 for d in report.differences])
        return NOTHING_FOUND if report.ok else FOUND

    @staticmethod
    def _print(report, done):
        def action(deleted, kept=None):
            if done is None:
                return 'found'
            if kept:
                return 'kept: %s' % kept
            return 'deleted' if deleted else 'already gone'

        if report.allocations:
            print('Orphaned allocations (%d consumers):' % len(
                {o.consumer for o in report.allocations}))
            common.print_table(
                ['Consumer', 'Resource provider', 'Resources', 'Action'],
                [(o.consumer, o.provider, _resources(o.resources),
                  action(done and o.consumer in done['allocations']))
                 for o in report.allocations])
        if report.providers:
            print('Resource providers without a compute node (%d):'
                  % len(report.providers))
            common.print_table(
                ['UUID', 'Name', 'Action'],
                [(p.uuid, p.name,
                  action(done and p.uuid in done['providers'],
                         done and done['kept'].get(p.uuid)))
                 for p in report.providers])
