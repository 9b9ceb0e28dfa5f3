"""Notification payloads: versioned objects sent as Nova sends them."""
