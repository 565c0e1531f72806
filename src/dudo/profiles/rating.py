"""Ratings among friends: OpenSkill's Weng-Lin Plackett-Luce model (the ``openskill``
package, as ``dudo arena --ladder`` uses), one rating per profile.

Only profiles are rated: a finished game counts when at least two different profiles sat
at the table, and only those seats take part (bots, and people without a profile, are
left out, as if the game had been between the profiles alone: their places keep their
order). A bot's strength is not a person's, and a fixed bot rating would reward farming
easy bots.
"""

from __future__ import annotations

from collections.abc import Sequence

MU = 25.0
SIGMA = MU / 3


def shown(mu: float, sigma: float) -> float:
    """The number a leaderboard sorts by: OpenSkill's ordinal (mu - 3 sigma), so a new
    profile starts at 0 and climbs as its games make the rating surer."""
    return round(mu - 3 * sigma, 2)


def rate(
    ratings: Sequence[tuple[float, float]], places: Sequence[int]
) -> list[tuple[float, float]]:
    """New (mu, sigma) for each player after one game where they finished at ``places``
    (1 is first; equal places are a tie)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0)
    teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    updated = model.rate(teams, ranks=list(places))
    return [(team[0].mu, team[0].sigma) for team in updated]
