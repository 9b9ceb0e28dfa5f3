"""The embedded image service (stands in for Glance): see api.py."""
