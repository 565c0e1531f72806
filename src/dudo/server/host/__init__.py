"""Running the server on a machine: processes and nodes, the banner, addresses, checks before
start.
"""
