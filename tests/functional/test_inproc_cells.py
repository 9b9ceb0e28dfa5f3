"""A state directory made when the all-in-one's cells were on fake://
URLs (then served by the in-process transport, now by oslo.messaging's
fake driver) has its cells moved to inproc:// when it is prepared."""
from nova_lite import allinone
from nova_lite import context as nova_context
from nova_lite import objects


def _transport_urls(ctxt):
    return {cell.name: cell.transport_url
            for cell in objects.CellMappingList.get_all(ctxt)}


def test_old_fake_cell_urls_move_to_inproc(tmp_path):
    state = str(tmp_path / 'state')
    allinone.configure(state)
    try:
        allinone.prepare_databases(state, 2)
        ctxt = nova_context.get_admin_context()
        assert _transport_urls(ctxt) == {
            'cell0': 'none:///', 'cell1': 'inproc:///cell1',
            'cell2': 'inproc:///cell2'}
        old = objects.CellMappingList.get_all(ctxt)
        for cell in old:
            if cell.name != 'cell0':
                cell.transport_url = 'fake:///' + cell.name
                cell.save()
        allinone.prepare_databases(state, 2)
        assert _transport_urls(ctxt) == {
            'cell0': 'none:///', 'cell1': 'inproc:///cell1',
            'cell2': 'inproc:///cell2'}
    finally:
        allinone.unconfigure()
