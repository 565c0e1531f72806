"""The ASGI application: its lifespan, HTTP endpoints, the table socket, pages, replays and
static files.
"""
