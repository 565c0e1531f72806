// A finished game's page in words: what each move was ("Ana raises to three 5s"), what
// the hard bot would have done, each reveal's outcome, the roll-off, and the sentence for
// each step of the replay (replaystage.js says it; replayanalysis.js lists it). The
// percentages and signed values as the page prints them. `page` is the GamePage
// (replay.js): its record, its analysis, and the players' names.
import {bidWords, decimal, has, t} from './i18n.js';
import {escapeHtml, listNames} from './page.js';
import {anyBidWords, handWords, isHand} from './hands.js';

export const pct = (x) => {
  if (x == null) return '–';
  if (x > 0 && x < 0.005) return '<1%';
  if (x < 1 && x > 0.995) return '>99%';
  return `${Math.round(x * 100)}%`;
};
export const signed = (x) => `${x < 0 ? '−' : '+'}${decimal(Math.abs(x), 2)}`;

// A move the seat's player did not make: the record says who did (a bot either way).
export function byWords(by) {
  return t(by === 'timer' ? 'rp.by_timer' : 'rp.by_stand_in');
}

// A mistake the analysis marked, in the page's language: the sentence for its code
// (rp.mistake.<code>) with its parameters (chances, printed as percentages); the
// server's English text for a code this page does not know.
export function mistakeWords(mistake) {
  const key = `rp.mistake.${mistake?.code}`;
  if (!mistake?.code || !has(key)) return mistake?.text || '';
  const params = {};
  for (const [name, value] of Object.entries(mistake.params || {})) {
    params[name] = typeof value === 'number' ? pct(value) : String(value);
  }
  const words = t(key, params);
  return /\{\w+\}/.test(words) ? mistake.text || words : words;
}

// A sentence with one part in bold: MARK in the words is where it goes (both escaped).
export const MARK = '\u0001';
export function strong(words, bold) {
  return escapeHtml(words).replace(MARK, `<strong>${escapeHtml(bold)}</strong>`);
}

export function actionWords(action, kind) {
  if (!action) return t('rp.let_calza_go');
  if (action.bid) {
    return t(kind === 'open' ? 'rp.opens' : kind === 'raise' ? 'rp.raises' : 'rp.bids', {bid: anyBidWords(action.bid)});
  }
  return action.call === 'calza' ? t('rp.calls_calza') : t('rp.calls_liar');
}

export function hardWords(action) {
  if (!action) return t('rp.hard_let_go');
  if (action.bid) return t('rp.hard_bid', {bid: anyBidWords(action.bid)});
  return action.call === 'calza' ? t('rp.hard_calza') : t('rp.hard_liar');
}

export function outcomeWords(page, reveal, out = []) {
  if (!reveal) return '';
  if (isHand(reveal.bid)) {
    const shown = t(reveal.outcome === 'holds' ? 'rp.hand_holds' : 'rp.hand_lie', {hand: handWords(reveal.bid)});
    if (reveal.loser == null) return shown;
    const n = reveal.change || 1;
    const name = page.name(reveal.loser);
    const loser = page.points ? t('rp.takes_points', {name, n})
      : t((out || []).includes(reveal.loser) ? 'rp.loses_out' : 'rp.loses', {name, n});
    return `${shown} ${loser}`;
  }
  const [q, f] = reveal.bid;
  const verdict = reveal.call === 'calza'
    ? t(reveal.outcome === 'exact' ? 'rp.exactly_right' : 'rp.not_exact')
    : t(reveal.outcome === 'holds' ? 'rp.holds' : 'rp.lie');
  let who;
  if (reveal.loser == null) {
    who = t(reveal.change ? 'rp.wins_die' : 'rp.was_exact', {name: page.name(reveal.caller)});
  } else if (page.points) {
    who = t('rp.takes_points', {name: page.name(reveal.loser), n: reveal.change});
  } else {
    who = t((out || []).includes(reveal.loser) ? 'rp.loses_out' : 'rp.loses', {name: page.name(reveal.loser), n: reveal.change});
  }
  return `${t('rp.count_for', {n: reveal.count, bid: bidWords(q, f), verdict})} ${who}`;
}

export function stepSentence(page, round, step) {
  const played = page.record.rounds[round];
  if (step < 0) {
    const opener = played.actions[0]?.seat;
    const rolled = round === 0 && rolloffAttempts(page.record).length
      ? `${rolloffWords(page)} ` : '';
    return rolled + (opener != null ? t('rp.rolled_opens', {name: page.name(opener)}) : t('rp.rolled'));
  }
  const action = played.actions[step];
  const decision = page.decision(round, step);
  const words = actionWords(action, decision?.kind);
  let sentence = `${page.name(action.seat)} ${words}${/[.!?]$/.test(words) ? '' : '.'}`;
  if (action.by) sentence += ` (${byWords(action.by)})`;
  const info = page.roundInfo(round);
  if (action.call && info?.reveal && step === played.actions.length - 1) {
    sentence += ` ${outcomeWords(page, info.reveal, info.out)}`;
    if (round === page.record.rounds.length - 1 && page.analysis?.winners?.length) {
      sentence += ` ${t('rp.wins_game', {n: page.analysis.winners.length, names: listNames(page.analysis.winners.map((seat) => page.name(seat)))})}`;
    }
  }
  return sentence;
}

// The roll-off before round 1 (start.rolloff): [{seats, rolls, tied}] per attempt.
export function rolloffAttempts(record) {
  const attempts = record.start?.rolloff;
  if (!Array.isArray(attempts)) return [];
  const counts = record.start.dice_counts || Array(record.players).fill(1);
  let rolling = counts.map((n, seat) => (n ? seat : null)).filter((seat) => seat != null);
  return attempts.map((rolls) => {
    const seats = rolling;
    const totals = rolls.map(([a, b]) => a + b);
    const best = Math.max(...totals);
    const tied = seats.filter((_, i) => totals[i] === best);
    rolling = tied;
    return {seats, rolls, tied, best};
  });
}

export function rolloffWords(page) {
  return rolloffAttempts(page.record).map((attempt, i) => {
    const rolls = attempt.seats.map((seat, j) => `${page.name(seat)} ${attempt.rolls[j][0]}+${attempt.rolls[j][1]}`).join(', ');
    const result = attempt.tied.length > 1
      ? t('rp.rolloff_tied', {total: attempt.best, names: listNames(attempt.tied.map((seat) => page.name(seat)))})
      : t('rp.rolloff_opens', {name: page.name(attempt.tied[0])});
    return t('rp.rolloff', {n: i + 1, rolls, result});
  }).join(' ');
}
