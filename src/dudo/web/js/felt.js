// The felt: the seats around the table (name, cup, dice or their count, marks), the centre
// (the standing bid and whose turn, the reveal counted up cup by cup, the roll-off line,
// the winner) and your own dice below it. RevealCount keeps the one piece of state the
// drawing has of its own: how far a reveal has been counted up, or that it was skipped.
import {announce, escapeHtml, nameHtml} from './page.js';
import {die, manyDice} from './dice.js';
import {bidWords, has, t} from './i18n.js';
import {bidOdds} from './odds.js';
import {GameLog} from './gamelog.js';
import {handDiceHtml, handUses, handWords, isHand} from './hands.js';
import {outChoices} from './leave.js';
import {avatar, seatColour} from './avatar.js';
import {icon} from './icons.js';
import {rollText, timerHtml} from './clock.js';
import {byWords, outcomeSentence, revealSentence, rolloffSentence, winnerText} from './narration.js';
import {ordinal, placeOf, showingRolloff} from './results.js';

// Where the seats sit on the felt, clockwise from your own seat at the bottom, as percent
// of the seats' area (the felt inside its rim). A seat is shifted by its own size in
// proportion (CSS: translate(--x, --y)), so a seat at 0% starts at the left edge and one at
// 100% ends at the right edge: no seat ever hangs over the rim.
const LAYOUTS = {
  1: [[50, 100]],
  2: [[50, 100], [50, 0]],
  3: [[50, 100], [16, 4], [84, 4]],
  4: [[50, 100], [0, 48], [50, 0], [100, 48]],
  5: [[50, 100], [0, 62], [22, 0], [78, 0], [100, 62]],
  6: [[50, 100], [0, 70], [0, 24], [50, 0], [100, 24], [100, 70]],
};

// At a reveal the call and the bid called come first, big; then the cups lift one by one
// (table.css, "the staged reveal": the cup of the seat drawn --i-th lifts at --lead + --i ×
// --step, its counting dice light up .45 s later) and the count in the middle goes up in
// the same steps, so the table counts before your eyes; the verdict comes last.
const CUP_STEP_MS = 420; // --step
const CUP_COUNTED_MS = 950; // --lead (.5 s) + .45 s

function reducedMotion() {
  return matchMedia('(prefers-reduced-motion: reduce)').matches;
}

// Whether a revealed die counts for the bid: its face, or an ace when aces are wild (with
// poker bids: a die the hand names).
function dieCounts(reveal, face) {
  if (isHand(reveal.bid)) return handUses(reveal.bid, face);
  const bidFace = reveal.bid[1];
  return face === bidFace || (reveal.wild && face === 1 && bidFace !== 1);
}

// Seats in drawing order: your own first (at the bottom), then clockwise.
function ordered(state) {
  const count = state.room.seats.length;
  const first = state.you.seat ?? 0;
  return Array.from({length: count}, (_, i) => (first + i) % count);
}

function showingReveal(state) {
  const game = state.game;
  return game && game.phase !== 'bidding' && game.last_reveal;
}

function revealKey(state) {
  return `${state.fair?.game_id}:${GameLog.revealedRound(state.game)}`;
}

export class RevealCount {
  constructor(table) {
    this.table = table;
    this.still = null; // the reveal whose animation the player skipped
    this.countUp = null; // the reveal being counted up: {key, cups counted so far, timers, done}
    this.held = null; // what the live region says of that reveal's result: {key, words}
  }

  // The key of the reveal that a new state would count up (null: none, or it is drawn
  // whole at once: skipped, under reduced motion, at the game's end).
  countable() {
    const state = this.table.state;
    const key = state?.game?.phase === 'roll' && showingReveal(state) ? revealKey(state) : null;
    return !key || key === this.still || reducedMotion() ? null : key;
  }

  // Words that tell the result of the reveal just called (its count, who lost a die, who
  // is out): said when the table has counted it up (or the player skipped), not before
  // the felt shows it. False when the table shows it at once: say them now.
  hold(words) {
    const key = this.countable();
    if (!key || (this.countUp?.key === key && this.countUp.done)) return false;
    if (this.held?.key !== key) {
      this.release();
      this.held = {key, words: []};
    }
    this.held.words.push(words);
    return true;
  }

  release() {
    const held = this.held;
    this.held = null;
    for (const words of held?.words || []) announce(words);
  }

  // Whether round `n`'s reveal is still being counted up on the felt (the log keeps its
  // result back until then).
  counting(n) {
    const state = this.table.state;
    const countUp = this.countUp;
    return !!countUp && !countUp.done && countUp.key === revealKey(state) && n === GameLog.revealedRound(state.game);
  }

  // A reveal drawn for the first time is counted up, one step per cup in drawing order,
  // each step when that cup's counting dice light up. Not under reduced motion, and not
  // once the player skipped it: then the count is whole at once. (Only between rounds:
  // the last reveal of a game shows the winner, not the count.)
  follow() {
    const state = this.table.state;
    const key = this.countable();
    if (this.countUp && this.countUp.key === key) return;
    this.stop();
    if (!key) {
      this.release();
      return;
    }
    const countUp = {key, cups: 0, timers: [], done: false};
    this.countUp = countUp;
    const seats = ordered(state);
    countUp.timers = seats.map((_, i) => setTimeout(() => {
      countUp.cups = i + 1;
      // The last cup counted: the log and the live region tell the result now.
      if (countUp.cups === seats.length) {
        countUp.done = true;
        this.release();
      }
      this.table.render();
    }, i * CUP_STEP_MS + CUP_COUNTED_MS));
  }

  stop() {
    if (this.countUp) this.countUp.timers.forEach(clearTimeout);
    this.countUp = null;
  }

  // The count in the middle of a reveal: the counting dice of the cups lifted so far.
  shown(reveal) {
    const state = this.table.state;
    const countUp = this.countUp;
    if (!countUp || countUp.key !== revealKey(state)) return reveal.count;
    return ordered(state).slice(0, countUp.cups)
      .reduce((sum, seat) => sum + (reveal.cups[seat] || []).filter((d) => dieCounts(reveal, d)).length, 0);
  }

  // A click on the felt or any key: the reveal jumps to its end (cups up, count whole).
  skip() {
    const state = this.table.state;
    if (!showingReveal(state) || this.still === revealKey(state)) return;
    this.still = revealKey(state);
    this.stop();
    this.table.render();
  }

  // Whether the reveal on the table now is the skipped one (drawn still).
  isStill() {
    const state = this.table.state;
    return this.still && this.still === (showingReveal(state) ? revealKey(state) : null);
  }
}

function seatCard(table, index, order) {
  const {room, game, you} = table.state;
  const seat = room.seats[index];
  const count = game.dice_counts[index];
  const lost = room.show_lost_dice === false ? 0 : Math.max(0, room.rules.starting_dice - count);
  const reveal = showingReveal(table.state) ? game.last_reveal : null;
  const turn = game.phase === 'bidding' && game.turn === index;
  const out = !count && !table.points();
  const classes = ['seat'];
  if (turn) classes.push('turn');
  if (out) classes.push('out');
  if (index === you.seat) classes.push('me');
  if (game.phase === 'bidding' && game.bidder === index) classes.push('bidder');
  if (game.phase === 'over' && game.winners.includes(index)) classes.push('winner');
  // The game's last reveal stays on the felt, but a player it put out is drawn as out,
  // like those out before (not with a cup of dice, as if still playing).
  const cup = game.phase === 'over' && out ? null : reveal?.cups[index];
  let dice;
  let diceKey;
  if (cup?.length) {
    diceKey = `cup-${revealKey(table.state)}-${index}`;
    dice = cup.map((d) => {
      const counts = dieCounts(reveal, d);
      return die(d, {size: 24, counts, label: counts ? t('die.counts', {face: d}) : t('die.face', {face: d})});
    }).join('');
  } else {
    diceKey = `hidden-${index}`;
    // Another player's cup stands on the felt over their dice while they are hidden (a
    // picture only: the row is aria-hidden, and the count is said in words beside it).
    const hidden = count && index !== you.seat ? '<span class="cup"></span>' : '';
    dice = hidden + Array.from({length: count}, () => die(0, {size: 18})).join('')
      + Array.from({length: lost}, () => die(0, {size: 18, cls: 'lost'})).join('');
  }
  const many = manyDice(cup?.length || count + lost);
  const status = [];
  if (seat.kind === 'bot') status.push(t(`seat.bot_${seat.level}`));
  if (seat.kind === 'human' && seat.left) status.push(t('seat.left'));
  else if (seat.kind === 'human' && !seat.connected) status.push(seat.bot_playing ? t('seat.bot_playing') : t('seat.away'));
  if (seat.kind === 'open') status.push(t('seat.open'));
  if (out) {
    const place = placeOf(table, index);
    status.push(place ? t('seat.out_place', {place: ordinal(place)}) : t('seat.out'));
  }
  const emote = table.emotes.get(index);
  const bubble = emote && emote[1] > Date.now() ? `<span class="bubble" aria-hidden="true">${emote[0]}</span>` : '';
  const points = table.points() ? `<span class="points">${escapeHtml(t('seat.points', {n: game.points[index]}))}</span>` : '';
  const changed = reveal?.change && (reveal.loser === index || (reveal.loser == null && reveal.caller === index));
  const plus = reveal && (reveal.loser !== index || table.points());
  const changeMark = changed ? `<span class="change ${reveal.loser === index ? 'minus' : 'plus'}" data-key="change-${revealKey(table.state)}" aria-hidden="true">${plus ? '+' : '−'}${reveal.change}</span>` : '';
  const [x, y] = (LAYOUTS[order.length] || LAYOUTS[6])[order.indexOf(index)] || [50, 50];
  // A seat on the felt's top edge: its bot's bubble hangs under it (table.css).
  if (y <= 4) classes.push('top-edge');
  const place = `left:${x}%;top:${y}%;--x:-${x}%;--y:-${y}%;--i:${order.indexOf(index)};--seat-colour:${seatColour(index)}`;
  const diceWords = `${t('seat.dice', {n: count})}${lost ? `, ${t('seat.lost', {n: lost})}` : ''}`;
  return `<li class="${classes.join(' ')}" data-seat="${index}" style="${place}">
      <span class="seat-name">${avatar(table.name(index), index)}${turn ? '<span class="turn-mark" aria-hidden="true">▶</span>' : ''}${nameHtml(table.name(index))}${index === you.seat ? ` <span class="you-tag">(${escapeHtml(t('seat.you'))})</span>` : ''}</span>
      <span class="seat-status">${escapeHtml(status.join(' · '))}</span>
      ${cup?.length
    ? `<span class="seat-dice revealed"${many} data-key="${diceKey}" role="group" aria-label="${escapeHtml(t('table.cup_of', {name: table.name(index)}))}">${dice}</span>`
    : `<span class="seat-dice"${many} data-key="${diceKey}" aria-hidden="true">${dice}</span><span class="sr-only">${escapeHtml(diceWords)}</span>`}
      ${points}${changeMark}${bubble}${table.voices.bubble(index)}</li>`;
}

function turnLine(table, words = null) {
  const {game, you} = table.state;
  if (game.phase !== 'bidding') return '';
  const mine = game.turn === you.seat;
  const said = words || (mine ? t('table.your_turn') : t('table.turn_of', {name: table.name(game.turn)}));
  return `<p class="turn-line${mine ? ' mine' : ''}"><span class="who-now">${escapeHtml(said)}</span> ${timerHtml(table.state.deadline)}</p>`;
}

function roundInfo(table) {
  const {game, room} = table.state;
  if (table.points()) {
    const rounds = room.rules.points_rounds;
    const shown = game.phase === 'over' ? game.round : Math.min(game.round, rounds);
    return t('table.round_of', {n: shown, total: rounds});
  }
  return t('table.round_n', {n: game.round});
}

// The Next round button under a reveal, with the seconds until the roll.
function nextRoundButton(state, keys) {
  if (state.you.seat == null) return '';
  return `<button id="next-round" class="primary small"${keys ? ' aria-keyshortcuts="N"' : ''}>${escapeHtml(t('table.next_round'))} <span data-roll-at="${state.roll_at || ''}">${rollText(state)}</span></button>`;
}

function centre(table) {
  const state = table.state;
  const {game, room, you} = state;
  const badges = [];
  const total = game.dice_counts.reduce((a, b) => a + b, 0);
  if (game.palifico) badges.push(`<span class="badge pal">${escapeHtml(t('table.palifico'))}</span>`);
  if (room.rules.wild_ones && game.phase === 'bidding') badges.push(`<span class="badge${game.wild ? '' : ' not-wild'}">${escapeHtml(t(game.wild ? 'table.ones_wild' : 'table.ones_not_wild'))}</span>`);
  const info = `<p class="table-info"><span class="round-info">${escapeHtml(roundInfo(table))}</span> · <span class="in-play">${escapeHtml(t('table.in_play', {n: total}))}</span> ${badges.join(' ')}</p>`;
  if (game.phase === 'over') {
    const last = game.last_reveal;
    const summary = last ? `<p class="result">${escapeHtml(revealSentence(state, last))}</p>` : '';
    const id = state.fair?.game_id;
    const open = room.seats.some((s) => s.kind === 'open');
    return `<div class="centre over" data-key="over-${id}">${info}<h2 class="big">${icon('trophy')} ${escapeHtml(winnerText(state, game.winners))}</h2>${summary}
        ${you.seat != null ? `<button id="rematch" class="primary" ${open ? 'aria-describedby="rematch-why"' : ''}>${escapeHtml(t('table.rematch'))}</button>
          ${open ? `<p class="help" id="rematch-why">${escapeHtml(t('over.fill_first'))}</p>` : ''}` : ''}
        <a href="/" class="button-link small">${escapeHtml(t('table.new_room'))}</a>
        ${id ? `<a href="/g/${id}" class="button-link small" id="game-page">${escapeHtml(has('table.game_page') ? t('table.game_page') : 'Replay and analysis')}</a>` : ''}</div>`;
  }
  if (game.phase === 'roll') {
    const reveal = game.last_reveal;
    if (!reveal) {
      const rolloff = state.rolloff;
      if (rolloff && rolloff.opener == null) {
        const last = rolloff.attempts[rolloff.attempts.length - 1];
        return `<div class="centre rolloff-centre" id="rolloff-centre"><p class="table-info">${escapeHtml(t('rolloff.title'))}</p>
            <p>${escapeHtml(last ? rolloffSentence(state, last) : t('rolloff.rolling'))}</p></div>`;
      }
      return `<div class="centre">${info}<p>${escapeHtml(t('table.rolling'))}</p></div>`;
    }
    if (isHand(reveal.bid)) return handRevealCentre(table, reveal);
    const [q, f] = reveal.bid;
    const verdict = reveal.outcome === 'holds' ? t('reveal.holds') : reveal.outcome === 'fails' ? t('reveal.fails')
      : reveal.outcome === 'exact' ? t('reveal.exact') : t('reveal.not_exact');
    const by = table.log.round(GameLog.revealedRound(game), false)?.reveal?.by;
    return `<div class="centre reveal" id="reveal" data-key="reveal-${revealKey(state)}" style="--seats:${room.seats.length}">
        <p class="call-name">${escapeHtml(t('reveal.caller', {name: table.name(reveal.caller), call: reveal.call === 'calza' ? t('call.calza') : t('call.dudo_shout')}))}${by ? ` <span class="by">${escapeHtml(byWords(by))}</span>` : ''}</p>
        <div class="tallies">
          <p class="tally called" aria-hidden="true"><span class="tally-label">${escapeHtml(t('reveal.bid_label'))}</span><span class="tally-value"><span class="q">${q}</span> × ${die(f, {size: 30})}</span></p>
          <p class="count-line tally"><span class="tally-label" aria-hidden="true">${escapeHtml(t('reveal.count_label'))}</span><span class="tally-value">${countHtml(table, reveal)} × ${die(f, {size: 30, label: t('die.face', {face: f})})}</span> <span class="vs sr-only">${escapeHtml(t('reveal.vs', {bid: bidWords(q, f)}))}</span></p>
        </div>
        <p class="verdict">${escapeHtml(verdict)}</p>
        <p class="result">${escapeHtml(outcomeSentence(state, reveal))}</p>
        ${nextRoundButton(state, true)}
      </div>`;
  }
  const standing = game.standing;
  if (!standing) {
    const opener = game.turn === you.seat ? t('table.you_open') : t('table.opens', {name: table.name(game.turn)});
    const rolled = showingRolloff(state) && state.rolloff.attempts.length
      ? `<p class="help rolloff-line">${escapeHtml(rolloffSentence(state, state.rolloff.attempts[state.rolloff.attempts.length - 1]))}</p>` : '';
    return `<div class="centre">${info}${turnLine(table, opener)}${rolled}</div>`;
  }
  if (isHand(standing)) {
    return `<div class="centre" id="standing">${info}
        <p class="label">${escapeHtml(t('table.standing', {name: table.name(game.bidder)}))}</p>
        <div class="standing-bid hand" data-key="bid-${game.round}-${game.bids.length}" aria-hidden="true">${handDiceHtml(standing, 26)}</div>
        <p class="words">${escapeHtml(handWords(standing))}</p>
        ${turnLine(table)}</div>`;
  }
  const [q, f] = standing;
  const lastBid = game.bids.length ? game.bids[game.bids.length - 1] : null;
  const round = table.log.round(game.round, false);
  const by = round && round.bids.length === game.bids.length ? round.bids[round.bids.length - 1]?.by : null;
  return `<div class="centre" id="standing">${info}
      <p class="label">${escapeHtml(t('table.standing', {name: table.name(game.bidder)}))}${by && lastBid ? ` <span class="by">${escapeHtml(byWords(by))}</span>` : ''}</p>
      <div class="standing-bid" data-key="bid-${game.round}-${game.bids.length}"><span class="q">${q}</span> <span aria-hidden="true">×</span> ${die(f, {size: 40, label: t('die.face', {face: f})})}</div>
      <p class="words">${escapeHtml(bidWords(q, f))}</p>
      ${turnLine(table)}</div>`;
}

// A poker bid's reveal: the hand called, whether all the dice together show it.
function handRevealCentre(table, reveal) {
  const state = table.state;
  const {room} = state;
  const bid = handWords(reveal.bid);
  const by = table.log.round(GameLog.revealedRound(state.game), false)?.reveal?.by;
  const verdict = reveal.outcome === 'holds' ? t('reveal.holds') : t('reveal.fails');
  return `<div class="centre reveal" id="reveal" data-key="reveal-${revealKey(state)}" style="--seats:${room.seats.length}">
        <p class="call-name">${escapeHtml(t('reveal.caller', {name: table.name(reveal.caller), call: t('call.dudo_shout')}))}${by ? ` <span class="by">${escapeHtml(byWords(by))}</span>` : ''}</p>
        <p class="count-line hand"><span aria-hidden="true">${handDiceHtml(reveal.bid, 22)}</span> <span class="vs">${escapeHtml(t(reveal.outcome === 'holds' ? 'reveal.hand_there' : 'reveal.hand_missing', {bid}))}</span></p>
        <p class="verdict">${escapeHtml(verdict)}</p>
        <p class="result">${escapeHtml(outcomeSentence(state, reveal))}</p>
        ${nextRoundButton(state, false)}
      </div>`;
}

// The count as it goes up (a new node per number, so each one pops in); a screen reader
// hears the final count only, never the steps.
function countHtml(table, reveal) {
  const shown = table.revealing.shown(reveal);
  return `<span class="count" data-key="count-${shown}" aria-hidden="true">${shown}</span><span class="sr-only">${reveal.count}</span>`;
}

// The felt: every seat in drawing order around the centre.
export function feltHtml(table) {
  const order = ordered(table.state);
  const seats = order.map((index) => seatCard(table, index, order)).join('');
  const still = table.revealing.isStill();
  return `<section class="felt${still ? ' still' : ''}" aria-label="${escapeHtml(t('table.table'))}" data-count="${order.length}" style="--seats:${order.length}">
      <ol class="seats">${seats}</ol>${centre(table)}</section>`;
}

// Your own dice under the felt (or why there are none), and the odds of the standing bid.
export function ownDice(table) {
  const {game, you} = table.state;
  if (you.seat == null || !game) return '';
  let body;
  if (game.dice.length) {
    const key = `${table.state.fair?.game_id}:${game.round}`;
    body = `<div class="my-dice"${manyDice(game.dice.length)} data-key="dice-${key}" data-dice="${game.dice.join('')}" role="list" aria-label="${escapeHtml(t('table.your_dice'))}">${game.dice.map((d, i) => `<span role="listitem" style="--i:${i}">${die(d, {size: 52, label: t('die.face', {face: d})})}</span>`).join('')}</div>`;
  } else if (game.phase === 'over') {
    return '';
  } else if (game.dice_counts[you.seat] === 0 && !table.points()) {
    body = `<p class="notice">${escapeHtml(t('table.you_are_out'))}</p>${outChoices()}`;
  } else {
    body = `<p class="help">${escapeHtml(t(game.last_reveal && game.phase === 'roll' ? 'table.dice_at_seat' : 'table.dice_hidden'))}</p>`;
  }
  let odds = '';
  if (game.phase === 'bidding' && game.standing && !isHand(game.standing) && game.dice.length && table.showOdds) {
    const [q, f] = game.standing;
    const o = bidOdds(game, q, f);
    odds = `<p class="odds" id="odds">${escapeHtml(t('odds.line', {n: q,
      chance: Math.round(o.chance * 100), bid: bidWords(q, f), own: o.own, unseen: o.unseen,
      expected: o.expected.toFixed(1), p: o.p > 0.2 ? '1/3' : '1/6'}))}</p>`;
  }
  return `<section class="mine" data-key="mine" aria-labelledby="mine-title"><h2 class="sr-only" id="mine-title">${escapeHtml(t('table.your_dice'))}</h2>${body}${odds}</section>`;
}

