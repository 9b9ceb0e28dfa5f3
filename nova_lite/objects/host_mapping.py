"""Host mappings (API database): which cell a compute host is in; and
discover_hosts, the one way hosts get mapped (nova-lite-manage cell_v2
discover_hosts, the all-in-one's start, the scheduler's periodic
discovery)."""
import dataclasses

from oslo_db import exception as db_exc
from oslo_log import log as logging
from oslo_versionedobjects import fields
from sqlalchemy import orm

from nova_lite.conf import CONF
from nova_lite import constants
from nova_lite import context as nova_context
from nova_lite.db.api import api as api_db
from nova_lite.db.api import models as api_models
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import cell_mapping
from nova_lite.objects import service as service_obj

LOG = logging.getLogger(__name__)


def _to_dict(row):
    return {'id': row.id, 'host': row.host, 'created_at': row.created_at,
            'updated_at': row.updated_at,
            'cell_mapping': cell_mapping.row_to_dict(row.cell)}


@base.NovaLiteObjectRegistry.register
class HostMapping(base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'host': fields.StringField(),
        'cell_mapping': fields.ObjectField('CellMapping'),
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
    }

    @staticmethod
    def _from_db_object(context, obj, db):
        for key in ('id', 'host', 'created_at', 'updated_at'):
            setattr(obj, key, db[key])
        obj.cell_mapping = cell_mapping.CellMapping._from_db_object(
            context, cell_mapping.CellMapping(), db['cell_mapping'])
        obj.obj_reset_changes()
        # No public setter (ovo convention): doc/private-apis.rst.
        obj.context = context
        return obj

    @staticmethod
    @api_db.reader
    def _get_by_host_from_db(context, host):
        row = (context.session.query(api_models.HostMapping)
               .options(orm.joinedload(api_models.HostMapping.cell))
               .filter_by(host=host).first())
        if row is None:
            raise exception.HostMappingNotFound(name=host)
        return _to_dict(row)

    @base.remotable_classmethod
    def get_by_host(cls, context, host):
        return cls._from_db_object(context, cls(),
                                   cls._get_by_host_from_db(context, host))

    @staticmethod
    @api_db.writer
    def _create_in_db(context, host, cell_uuid):
        session = context.session
        if session.query(api_models.HostMapping).filter_by(
                host=host).first():
            raise exception.HostMappingExists(name=host)
        cell = session.query(api_models.CellMapping).filter_by(
            uuid=cell_uuid).first()
        if cell is None:
            raise exception.CellMappingNotFound(uuid=cell_uuid)
        row = api_models.HostMapping(host=host, cell_id=cell.id)
        row.cell = cell
        session.add(row)
        try:
            session.flush()
        except db_exc.DBDuplicateEntry:
            # Mapped by someone else since the check above.
            raise exception.HostMappingExists(name=host)
        return _to_dict(row)

    @base.remotable
    def create(self):
        self._from_db_object(self.context, self, self._create_in_db(
            self.context, self.host, self.cell_mapping.uuid))

    @staticmethod
    @api_db.writer
    def _destroy_in_db(context, host):
        count = context.session.query(api_models.HostMapping).filter_by(
            host=host).delete()
        if not count:
            raise exception.HostMappingNotFound(name=host)

    @base.remotable
    def destroy(self):
        self._destroy_in_db(self.context, self.host)


@base.NovaLiteObjectRegistry.register
class HostMappingList(base.ObjectListBase, base.NovaLiteObject):
    # 1.0: initial
    VERSION = '1.0'
    fields = {'objects': fields.ListOfObjectsField('HostMapping')}

    @staticmethod
    @api_db.reader
    def _get_from_db(context, cell_uuid=None):
        query = (context.session.query(api_models.HostMapping)
                 .options(orm.joinedload(api_models.HostMapping.cell))
                 .order_by(api_models.HostMapping.host))
        if cell_uuid:
            query = query.join(api_models.HostMapping.cell).filter(
                api_models.CellMapping.uuid == cell_uuid)
        return [_to_dict(r) for r in query.all()]

    @base.remotable_classmethod
    def get_all(cls, context):
        return base.obj_make_list(context, cls(context),
                                  cls._get_from_db(context))

    @base.remotable_classmethod
    def get_by_cell_id(cls, context, cell_uuid):
        return base.obj_make_list(context, cls(context),
                                  cls._get_from_db(context, cell_uuid))


@dataclasses.dataclass
class HostDiscovery:
    """What one discover_hosts found.

    mapped: [(host, CellMapping)] mapped by this discovery;
    conflicts: [(host, CellMapping found in, CellMapping mapped to)]
    hosts found in a cell but mapped to another one (left as they are);
    unreadable: [(CellMapping, reason)] cells whose compute services
    could not be read (did not answer within the timeout, or failed).
    """
    mapped: list = dataclasses.field(default_factory=list)
    conflicts: list = dataclasses.field(default_factory=list)
    unreadable: list = dataclasses.field(default_factory=list)

    def hosts(self):
        """The names of the hosts mapped."""
        return [host for host, _cell in self.mapped]

    def problems(self):
        """One line per unreadable cell and per conflict."""
        return ['Could not read compute services of cell %s: %s'
                % (cell.identity, reason)
                for cell, reason in self.unreadable] + [
            'Host %s in cell %s is already mapped to cell %s; not '
            'remapped.' % (host, cell.identity, other.identity)
            for host, cell, other in self.conflicts]


def _compute_hosts(cctxt):
    return [svc.host for svc in service_obj.ServiceList.get_by_binary(
        cctxt, constants.COMPUTE_BINARY)]


@api_db.reader
def _mapped_hosts(context):
    """{host: cell uuid} of every host mapping (one query)."""
    return dict(context.session.query(
        api_models.HostMapping.host, api_models.CellMapping.uuid).join(
            api_models.HostMapping.cell).all())


def discover_hosts(context, cells, timeout=None, status_fn=None):
    """Map the compute hosts of cells (CellMappings; cell0 is skipped)
    that have no host mapping yet, and return a HostDiscovery.

    The hosts are those of each cell's nova-compute service records,
    read in parallel ([DEFAULT] cell_timeout unless timeout is given);
    a cell that cannot be read is reported, the others are mapped. The
    one rule for a conflict: a host already mapped to another cell is
    reported (conflicts) and never remapped. Safe to run concurrently
    (several schedulers, nova-lite-manage at the same time): the host
    mappings' unique host decides, and the loser reads what won (the
    same cell: nothing to report; another: a conflict). status_fn, if
    given, is called with a line of progress per cell and new mapping.
    context must reach the API database.
    """
    def say(message):
        if status_fn is not None:
            status_fn(message)

    cells = [cell for cell in cells if not cell.is_cell0()]
    found = nova_context.scatter_gather_cells(
        context, cells, CONF.cell_timeout if timeout is None else timeout,
        _compute_hosts)
    mapped = _mapped_hosts(context)
    result = HostDiscovery()
    for cell in cells:
        hosts = found[cell.uuid]
        if nova_context.is_cell_failure(hosts):
            reason = ('did not respond' if
                      hosts is nova_context.did_not_respond_sentinel
                      else (str(hosts).splitlines()
                            or [type(hosts).__name__])[0])
            result.unreadable.append((cell, reason))
            continue
        say('Found %d compute hosts in cell %s.' % (len(hosts),
                                                    cell.identity))
        for host in hosts:
            if host not in mapped:
                say('Creating host mapping for %s in cell %s.'
                    % (host, cell.identity))
                try:
                    HostMapping(context, host=host,
                                cell_mapping=cell).create()
                except exception.HostMappingExists:
                    LOG.debug('Host %s was mapped meanwhile', host)
                else:
                    mapped[host] = cell.uuid
                    result.mapped.append((host, cell))
                    continue
            if mapped.get(host) == cell.uuid:
                continue
            try:
                existing = HostMapping.get_by_host(context, host)
            except exception.HostMappingNotFound:
                # Unmapped meanwhile (its compute deleted): next time.
                continue
            mapped[host] = existing.cell_mapping.uuid
            if existing.cell_mapping.uuid != cell.uuid:
                result.conflicts.append((host, cell, existing.cell_mapping))
    return result
