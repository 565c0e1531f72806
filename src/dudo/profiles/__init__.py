"""Players who come back: a profile without sign-up, stats across games, ratings among
friends, and the standings of a room's series of rematches.

- :mod:`dudo.profiles.book`: where profiles, ratings and finished games' links live (in
  memory; :mod:`dudo.profiles.sql` in the game store's database).
- :mod:`dudo.profiles.stats`: a player's numbers, from the stored game records.
- :mod:`dudo.profiles.rating`: OpenSkill ratings (only profiles are rated).
- :mod:`dudo.profiles.series`: a room's standings; the hook rooms call at a game's end.
- :mod:`dudo.profiles.desk`: the HTTP API.
"""
