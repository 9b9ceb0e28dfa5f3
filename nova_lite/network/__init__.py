"""The embedded network service (stands in for Neutron): see api.py."""
