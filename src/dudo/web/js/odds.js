// The odds helper: how likely the standing bid is, given only your own dice. Information,
// never a rule: the server decides everything. Each unseen die shows the face with
// probability 1/6, or 1/3 when ones are wild and the face is not one (the rule of thumb
// "a third of the unseen dice", made exact with the binomial distribution).

function choose(n, k) {
  let result = 1;
  for (let i = 1; i <= k; i += 1) result = (result * (n - k + i)) / i;
  return result;
}

export function atLeast(need, unseen, p) {
  if (need <= 0) return 1;
  if (need > unseen) return 0;
  let total = 0;
  for (let k = need; k <= unseen; k += 1) total += choose(unseen, k) * p ** k * (1 - p) ** (unseen - k);
  return Math.min(1, total);
}

export function bidOdds(game, quantity, face) {
  const wild = game.wild && face !== 1;
  const own = game.dice.filter((d) => d === face || (wild && d === 1)).length;
  const total = game.dice_counts.reduce((a, b) => a + b, 0);
  const unseen = total - game.dice.length;
  const p = wild ? 1 / 3 : 1 / 6;
  return {own, unseen, p, expected: own + unseen * p, chance: atLeast(quantity - own, unseen, p)};
}
