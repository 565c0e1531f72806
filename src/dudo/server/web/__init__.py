"""The ASGI application: its lifespan, HTTP endpoints, the table socket, pages, replays and
static files.

``app`` assembles it (``create_app``) from modules one job each: ``settings``, ``state`` (the
typed state every endpoint reads), ``lifespan``, ``rooms`` (the rooms API), ``health`` (health
and metrics), ``table_socket``, ``desk`` (the profile API's wiring), ``callers`` (who sent a
request), ``middleware``, ``pages``, ``replays``, ``assets`` and ``share``.
"""
