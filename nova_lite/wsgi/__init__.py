"""Serving the REST API: ``server`` (eventlet's WSGI server), ``service``
(the API as an oslo.service service: nova-lite-api and the all-in-one)
and ``osapi_compute`` (the ``application`` for uwsgi, gunicorn or
mod_wsgi)."""
