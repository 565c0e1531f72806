"""Many nodes as one site: presence and leases in Redis, and the relay to the node that holds a
room.
"""
