"""Compute nodes: one per hypervisor node, in the cell of its host.

The compute_nodes row (cell DB) describes the node; its capacity and
usage live in its resource provider (API DB), mapped by
nova_lite.objects.compute_inventory. A node with a provider is read from
and written to it; one without (rows of older code) uses its columns
until the gate opens (compute_inventory.NEEDS), after which loading it
migrates it (_migrate_inventory; nova_lite.online_migrations migrates the
rest in batches).

Cell-DB work is in remotable methods (a compute runs them on its cell
conductor) over the queries in nova_lite.db.main.compute_nodes; provider
work goes through compute_inventory.placement_for(): in-process where the
API DB is held, otherwise the placement RPC topic on the cell's
transport. A compute never opens a database, a cell
conductor never opens the API DB.
"""
from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import uuidutils
from oslo_utils import versionutils
from oslo_versionedobjects import fields

from nova_lite.db.main import compute_nodes as compute_nodes_db
from nova_lite import exception
from nova_lite.objects import base
from nova_lite.objects import compute_inventory as ci
from nova_lite.placement import local as local_placement

LOG = logging.getLogger(__name__)


@base.NovaLiteObjectRegistry.register
class ComputeNode(base.NovaLitePersistentObject, base.NovaLiteObject):
    # 1.0: initial
    # 1.1: uuid
    # 1.2: capacity and usage live in resource-provider inventories and
    #      allocations; only the cell-DB parts are remotable
    VERSION = '1.2'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(nullable=True),
        'service_id': fields.IntegerField(nullable=True),
        'host': fields.StringField(nullable=True),
        'vcpus': fields.IntegerField(),
        'memory_mb': fields.IntegerField(),
        'local_gb': fields.IntegerField(),
        'vcpus_used': fields.IntegerField(),
        'memory_mb_used': fields.IntegerField(),
        'local_gb_used': fields.IntegerField(),
        'hypervisor_type': fields.StringField(),
        'hypervisor_version': fields.IntegerField(),
        'hypervisor_hostname': fields.StringField(nullable=True),
        'free_ram_mb': fields.IntegerField(nullable=True),
        'free_disk_gb': fields.IntegerField(nullable=True),
        'current_workload': fields.IntegerField(nullable=True),
        'running_vms': fields.IntegerField(nullable=True),
        'cpu_info': fields.StringField(nullable=True),
        'disk_available_least': fields.IntegerField(nullable=True),
        'host_ip': fields.IPAddressField(nullable=True),
        'pci_stats': fields.StringField(nullable=True),
        'numa_topology': fields.StringField(nullable=True),
        'stats': fields.DictOfNullableStringsField(nullable=True),
        'cpu_allocation_ratio': fields.FloatField(),
        'ram_allocation_ratio': fields.FloatField(),
        'disk_allocation_ratio': fields.FloatField(),
    }

    @staticmethod
    def _from_db_object(context, node, db):
        for key in node.fields:
            value = db[key]
            if key == 'stats':
                value = jsonutils.loads(value) if value else {}
            elif key == 'deleted':
                value = bool(value)
            setattr(node, key, value)
        # No public setter (ovo convention): doc/private-apis.rst.
        node.context = context
        node.obj_reset_changes()
        return node

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        if versionutils.convert_version_to_tuple(target_version) < (1, 1):
            primitive.pop('uuid', None)

    def _apply(self, data):
        """Take capacity and usage from provider data (capacity.read)."""
        values = ci.overlay(data)
        for key, value in values.items():
            setattr(self, key, value)
        self.obj_reset_changes(list(values))
        return values

    # --- loads -------------------------------------------------------------

    @classmethod
    def _get_one(cls, context, filters, name):
        nodes = _load(context, filters)
        if not nodes:
            raise exception.ComputeNodeNotFound(node=name)
        return nodes[0]

    @classmethod
    def get_by_uuid(cls, context, compute_uuid):
        return cls._get_one(context, {'uuid': compute_uuid}, compute_uuid)

    @classmethod
    def get_by_id(cls, context, compute_id):
        return cls._get_one(context, {'id': compute_id}, compute_id)

    @classmethod
    def get_by_host_and_nodename(cls, context, host, nodename):
        return cls._get_one(context, {'host': host,
                                      'hypervisor_hostname': nodename},
                            nodename)

    # --- cell-DB parts (remotable: run on the conductor for computes) ----

    @base.remotable_classmethod
    def _claim_uuids(cls, context, proposed):
        """Persist [[id, uuid]] where the node has no uuid yet; returns
        [[id, uuid]] as stored (deleted nodes left out)."""
        return compute_nodes_db.claim_uuids(context,
                                            [tuple(p) for p in proposed])

    @base.remotable_classmethod
    def _mark_migrated(cls, context, ids):
        compute_nodes_db.mark_migrated(context, list(ids))

    @staticmethod
    def _to_db_values(node, names):
        values = {}
        for name in names:
            value = getattr(node, name)
            if name == 'stats':
                value = jsonutils.dumps(value or {})
            elif name == 'host_ip' and value is not None:
                value = str(value)
            values[name] = value
        for key in ('id', 'deleted', 'deleted_at', 'created_at',
                    'updated_at'):
            values.pop(key, None)
        return values

    @base.remotable
    def _create_in_cell(self):
        values = self._to_db_values(self, self.obj_what_changed())
        self._from_db_object(self.context, self,
                             compute_nodes_db.create(self.context, values))

    @base.remotable
    def _save_in_cell(self, names):
        """Write these fields (only) to the compute_nodes row."""
        self.updated_at = compute_nodes_db.save(
            self.context, self.id, self._to_db_values(self, names))
        self.obj_reset_changes(list(names) + ['updated_at'])

    @base.remotable
    def _destroy_in_cell(self):
        compute_nodes_db.destroy(self.context, self.id)

    # --- writes ------------------------------------------------------------

    def create(self):
        """Record a new node: its row (with a fresh uuid), then -- once the
        gate is open -- its provider, inventories and host usage, exactly
        as _migrate_inventory does for a legacy row (same order, same
        crash safety). Bad capacity config raises InvalidInventory before
        anything is written."""
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        if not self.obj_attr_is_set('uuid') or not self.uuid:
            self.uuid = uuidutils.generate_uuid()
        reserved = ci.reserved_from_conf()
        ci.inventories_for(self, reserved)
        self._create_in_cell()
        _migrate_inventory(self.context, [self], reserved=reserved)

    def save(self):
        """Write changes: capacity and usage to the node's provider
        (inventories, bumping its generation; host usage allocation), the
        rest to its row. Without a provider: the legacy columns, then --
        gate open -- the migration. Bad capacity config (negative ratio,
        reserved above total) raises InvalidInventory before anything is
        written."""
        changes = set(self.obj_what_changed())
        if not changes:
            return
        context = self.context
        if not changes & ci.INPUT_FIELDS:
            self._save_in_cell(sorted(changes))
            return
        reserved = ci.reserved_from_conf()
        inventories = ci.inventories_for(self, reserved)
        placement = ci.placement_for(context, ComputeNode)
        if self.uuid:
            reply = placement.update_compute_provider(
                context, self.uuid, inventories, ci.used_for(self))
            data, gate_open = reply['provider'], reply.get('gate_open')
        else:
            data = None
            gate_open = placement.get_compute_providers(
                context, [], with_gate=True)['gate_open']
        if data is not None:
            columns = changes - set(ci.overlay(data))
            if columns:
                self._save_in_cell(sorted(columns))
            self._apply(data)
            return
        self._save_in_cell(sorted(changes))
        if gate_open:
            _migrate_inventory(context, [self], placement, reserved)

    def destroy(self):
        """Soft-delete the row, then drop the node's provider (a provider
        left behind by a failure is harmless: nothing reads it)."""
        self._destroy_in_cell()
        if not self.uuid:
            return
        try:
            placement = ci.placement_for(self.context, ComputeNode)
            placement.delete_compute_provider(self.context, self.uuid)
        except Exception:
            LOG.exception('Resource provider %s of deleted compute node %s '
                          'was not removed', self.uuid, self.id)


@base.NovaLiteObjectRegistry.register
class ComputeNodeList(base.ObjectListBase, base.NovaLiteObject):
    # 1.0: initial
    # 1.1: loads combine the cell rows (remotable _get_cell_nodes) with
    #      the providers' inventories and allocations
    VERSION = '1.1'
    fields = {'objects': fields.ListOfObjectsField('ComputeNode')}

    @base.remotable_classmethod
    def _get_cell_nodes(cls, context, filters, after_id=None, limit=None,
                        pending=False):
        """[ComputeNodeList of the rows as stored, ids of rows flagged
        migrated]. pending: only rows not flagged migrated."""
        rows, migrated = compute_nodes_db.get_rows(context, filters,
                                                   after_id, limit, pending)
        return [base.obj_make_list(context, cls(context), rows), migrated]

    @classmethod
    def get_all(cls, context):
        return _load(context, {})

    @classmethod
    def get_all_by_host(cls, context, host):
        return _load(context, {'host': host})

    @classmethod
    def get_page(cls, context, after_id=None, limit=None):
        """The cell's nodes in id order after after_id, at most limit
        (one page of a hypervisor listing: its rows and providers only)."""
        return _load(context, {}, after_id, limit)


def _load(context, filters, after_id=None, limit=None):
    """Nodes matching filters in the context's cell, with capacity and
    usage from their providers: one cell query, one API DB query per 2,000
    nodes (plus, once per process, the gate's service versions if some
    node has no provider yet)."""
    placement = ci.placement_for(context, ComputeNode)
    if base.indirection_api(ComputeNodeList, context):
        # A compute: the row comes from its conductor, then is overlaid.
        nodes, migrated = ComputeNodeList._get_cell_nodes(
            context, filters, after_id, limit)
        uuids = [n.uuid for n in nodes if n.uuid]
        reply = placement.get_compute_providers(
            context, uuids, with_gate=len(uuids) < len(nodes))
        found = reply['providers']
        for node in nodes:
            if node.uuid in found:
                node._apply(found[node.uuid])
    else:
        # Build each object once, from its row with the provider's values
        # merged in (big listings: API, scheduler).
        rows, migrated = compute_nodes_db.get_rows(context, filters,
                                                   after_id, limit)
        uuids = [r['uuid'] for r in rows if r['uuid']]
        with_gate = len(uuids) < len(rows)
        if isinstance(placement, local_placement.LocalPlacement):
            # In-process: the fields straight from the API DB rows.
            reply = placement.get_compute_rows(context, uuids,
                                               ci.values_from_row, with_gate)
            found = reply['values']
            for row in rows:
                values = found.get(row['uuid'])
                if values is not None:
                    row.update(values)
        else:
            reply = placement.get_compute_providers(context, uuids,
                                                    with_gate=with_gate)
            found = reply['providers']
            for row in rows:
                if row['uuid'] in found:
                    row.update(ci.overlay(found[row['uuid']]))
        nodes = base.obj_make_list(context, ComputeNodeList(context), rows)
    _finish_load(context, nodes, found, reply['gate_open'], set(migrated),
                 placement)
    return nodes


def _finish_load(context, nodes, found, gate_open, migrated_ids,
                 placement):
    """After nodes got their provider values (found: the uuids that have a
    provider): flag the migrated ones a crash left unflagged, migrate
    those without a provider (gate open)."""
    unflagged = [n.id for n in nodes
                 if n.uuid in found and n.id not in migrated_ids]
    if unflagged:
        # A crash left these between steps 2 and 3 of _migrate_inventory.
        ComputeNode._mark_migrated(context, unflagged)
    rest = [n for n in nodes if not n.uuid or n.uuid not in found]
    if rest and gate_open:
        _migrate_inventory(context, rest, placement)


def _migrate_inventory(context, nodes, placement=None, reserved=None):
    """Move the capacity of nodes (loaded, no provider yet) to inventories.
    Returns the number of nodes that now have a provider.

    Order of writes -- what makes it atomic per node in effect although
    the cell DB and the API DB are different databases:

    1. cell DB: a uuid, for nodes without one, with a conditional
       ``UPDATE ... SET uuid = :new WHERE id = :id AND uuid IS NULL`` and a
       re-read, so concurrent loaders agree on the first writer's uuid;
    2. API DB, ONE transaction: the provider keyed by that uuid, all its
       inventories (VCPU, MEMORY_MB, DISK_GB unless ephemeral storage is
       shared, PCI and NUMA classes) and the host usage allocation (the
       legacy *_used columns). A provider that exists already means
       someone finished this step: it is skipped, never duplicated;
    3. cell DB: inventory_migrated = true -- only a hint that lets the
       online migration's scan skip the node.

    A crash before 1 or inside 2 changes nothing visible (2 commits whole
    or not at all; a uuid alone means nothing). A crash between 1 and 2
    leaves a uuid without a provider: the next load (or the online
    migration) runs 2 with the same uuid. A crash between 2 and 3 leaves
    the node migrated but unflagged: readers already use its provider, and
    the next load sets the flag. No step ever leaves a duplicate provider
    or half an inventory.

    reserved: {class: amount} kept back by the host (create/save: this
    host's config); legacy rows migrate with none, their usage columns
    already counting it. Nodes whose columns make no valid inventory are
    logged and left on their columns.
    """
    migrated = migrate(context, nodes, placement, reserved, with_data=True)
    for node, data in migrated:
        node._apply(data)
    return len(migrated)


def _get(source, name):
    return source[name] if isinstance(source, dict) else getattr(source,
                                                                 name)


def _set_uuid(source, value):
    if isinstance(source, dict):
        source['uuid'] = value
    else:
        source.uuid = value
        source.obj_reset_changes(['uuid'])


def migrate(context, sources, placement, reserved, with_data):
    """_migrate_inventory's steps for nodes given as objects or as row
    dicts (the online migration's batches,
    nova_lite.online_migrations.compute_inventory, skip building objects).
    Returns [(source, provider data or None)] of those now migrated."""
    placement = placement or ci.placement_for(context, ComputeNode)
    without_uuid = [s for s in sources if not _get(s, 'uuid')]
    if without_uuid:
        stored = dict(ComputeNode._claim_uuids(
            context, [[_get(s, 'id'), uuidutils.generate_uuid()]
                      for s in without_uuid]))
        for source in without_uuid:
            if stored.get(_get(source, 'id')):
                _set_uuid(source, stored[_get(source, 'id')])
    items, by_uuid = [], {}
    for source in sources:
        node_uuid = _get(source, 'uuid')
        if not node_uuid:
            continue   # deleted under us
        try:
            inventories = ci.inventories_for(source, reserved)
        except exception.InvalidInventory as exc:
            LOG.warning('Compute node %s (%s) keeps its legacy capacity '
                        'columns: %s', _get(source, 'id'), node_uuid,
                        exc.format_message())
            continue
        by_uuid[node_uuid] = source
        items.append({'uuid': node_uuid, 'name': ci.provider_name(source),
                      'inventories': inventories,
                      'used': ci.used_for(source)})
    if not items:
        return []
    reply = placement.create_compute_providers(context, items,
                                               with_data=with_data)
    for node_uuid, reason in reply.get('invalid', {}).items():
        LOG.warning('Compute node %s keeps its legacy capacity columns: '
                    '%s', node_uuid, reason)
    migrated = [(by_uuid[u], data) for u, data in reply['providers'].items()
                if u in by_uuid]
    if migrated:
        ComputeNode._mark_migrated(context,
                                   [_get(s, 'id') for s, _ in migrated])
    return migrated
