// Fair dice, checked in this browser with Web Crypto, from the record alone (the server's
// own "verified" is not asked): docs/protocol.md, "Fair dice".
//  1. commitment = SHA-256("dudo-commit-v2|<round>|<bot seats, comma-separated>|<server seed>"),
//     as published before the roll, so which seats are bots is bound too (fairness entries
//     without version 2, from older records: SHA-256(server seed bytes));
//  2. every seat the server spoke for (server_seats, every bot's seat among them) has the
//     seed HMAC-SHA256(key = server seed, "dudo-seat-v1|<round>|<seat>"), first 16 bytes;
//  3. the dice are the stream HMAC-SHA256(key = server seed,
//     "dudo-dice-v1|<round>|<seed 0>|...|<seed n-1>|<block>"), bytes b < 252 giving
//     b % 6 + 1, dealt seat by seat.
// The roll-off (first_opener: rolloff) is rolled the same way, attempt k as a round labelled
// "rolloff-<k>" (two dice for each seat rolling, none for the others); its material is the
// record's rolloff_fairness and its dice are start.rolloff, checked here too.
// This mirrors dudo.fairness; `dudo verify` also replays the actions through the engine.
//
// The seeds fix the stream of dice, not how many each seat takes from it: a cup with its
// last die dropped, or the stream's next die added, or every cup dealt again from the seeds
// with other counts, still has every die follow from the seeds. So each cup must also hold
// as many dice as the record itself says its seat had that round (followCounts): round 1's
// are start.dice_counts; after each call the outcome the record states (record.reveals,
// the engine's own words at the reveal, which name the caller and the bidder as the moves
// do) gives every seat's dice for the next round, and those must follow from the dice
// before it and the loss or gain it states. No rule of the game is applied here. A changed
// die fails the seeds; a round taken out of the middle fails the commitments (they bind
// the round's number) or the counts.
//
// What this check still cannot see, and why:
//  - whether the outcomes the record states are the right ones: judging a call takes the
//    rules (which dice count, ones wild, palifico, what a loss costs, the cap on a calza's
//    gain, whether each bid was legal, when the game is over), which are the engine's
//    alone. So a record rewritten consistently, its cups, counts and outcomes together (a
//    seat said to lose two dice, or a die it did not lose), still passes here, and so does
//    one cut short after a whole round, its material and outcome with it. Nothing seen at
//    the table before the roll commits to the counts (the commitment binds the server
//    seed, the round and the bot seats), so they are only the record's word;
//  - a record without reveals: older records have none and one they were taken out of
//    looks the same, so only round 1 is counted and the verdict says so;
//  - the points of a points race, which are not followed.
// `dudo verify` and the server's analysis replay every move through the engine: they
// catch all of these.
import {t} from './i18n.js';

const encoder = new TextEncoder();
const HEX = /^(?:[0-9a-fA-F]{2})+$/;

export function cryptoAvailable() {
  return Boolean(globalThis.crypto && crypto.subtle);
}

// `hex` as bytes; `problem` (in the page's language) is thrown when it is no hex.
function bytesOf(hex, problem) {
  if (typeof hex !== 'string' || !HEX.test(hex)) throw new Error(problem);
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

function hexOf(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');
}

export async function sha256Hex(bytes) {
  return hexOf(await crypto.subtle.digest('SHA-256', bytes));
}

async function hmacKey(serverSeed) {
  return crypto.subtle.importKey('raw', bytesOf(serverSeed, t('rp.fair_not_hex')),
    {name: 'HMAC', hash: 'SHA-256'}, false, ['sign']);
}

async function hmac(key, text) {
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(text)));
}

// The seed of a seat the server speaks for, bound to the committed server seed.
export async function serverSeatSeed(key, round, seat) {
  return hexOf(await hmac(key, `dudo-seat-v1|${round}|${seat}`)).slice(0, 32);
}

// Every seat's dice for a round, from the server seed and all seats' seeds.
export async function deriveDice(key, seatSeeds, round, counts) {
  const prefix = ['dudo-dice-v1', String(round), ...seatSeeds].join('|');
  const needed = counts.reduce((a, b) => a + b, 0);
  const dice = [];
  for (let block = 0; dice.length < needed; block += 1) {
    for (const byte of await hmac(key, `${prefix}|${block}`)) if (byte < 252) dice.push((byte % 6) + 1);
  }
  const cups = [];
  let start = 0;
  for (const count of counts) {
    cups.push(dice.slice(start, start + count));
    start += count;
  }
  return cups;
}

// A seat in the sentences of the count checks, in the page's language.
function seatWords(seat, names) {
  return t('rp.fair_seat', {n: seat + 1, name: names[seat] || t('rp.player', {n: seat + 1})});
}

const CALLS = ['dudo', 'calza'];

function isCounts(value, players) {
  return Array.isArray(value) && value.length === players && value.every((n) => Number.isInteger(n) && n >= 0);
}

// The dice each seat held, round by round, as the record states them, and where its
// statements do not add up: {counts: [per round: every seat's count, or null where the
// record does not say], problems: [per round: a sentence or null], problem: a sentence
// about the record or null, stated: whether the record states its outcomes at all}. A
// round's problem is that its counts do not follow from the round before (the last
// outcome's, after the last round, is the last round's), or that the outcome it ends with
// cannot be read or is not of its last moves; a cup that does not hold its count is
// verifyRound's.
export function followCounts(record) {
  const rounds = Array.isArray(record?.rounds) ? record.rounds : [];
  const names = Array.isArray(record?.names) ? record.names : [];
  const players = record?.players;
  const counts = rounds.map(() => null);
  const problems = rounds.map(() => null);
  const reveals = record?.reveals;
  // Without reveals (a record from before the outcomes were stated, or one they were
  // taken out of: nothing tells the two apart) only round 1 is counted, and the verdict
  // says so.
  const found = {counts, problems, problem: null, stated: reveals !== undefined};
  if (!Number.isInteger(players) || !rounds.length) return found;
  if (isCounts(record.start?.dice_counts, players)) counts[0] = record.start.dice_counts;
  if (reveals === undefined) return found;
  // Every round but the last ends with a call; the last one too, unless the game stopped.
  if (!Array.isArray(reveals) || reveals.length < rounds.length - 1 || reveals.length > rounds.length) {
    found.problem = t('rp.fair_reveals_count', {n: Array.isArray(reveals) ? reveals.length : 0, rounds: rounds.length});
    return found;
  }
  const flag = (index, sentence) => { problems[index] = problems[index] || sentence; };
  const who = (seat) => seatWords(seat, names);
  const points = record.rules?.format === 'points';
  reveals.forEach((reveal, i) => {
    const into = Math.min(i + 1, rounds.length - 1); // the round these counts are for
    const seat = (n) => Number.isInteger(n) && n >= 0 && n < players;
    if (!reveal || typeof reveal !== 'object' || !isCounts(reveal.dice_counts, players) || !CALLS.includes(reveal.call)
        || !seat(reveal.caller) || !seat(reveal.bidder) || !(reveal.loser === null || seat(reveal.loser))
        || !(Number.isInteger(reveal.change) && reveal.change >= 0)) {
      flag(i, t('rp.fair_reveal_bad'));
      return;
    }
    // Who called what on whose bid: the round's own moves say it too.
    const actions = Array.isArray(rounds[i]?.actions) ? rounds[i].actions : [];
    const call = actions[actions.length - 1];
    const bid = actions.slice(0, -1).reverse().find((action) => action && 'bid' in action);
    if (!call || !CALLS.includes(call.call) || !seat(call.seat) || !seat(bid?.seat)) {
      flag(i, t('rp.fair_reveal_no_call'));
    } else if (call.seat !== reveal.caller || call.call !== reveal.call || bid.seat !== reveal.bidder) {
      flag(i, t('rp.fair_reveal_moves', {caller: who(reveal.caller), call: t(`call.${reveal.call}`),
        bidder: who(reveal.bidder), moveCaller: who(call.seat), moveCall: t(`call.${call.call}`), moveBidder: who(bid.seat)}));
    }
    if (i + 1 < rounds.length) counts[i + 1] = reveal.dice_counts;
    const before = counts[i];
    if (!before) return;
    // The outcome as the record states it: the loser lost `change` dice; with no loser
    // (an exact calza) the caller won `change` back; a points race changes no dice.
    const expected = [...before];
    let outcome;
    if (points) {
      outcome = t('rp.fair_outcome_points');
    } else if (reveal.loser === null) {
      expected[reveal.caller] += reveal.change;
      outcome = t('rp.fair_outcome_won', {name: who(reveal.caller), n: reveal.change});
    } else {
      expected[reveal.loser] -= reveal.change;
      outcome = t('rp.fair_outcome_lost', {name: who(reveal.loser), n: reveal.change});
    }
    const wrong = expected.findIndex((n, s) => n !== reveal.dice_counts[s]);
    if (wrong < 0) return;
    const words = {seat: who(wrong), n: reveal.dice_counts[wrong], before: before[wrong], prev: i + 1,
      outcome, expected: expected[wrong]};
    flag(into, t(i + 1 < rounds.length ? 'rp.fair_counts_follow' : 'rp.fair_counts_after', words));
  });
  return found;
}

// One round: {round, ok, checks: [sentences that held], problem: sentence | null}.
// `counts`: every seat's dice this round as the record states them (followCounts), if it
// does: each cup must hold its seat's count.
export async function verifyRound(number, played, fair, bots, names = [], counts = null) {
  const result = {round: number, ok: false, checks: [], problem: null};
  const v2Only = typeof number === 'string'; // a roll-off attempt: always fairness v2
  const who = (seat) => seatWords(seat, names);
  try {
    if (!fair || typeof fair !== 'object') throw new Error(t('rp.fair_no_material'));
    if (fair.round !== number) throw new Error(t('rp.fair_labelled', {n: fair.round}));
    const cups = played?.dice;
    if (!Array.isArray(cups) || !cups.every((cup) => Array.isArray(cup))) throw new Error(t('rp.fair_no_dice'));
    const seeds = fair.seat_seeds;
    if (!Array.isArray(seeds) || seeds.length !== cups.length || !seeds.every((s) => typeof s === 'string')) {
      throw new Error(t('rp.fair_seat_seeds', {n: Array.isArray(seeds) ? seeds.length : 0, seats: cups.length}));
    }
    const serverSeed = bytesOf(fair.server_seed, t('rp.fair_not_hex'));
    let botSeats = bots;
    let commitment;
    if (fair.version === 2) {
      botSeats = fair.bot_seats;
      if (!Array.isArray(botSeats) || !botSeats.every(Number.isInteger)) {
        throw new Error(t('rp.fair_no_bot_seats'));
      }
      for (const seat of bots) {
        if (!botSeats.includes(seat)) throw new Error(t('rp.fair_bot_not_bound', {seat: who(seat)}));
      }
      const seats = [...botSeats].sort((a, b) => a - b).join(',');
      commitment = await sha256Hex(encoder.encode(`dudo-commit-v2|${number}|${seats}|${fair.server_seed}`));
      if (commitment !== fair.commitment) {
        throw new Error(t('rp.fair_commitment_bad_v2'));
      }
    } else if (fair.version === undefined && !v2Only) {
      commitment = await sha256Hex(serverSeed);
      if (commitment !== fair.commitment) {
        throw new Error(t('rp.fair_commitment_bad'));
      }
    } else {
      throw new Error(t('rp.fair_unknown_version', {version: fair.version}));
    }
    result.checks.push(t('rp.fair_commitment_ok', {hash: commitment.slice(0, 12)}));
    const serverSeats = fair.server_seats;
    if (!Array.isArray(serverSeats) || !serverSeats.every(Number.isInteger)) {
      throw new Error(t('rp.fair_no_server_seats'));
    }
    for (const seat of botSeats) {
      if (!serverSeats.includes(seat)) throw new Error(t('rp.fair_bot_seed_not_server', {seat: who(seat)}));
    }
    const key = await hmacKey(fair.server_seed);
    for (const seat of serverSeats) {
      if (!(seat >= 0 && seat < seeds.length)) throw new Error(t('rp.fair_no_seat', {n: seat + 1}));
      if (seeds[seat] !== await serverSeatSeed(key, number, seat)) {
        throw new Error(t('rp.fair_seed_not_following', {seat: who(seat)}));
      }
    }
    result.checks.push(serverSeats.length
      ? t('rp.fair_server_seeds', {n: serverSeats.length}) : t('rp.fair_every_seat_seeded'));
    const derived = await deriveDice(key, seeds, number, cups.map((cup) => cup.length));
    for (let seat = 0; seat < cups.length; seat += 1) {
      for (let i = 0; i < cups[seat].length; i += 1) {
        if (cups[seat][i] !== derived[seat][i]) {
          throw new Error(t('rp.fair_die_wrong', {seat: who(seat), i: i + 1, shown: cups[seat][i], derived: derived[seat][i]}));
        }
      }
    }
    const total = cups.reduce((sum, cup) => sum + cup.length, 0);
    result.checks.push(t('rp.fair_dice_recomputed', {n: total}));
    if (counts) {
      for (let seat = 0; seat < Math.max(cups.length, counts.length); seat += 1) {
        const held = cups[seat] ? cups[seat].length : 0;
        const count = counts[seat] ?? 0;
        if (held !== count) {
          throw new Error(t('rp.fair_cup_count', {seat: seatWords(seat, names), n: held, count}));
        }
      }
      result.checks.push(t('rp.fair_counts_ok'));
    }
    result.ok = true;
  } catch (error) {
    result.problem = error.message || String(error);
  }
  return result;
}

// The roll-off's attempts as rounds to check: [{label, dice}] (dice per seat: the pair of a
// seat rolling, [] for the others), or a problem if start.rolloff does not stand (each
// attempt one pair per seat rolling, the tied seats rolling next, the last one untied).
export function rolloffAttempts(record) {
  const start = record?.start || {};
  const attempts = start.rolloff;
  const players = record?.players;
  if (attempts === undefined) {
    if (record?.rules?.first_opener === 'rolloff') {
      return {attempts: [], problem: t('rp.fair_rolloff_missing')};
    }
    if (Array.isArray(record?.rolloff_fairness) && record.rolloff_fairness.length) {
      return {attempts: [], problem: t('rp.fair_rolloff_unasked')};
    }
    return {attempts: [], problem: null};
  }
  if (!Array.isArray(attempts) || !Number.isInteger(players)) return {attempts: [], problem: t('rp.fair_rolloff_not_list')};
  const counts = Array.isArray(start.dice_counts) ? start.dice_counts : Array(players).fill(1);
  let rolling = [...Array(players).keys()].filter((seat) => counts[seat] > 0);
  const found = [];
  for (let k = 0; k < attempts.length; k += 1) {
    const pairs = attempts[k];
    if (!rolling.length) return {attempts: found, problem: t('rp.fair_rolloff_after_tie', {n: k + 1})};
    if (!Array.isArray(pairs) || pairs.length !== rolling.length
        || !pairs.every((pair) => Array.isArray(pair) && pair.length === 2 && pair.every((d) => Number.isInteger(d) && d >= 1 && d <= 6))) {
      return {attempts: found, problem: t('rp.fair_rolloff_pairs', {attempt: k + 1, n: rolling.length})};
    }
    const dice = Array.from({length: players}, () => []);
    rolling.forEach((seat, i) => { dice[seat] = pairs[i]; });
    found.push({label: `rolloff-${k + 1}`, dice});
    const totals = pairs.map(([a, b]) => a + b);
    const best = Math.max(...totals);
    const tied = rolling.filter((_, i) => totals[i] === best);
    rolling = tied.length > 1 ? tied : [];
  }
  if (rolling.length) return {attempts: found, problem: t('rp.fair_rolloff_tied', {seats: rolling.map((s) => s + 1).join(', ')})};
  return {attempts: found, problem: null};
}

// The whole record: {ok, rounds: [per round], problem: sentence about the record | null}.
export async function verifyRecord(record) {
  const rounds = Array.isArray(record?.rounds) ? record.rounds : [];
  const fairness = Array.isArray(record?.fairness) ? record.fairness : [];
  const bots = Array.isArray(record?.bots) ? record.bots.filter(Number.isInteger) : [];
  const names = Array.isArray(record?.names) ? record.names : [];
  if (!rounds.length) return {ok: false, rounds: [], problem: t('rp.fair_no_rounds')};
  const stated = followCounts(record);
  const checked = [];
  for (let i = 0; i < rounds.length; i += 1) {
    const round = await verifyRound(i + 1, rounds[i], fairness[i], bots, names, stated.counts[i]);
    if (round.ok && stated.problems[i]) Object.assign(round, {ok: false, problem: stated.problems[i]});
    checked.push(round);
  }
  const rolloff = [];
  const attempts = rolloffAttempts(record);
  const material = Array.isArray(record?.rolloff_fairness) ? record.rolloff_fairness : [];
  for (let i = 0; i < attempts.attempts.length; i += 1) {
    const attempt = attempts.attempts[i];
    const checkedAttempt = await verifyRound(attempt.label, {dice: attempt.dice}, material[i], bots, names);
    checkedAttempt.attempt = i + 1;
    rolloff.push(checkedAttempt);
  }
  let problem = fairness.length < rounds.length
    ? t('rp.fair_material_short', {rounds: rounds.length, n: fairness.length}) : null;
  problem = problem || attempts.problem || (attempts.attempts.length !== material.length
    ? t('rp.fair_rolloff_material', {n: attempts.attempts.length, material: material.length}) : null)
    || stated.problem;
  return {ok: !problem && checked.every((round) => round.ok) && rolloff.every((a) => a.ok),
    rounds: checked, rolloff, problem, countsStated: stated.stated};
}
