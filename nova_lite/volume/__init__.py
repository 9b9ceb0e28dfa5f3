"""The embedded volume service (stands in for Cinder): see api.py."""
