"""The game server: rooms, seats, timers, bots, fair dice and a WebSocket protocol.

``create_app`` builds the ASGI application; ``dudo serve`` runs it with uvicorn.
"""

from dudo.server.web.app import ServerSettings, create_app

__all__ = ["ServerSettings", "create_app"]
