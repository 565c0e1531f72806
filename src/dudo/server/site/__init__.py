"""What every node of a site must agree on (room codes, who holds a room, budgets, quick
tables, public rooms), and the lobby built on it.
"""
