from nova_lite import context as nova_context
from nova_lite import objects


def test_scatter_gather_reads_every_cell(cells_env):
    ctxt = cells_env.ctxt
    for name in ('cell1', 'cell2'):
        with nova_context.target_cell(ctxt, cells_env.cells[name]) as cctxt:
            objects.Service(cctxt, host='h-' + name, binary='nova-compute',
                            topic='compute').create()
    cells = objects.CellMappingList.get_all(ctxt)
    results = nova_context.scatter_gather_cells(
        ctxt, cells, 10,
        lambda c: [s.host for s in objects.ServiceList.get_all(c)])
    by_name = {c.name: results[c.uuid] for c in cells}
    assert by_name == {'cell0': [], 'cell1': ['h-cell1'], 'cell2': ['h-cell2']}
