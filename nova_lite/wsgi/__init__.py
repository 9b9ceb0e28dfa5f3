"""Serving the REST API: ``server`` (eventlet's WSGI server, used by
nova-lite-api and the all-in-one) and ``osapi_compute`` (the
``application`` for uwsgi, gunicorn or mod_wsgi)."""
