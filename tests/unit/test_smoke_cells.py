import logging

from nova_lite import context as nova_context
from nova_lite import exception
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


def test_a_cells_error_of_ours_is_an_answer_not_logged_as_a_failure(
        cells_env, caplog):
    """A server deleted while its cell is read (InstanceNotFound) is an
    answer: no ERROR line with a traceback, as other failures get."""
    ctxt = cells_env.ctxt
    cells = [cells_env.cells['cell1']]

    def not_found(cctxt):
        raise exception.InstanceNotFound(instance_id='gone')

    def broken(cctxt):
        raise RuntimeError('the cell database went away')

    with caplog.at_level(logging.DEBUG, logger='nova_lite.context'):
        result = nova_context.scatter_gather_cells(ctxt, cells, 10,
                                                   not_found)
        assert isinstance(result[cells[0].uuid], exception.InstanceNotFound)
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert any('answered' in r.getMessage() for r in caplog.records)
        result = nova_context.scatter_gather_cells(ctxt, cells, 10, broken)
    assert isinstance(result[cells[0].uuid], RuntimeError)
    [error] = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert error.exc_info and 'Error gathering' in error.getMessage()
