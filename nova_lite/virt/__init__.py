"""Virt drivers (the simulated hypervisor in fake.py) and what they report.

SHARED_EPHEMERAL_STORAGE: a driver puts this key, with a true value
("true", "1", "yes"), in a node's stats when the node's ephemeral disks
live on storage shared with other nodes. Such a node gets no DISK_GB
inventory: the disk is not its own to offer.
"""
SHARED_EPHEMERAL_STORAGE = 'ephemeral_storage_shared'
