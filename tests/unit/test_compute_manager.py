"""ComputeManager declares the whole compute RPC API on one class.

Every method nova_lite.compute.rpcapi's client casts or calls is a
method defined on ComputeManager itself (no mixins), taking every
keyword argument the client sends; and the endpoint exposes nothing
else but the service framework's hooks.
"""
import ast
import inspect

from nova_lite.compute import rpcapi
from nova_lite.compute.service import manager

# What the service framework (nova_lite.service) calls on an endpoint.
SERVICE_HOOKS = {'init_host', 'cleanup_host', 'periodic_tasks',
                 'update_available_resource'}


def _sent():
    """{RPC method name: keyword arguments the client sends with it},
    from every cast/call (or _cast_*/_call_* helper) in rpcapi.py."""
    tree = ast.parse(inspect.getsource(rpcapi))
    sent = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(
            func, 'id', '')
        if name not in ('cast', 'call') and not name.startswith(
                ('_cast', '_call')):
            continue
        for arg in node.args:
            if (isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                    and arg.value.isidentifier()):
                sent.setdefault(arg.value, set()).update(
                    k.arg for k in node.keywords if k.arg)
    return sent


def test_the_client_sends_methods_found_in_rpcapi():
    sent = _sent()
    assert {'build_and_run_instance', 'stop_instance', 'prep_resize',
            'attach_volume',
            'finish_revert_snapshot_based_resize_at_source'} <= set(sent)


def test_the_manager_is_one_class_of_no_mixins():
    assert manager.ComputeManager.__mro__ == (manager.ComputeManager,
                                              object)


def test_every_rpc_method_is_declared_on_the_manager():
    declared = vars(manager.ComputeManager)
    missing = sorted(m for m in _sent() if not callable(declared.get(m)))
    assert missing == []


def test_every_rpc_method_takes_what_the_client_sends():
    wrong = []
    for method, kwargs in sorted(_sent().items()):
        params = inspect.signature(
            getattr(manager.ComputeManager, method)).parameters
        if list(params)[:2] != ['self', 'context'] or not kwargs <= set(
                params):
            wrong.append((method, sorted(kwargs - set(params))))
    assert wrong == []


def test_the_endpoint_exposes_only_the_rpc_api_and_the_hooks():
    public = {name for name, value in vars(manager.ComputeManager).items()
              if inspect.isfunction(value) and not name.startswith('_')}
    assert public == set(_sent()) | SERVICE_HOOKS
