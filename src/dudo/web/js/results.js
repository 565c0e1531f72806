// What has happened, beside the felt: the roll-off card (each attempt's dice, who tied,
// who opens), the game log (every round seen, newest first) and the standings at game
// over with a few numbers per player from the log (gamelog.js keeps it).
import {icon} from './icons.js';
import {escapeHtml, nameHtml} from './page.js';
import {die} from './dice.js';
import {bidWords, has, t} from './i18n.js';
import {handDiceHtml, handWords} from './hands.js';
import {byWords, revealSentence, rolloffSentence} from './narration.js';

// Whether the roll-off is shown: while it runs, and in round 1 until its first reveal.
export function showingRolloff(state) {
  const {rolloff, game} = state;
  if (!rolloff || !game) return false;
  return rolloff.opener == null || (game.round === 1 && !game.last_reveal && game.phase !== 'over');
}

// The roll-off before round 1: each attempt's dice per seat, who tied, who opens.
export function rolloffPanel(table) {
  const state = table.state;
  if (!showingRolloff(state)) return '';
  const {rolloff} = state;
  const attempts = rolloff.attempts.map((attempt, i) => {
    const best = Math.max(...attempt.rolls.map(([a, b]) => a + b));
    const rows = attempt.seats.map((seat, j) => {
      const [a, b] = attempt.rolls[j];
      const top = a + b === best;
      const words = t('rolloff.roll_of', {name: table.name(seat), a, b, total: a + b});
      return `<li class="rolloff-roll${top ? ' top' : ''}" data-seat="${seat}"><span class="who">${nameHtml(table.name(seat))}</span>
          <span class="pair" aria-hidden="true">${die(a, {size: 20})}${die(b, {size: 20})}</span>
          <span class="total" aria-hidden="true">${escapeHtml(t('rolloff.total', {total: a + b}))}</span><span class="sr-only">${escapeHtml(words)}</span></li>`;
    }).join('');
    return `<li class="rolloff-attempt" data-attempt="${i + 1}" data-tied="${attempt.tied.join(',')}"><h3>${escapeHtml(t('rolloff.attempt', {n: i + 1}))}</h3>
        <ol class="rolloff-rolls">${rows}</ol><p class="rolloff-result">${escapeHtml(rolloffSentence(state, attempt))}</p></li>`;
  }).join('');
  const waiting = rolloff.opener == null ? `<p class="help">${escapeHtml(t('rolloff.rolling'))}</p>` : '';
  return `<section class="card rolloff" id="rolloff" data-key="rolloff-${state.fair?.game_id}" aria-labelledby="rolloff-title">
      <h2 id="rolloff-title">${escapeHtml(t('rolloff.title'))}</h2>
      ${attempts ? `<ol class="rolloff-attempts">${attempts}</ol>` : ''}${waiting}
      <p class="help">${escapeHtml(t('rolloff.help'))} ${escapeHtml(t('rolloff.verified'))}</p></section>`;
}

function bidHtml(q, f, hand = null) {
  if (hand) return `<span class="what hand" aria-hidden="true">${handDiceHtml(hand, 14)}</span><span class="sr-only">${escapeHtml(handWords(hand))}</span><span class="hand-words" aria-hidden="true"> ${escapeHtml(handWords(hand))}</span>`;
  return `<span class="what" aria-hidden="true">${q} × ${die(f, {size: 18})}</span><span class="sr-only">${escapeHtml(bidWords(q, f))}</span>`;
}

// The game log: every round seen, newest first; within a round, in the order played.
export function gameLog(table) {
  const {game} = table.state;
  if (!game) return '';
  const rounds = table.log.rounds.filter((round) => round.bids.length || round.reveal).slice().reverse();
  if (!rounds.length) return '';
  const items = rounds.map((round) => {
    const bids = round.bids.map((bid, i) => `<li data-key="b${round.n}-${i}"><span class="who">${nameHtml(table.name(bid.seat))}</span> ${bidHtml(bid.q, bid.f, bid.hand)}${bid.by ? ` <span class="by">${escapeHtml(byWords(bid.by))}</span>` : ''}</li>`).join('');
    // While the felt counts the reveal up, the log does not tell its result before it.
    const counting = table.revealing.counting(round.n);
    const reveal = counting ? null : round.reveal;
    const result = reveal ? `<p class="log-reveal">${escapeHtml(revealSentence(table.state, reveal, round.outs.includes(reveal.loser)))}${reveal.by ? ` <span class="by">${escapeHtml(byWords(reveal.by))}</span>` : ''}</p>` : '';
    // Who went out at the reveal is said in its sentence: a line of its own only otherwise.
    const outs = counting ? '' : round.outs.filter((seat) => !reveal || seat !== reveal.loser).map((seat) => `<p class="log-out">${escapeHtml(t('say.out', {name: table.name(seat)}))}</p>`).join('');
    const head = `${escapeHtml(t('log.round', {n: round.n}))}${round.palifico ? ` · ${escapeHtml(t('log.palifico'))}` : ''}`;
    return `<li class="log-round" data-key="round-${round.n}"><h3>${head}</h3>${bids ? `<ol class="bids">${bids}</ol>` : ''}${result}${outs}</li>`;
  }).join('');
  const note = table.log.complete ? '' : `<p class="help">${escapeHtml(t('log.partial'))}</p>`;
  return `<section class="history" data-key="log" aria-labelledby="log-title" tabindex="0"><h2 id="log-title">${escapeHtml(t('log.title'))}</h2>${note}<ol class="log-rounds">${items}</ol></section>`;
}

// Where a player finished: 1 for the winners, else by when they went out.
export function placeOf(table, seat) {
  const {game} = table.state;
  if (!game) return null;
  if (game.winners.includes(seat)) return 1;
  const outs = table.log.outs;
  const at = outs.indexOf(seat);
  if (at < 0) return null;
  return table.state.room.seats.length - at;
}

export function ordinal(place) {
  const key = `ordinal.${place}`;
  return has(key) ? t(key) : String(place);
}

// Game over: everyone's place, with a few numbers from the log.
export function standings(table) {
  const {game, room} = table.state;
  const seats = room.seats.map((_, i) => i);
  const stats = table.log.stats(seats.length);
  const points = table.points();
  const order = seats.slice().sort((a, b) => {
    if (points) return game.points[a] - game.points[b] || a - b;
    const pa = placeOf(table, a) ?? (game.dice_counts[a] ? 1.5 : 99);
    const pb = placeOf(table, b) ?? (game.dice_counts[b] ? 1.5 : 99);
    return pa - pb || game.dice_counts[b] - game.dice_counts[a] || a - b;
  });
  let place = 0;
  let previous = null;
  const rows = order.map((seat, i) => {
    const key = points ? game.points[seat] : placeOf(table, seat) ?? `x${seat}`;
    if (key !== previous) place = i + 1;
    previous = key;
    const shown = points || placeOf(table, seat) != null || game.winners.includes(seat) ? ordinal(place) : '–';
    const s = stats[seat];
    const facts = [
      points ? t('seat.points', {n: game.points[seat]}) : t('over.dice_left_n', {n: game.dice_counts[seat]}),
      t('over.bids_n', {n: s.bids}),
      t('over.calls_n', {right: s.right, wrong: s.wrong}),
      t('over.caught_n', {n: s.caught}),
    ];
    return `<li${game.winners.includes(seat) ? ' class="winner"' : ''}><span class="place">${escapeHtml(shown)}</span>
        <span class="who">${game.winners.includes(seat) ? `${icon('trophy')} ` : ''}${nameHtml(table.name(seat))}</span>
        <span class="facts">${escapeHtml(facts.join(' · '))}</span></li>`;
  }).join('');
  return `<section class="card standings" data-key="standings" aria-labelledby="standings-title"><h2 id="standings-title">${escapeHtml(t('over.standings'))}</h2>
      <ol class="standings-list">${rows}</ol>
      ${table.log.complete ? '' : `<p class="help">${escapeHtml(t('log.partial'))}</p>`}</section>`;
}
