"""The table: one room's actor and its parts (state, schedule, audience, sockets, names); no
HTTP, no Redis.
"""
