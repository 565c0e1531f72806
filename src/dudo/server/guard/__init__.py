"""Who may come in, and how much: limits per address and network, trusted proxies, refused
handshakes.
"""
