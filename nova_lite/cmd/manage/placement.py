"""nova-lite-manage placement: audit what placement holds (allocations
and resource providers in the API database) against the cells."""
from nova_lite.cmd import common
from nova_lite.cmd.common import args
from nova_lite.cmd.manage import checks
from nova_lite.placement import audit as placement_audit

# Exit codes, as nova-manage placement audit's.
NOTHING_FOUND = 0
ERROR = 1
FOUND = 3
ALL_DELETED = 4


def _resources(resources):
    return ', '.join('%s=%s' % item for item in sorted(resources.items()))


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
