"""The nova-compute service: its RPC endpoint (manager.ComputeManager)
and the parts it is composed of. Nothing here is imported by the
compute API, nor does anything here import it."""
