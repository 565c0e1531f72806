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

const encoder = new TextEncoder();
const HEX = /^(?:[0-9a-fA-F]{2})+$/;

export function cryptoAvailable() {
  return Boolean(globalThis.crypto && crypto.subtle);
}

function bytesOf(hex, what) {
  if (typeof hex !== 'string' || !HEX.test(hex)) throw new Error(`${what} is not hex bytes`);
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
  return crypto.subtle.importKey('raw', bytesOf(serverSeed, 'the server seed'),
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

// One round: {round, ok, checks: [sentences that held], problem: sentence | null}.
export async function verifyRound(number, played, fair, bots, names = []) {
  const result = {round: number, ok: false, checks: [], problem: null};
  const v2Only = typeof number === 'string'; // a roll-off attempt: always fairness v2
  const who = (seat) => (names[seat] ? `seat ${seat + 1} (${names[seat]})` : `seat ${seat + 1}`);
  try {
    if (!fair || typeof fair !== 'object') throw new Error('no fairness material for this round');
    if (fair.round !== number) throw new Error(`the material is labelled round ${fair.round}`);
    const cups = played?.dice;
    if (!Array.isArray(cups) || !cups.every((cup) => Array.isArray(cup))) throw new Error('no dice');
    const seeds = fair.seat_seeds;
    if (!Array.isArray(seeds) || seeds.length !== cups.length || !seeds.every((s) => typeof s === 'string')) {
      throw new Error(`${Array.isArray(seeds) ? seeds.length : 'no'} seat seeds for ${cups.length} seats`);
    }
    const serverSeed = bytesOf(fair.server_seed, 'the server seed');
    let botSeats = bots;
    let commitment;
    if (fair.version === 2) {
      botSeats = fair.bot_seats;
      if (!Array.isArray(botSeats) || !botSeats.every(Number.isInteger)) {
        throw new Error('the record does not say which seats the commitment binds as bots (bot_seats)');
      }
      for (const seat of bots) {
        if (!botSeats.includes(seat)) throw new Error(`${who(seat)} is a bot, yet the commitment does not bind it as one`);
      }
      const seats = [...botSeats].sort((a, b) => a - b).join(',');
      commitment = await sha256Hex(encoder.encode(`dudo-commit-v2|${number}|${seats}|${fair.server_seed}`));
      if (commitment !== fair.commitment) {
        throw new Error('the server seed and the bot seats do not match the commitment published before the roll');
      }
    } else if (fair.version === undefined && !v2Only) {
      commitment = await sha256Hex(serverSeed);
      if (commitment !== fair.commitment) {
        throw new Error('the server seed does not match the commitment published before the roll');
      }
    } else {
      throw new Error(`unknown fairness version ${fair.version}`);
    }
    result.checks.push(`commitment ${commitment.slice(0, 12)}… matches`);
    const serverSeats = fair.server_seats;
    if (!Array.isArray(serverSeats) || !serverSeats.every(Number.isInteger)) {
      throw new Error('the record does not say which seeds the server chose (server_seats)');
    }
    for (const seat of botSeats) {
      if (!serverSeats.includes(seat)) throw new Error(`${who(seat)} is a bot, yet its seed is not marked as the server's`);
    }
    const key = await hmacKey(fair.server_seed);
    for (const seat of serverSeats) {
      if (!(seat >= 0 && seat < seeds.length)) throw new Error(`there is no seat ${seat + 1}`);
      if (seeds[seat] !== await serverSeatSeed(key, number, seat)) {
        throw new Error(`the server's seed for ${who(seat)} does not follow from the committed server seed`);
      }
    }
    result.checks.push(serverSeats.length
      ? `${serverSeats.length} server seed${serverSeats.length === 1 ? '' : 's'} bound`
      : 'every seat seeded');
    const derived = await deriveDice(key, seeds, number, cups.map((cup) => cup.length));
    for (let seat = 0; seat < cups.length; seat += 1) {
      for (let i = 0; i < cups[seat].length; i += 1) {
        if (cups[seat][i] !== derived[seat][i]) {
          throw new Error(`${who(seat)}, die ${i + 1}: the record shows ${cups[seat][i]}, the seeds give ${derived[seat][i]}`);
        }
      }
    }
    const total = cups.reduce((sum, cup) => sum + cup.length, 0);
    result.checks.push(`${total} dice recomputed`);
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
      return {attempts: [], problem: 'the rules roll off for the first opener, but the record has no roll-off'};
    }
    if (Array.isArray(record?.rolloff_fairness) && record.rolloff_fairness.length) {
      return {attempts: [], problem: 'the record has roll-off fairness material but no roll-off'};
    }
    return {attempts: [], problem: null};
  }
  if (!Array.isArray(attempts) || !Number.isInteger(players)) return {attempts: [], problem: 'the roll-off is not a list of attempts'};
  const counts = Array.isArray(start.dice_counts) ? start.dice_counts : Array(players).fill(1);
  let rolling = [...Array(players).keys()].filter((seat) => counts[seat] > 0);
  const found = [];
  for (let k = 0; k < attempts.length; k += 1) {
    const pairs = attempts[k];
    if (!rolling.length) return {attempts: found, problem: `roll-off attempt ${k + 1} comes after the tie was broken`};
    if (!Array.isArray(pairs) || pairs.length !== rolling.length
        || !pairs.every((pair) => Array.isArray(pair) && pair.length === 2 && pair.every((d) => Number.isInteger(d) && d >= 1 && d <= 6))) {
      return {attempts: found, problem: `roll-off attempt ${k + 1}: ${rolling.length} pairs of dice 1..6 are needed`};
    }
    const dice = Array.from({length: players}, () => []);
    rolling.forEach((seat, i) => { dice[seat] = pairs[i]; });
    found.push({label: `rolloff-${k + 1}`, dice});
    const totals = pairs.map(([a, b]) => a + b);
    const best = Math.max(...totals);
    const tied = rolling.filter((_, i) => totals[i] === best);
    rolling = tied.length > 1 ? tied : [];
  }
  if (rolling.length) return {attempts: found, problem: `the roll-off leaves seats ${rolling.map((s) => s + 1).join(', ')} tied`};
  return {attempts: found, problem: null};
}

// The whole record: {ok, rounds: [per round], problem: sentence about the record | null}.
export async function verifyRecord(record) {
  const rounds = Array.isArray(record?.rounds) ? record.rounds : [];
  const fairness = Array.isArray(record?.fairness) ? record.fairness : [];
  const bots = Array.isArray(record?.bots) ? record.bots.filter(Number.isInteger) : [];
  const names = Array.isArray(record?.names) ? record.names : [];
  if (!rounds.length) return {ok: false, rounds: [], problem: 'the record has no rounds'};
  const checked = [];
  for (let i = 0; i < rounds.length; i += 1) {
    checked.push(await verifyRound(i + 1, rounds[i], fairness[i], bots, names));
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
    ? `${rounds.length} rounds but fairness material for ${fairness.length}` : null;
  problem = problem || attempts.problem || (attempts.attempts.length !== material.length
    ? `${attempts.attempts.length} roll-off attempts but fairness material for ${material.length}` : null);
  return {ok: !problem && checked.every((round) => round.ok) && rolloff.every((a) => a.ok),
    rounds: checked, rolloff, problem};
}
