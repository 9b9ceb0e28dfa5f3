"""The only place in nova_lite that touches a library's private names.

One module per library. Each declares INTERNALS, the library internals it
relies on (a name each, as doc/private-apis.rst lists them), and says
per internal which upstream change would let it go. Each has a canary
test in tests/unit/compat/ that fails on a library release where one of
them changed. Modules here import libraries only, never nova_lite
(the lowest layer: tests/unit/test_layers.py).
"""
