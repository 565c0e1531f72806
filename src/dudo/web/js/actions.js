// The action bar of your turn: the bid picker (quantity and face, or a poker hand), the
// Liar! and Calza buttons, and the odds of the picked bid. It offers only what the
// server's view says is legal (game.legal); the pick starts at a sensible default each
// turn and is kept on the table (table.pick) while the player changes it.
import {escapeHtml} from './page.js';
import {die} from './dice.js';
import {bidWords, t} from './i18n.js';
import {bidOdds} from './odds.js';
import {CATEGORIES, HAND_COUNTS, facesWord, handDiceHtml, handKey, handWords, isHand} from './hands.js';
import {timerHtml} from './clock.js';

// What the seat may do now: the legal bids and calls of your turn, else none.
export function legal(state) {
  const game = state.game;
  if (game?.phase !== 'bidding') return {bids: [], calls: []};
  return game.legal;
}

// The bid the picker starts at: the cheapest legal raise on the face you hold most of
// (wild ones counted for other faces); when you open, about as many as you can expect.
function defaultPick(game) {
  const bids = game.legal.bids;
  const faces = new Set(bids.map(([, f]) => f));
  if (faces.size <= 1 || !game.dice.length) return bids[0];
  const ones = game.dice.filter((d) => d === 1).length;
  let best = null;
  let bestScore = -1;
  for (const face of [2, 3, 4, 5, 6, 1]) {
    if (!faces.has(face)) continue;
    const own = game.dice.filter((d) => d === face).length + (game.wild && face !== 1 ? ones : 0);
    const score = face === 1 ? own * 2 - 0.5 : own + face / 10; // higher faces win ties
    if (score > bestScore) { best = face; bestScore = score; }
  }
  const onFace = bids.filter(([, f]) => f === best);
  if (!onFace.length) return bids[0];
  let pick = onFace[0];
  if (!game.standing) {
    const o = bidOdds(game, 1, best);
    const want = Math.max(pick[0], Math.floor(o.expected));
    pick = onFace.find(([q]) => q === want) || pick;
  }
  return pick;
}

function oddsToggle(table) {
  const {game} = table.state;
  if (!game.dice.length || table.state.room.rules.bids === 'poker') return '';
  return `<label class="check small odds-toggle"><input type="checkbox" id="odds-toggle" ${table.showOdds ? 'checked' : ''}> ${escapeHtml(t('odds.toggle'))}</label>`;
}

// The turn this pick is for: a new turn gets a new default.
function turnKey(state) {
  const game = state.game;
  return `${state.fair?.game_id}:${game.round}:${game.bids.length}`;
}

export function actionBar(table) {
  const state = table.state;
  const {game, you} = state;
  if (you.seat == null || !game || game.phase !== 'bidding') return '';
  const allowed = legal(state);
  const calls = allowed.calls.map((call) => `<button id="call-${call}" class="call ${call}" aria-keyshortcuts="${call === 'dudo' ? 'L' : 'C'}"><span>${escapeHtml(t(`call.${call}_main`))}</span> <small>${escapeHtml(t(`call.${call}_sub`))}</small></button>`).join('');
  if (!allowed.bids.length) {
    if (!game.dice_counts[you.seat] && !table.points()) return ''; // out: the table says so
    const waiting = game.turn !== you.seat ? t('table.waiting_for', {name: table.name(game.turn)}) : '';
    return `<section class="actions waiting" data-key="actions-waiting" tabindex="-1" aria-label="${escapeHtml(t('table.actions'))}">${waiting ? `<p class="help">${escapeHtml(waiting)} ${timerHtml(state.deadline)}</p>` : ''}${calls ? `<div class="calls">${calls}</div>` : ''}${oddsToggle(table)}</section>`;
  }
  const bids = allowed.bids;
  if (isHand(bids[0])) return handPicker(table, bids, calls);
  const has = (q, f) => bids.some(([bq, bf]) => bq === q && bf === f);
  const turn = turnKey(state);
  if (table.pickTurn !== turn || !table.pick || !has(...table.pick)) {
    table.pick = defaultPick(game);
    table.pickTurn = turn;
  }
  const [q, f] = table.pick;
  const quantities = [...new Set(bids.map(([bq]) => bq))].sort((a, b) => a - b);
  const qi = quantities.indexOf(q);
  const faces = [1, 2, 3, 4, 5, 6].map((face) => {
    const ok = has(q, face);
    return `<button type="button" class="face" id="face-${face}" data-face="${face}" aria-pressed="${face === f}" ${ok ? '' : 'disabled'} aria-label="${escapeHtml(t(face === 1 ? 'face.aces' : 'face.many', {face}))}">${die(face, {size: 34})}</button>`;
  }).join('');
  const locked = game.palifico && new Set(bids.map(([, bf]) => bf)).size === 1;
  const calza = allowed.calls.includes('calza'); // C only when the server offers calza now
  return `<section class="actions picker" data-key="actions-picker" tabindex="-1" aria-label="${escapeHtml(t('table.actions'))}">
      <p class="your-turn">${escapeHtml(t('table.your_turn'))} ${timerHtml(state.deadline)}</p>
      <div class="pick-row">
        <div class="stepper" role="group" aria-label="${escapeHtml(t('picker.quantity'))}">
          <button type="button" id="q-down" aria-label="${escapeHtml(t('picker.less'))}" ${qi <= 0 ? 'disabled' : ''}>−</button>
          <output id="q-value" aria-live="off">${q}</output>
          <button type="button" id="q-up" aria-label="${escapeHtml(t('picker.more'))}" ${qi >= quantities.length - 1 ? 'disabled' : ''}>+</button>
        </div>
        <div class="faces" role="group" aria-label="${escapeHtml(t('picker.face'))}">${faces}</div>
      </div>
      <div class="calls">
        <button id="bid-go" class="primary bid" aria-keyshortcuts="B">${escapeHtml(t('picker.bid', {bid: bidWords(q, f)}))}</button>
        ${calls}
      </div>
      ${table.showOdds && game.dice.length ? `<p class="help" id="pick-odds">${escapeHtml(t('odds.pick', {n: q, bid: bidWords(q, f), chance: Math.round(bidOdds(game, q, f).chance * 100)}))}</p>` : ''}
      ${locked ? `<p class="help">${escapeHtml(t('picker.locked', {face: bids[0][1]}))}</p>` : ''}
      <div class="picker-foot">${oddsToggle(table)}<p class="help keys">${escapeHtml(t(calza ? 'picker.keys' : 'picker.keys_no_calza'))}</p></div></section>`;
}

// The hand picker (Common Hand): the hand's kind as a grid of buttons (each of the eight,
// those with no legal bid disabled), then its faces as dice like the quantity picker's, a
// row for each face the hand names (a full house: the three, then the pair), and the hand
// drawn beside "Your turn". Only what the seat's legal bids hold can be pressed; the pick
// is always one of those bids, so the bid sent is the server's own hand.
function defaultHand(game, bids) {
  if (!game.dice.length) return bids[0];
  const held = [1, 2, 3, 4, 5, 6].map((f) => game.dice.filter((d) => d === f).length);
  const best = held.indexOf(Math.max(...held)) + 1;
  return bids.find((hand) => hand.hand === 'pair' && hand.faces[0] === best) || bids[0];
}

// What the rows of faces of a hand with two are (a screen reader says it; the rows show
// how many dice of the face: 3× and 2×).
function rowLabels(kind) {
  if (kind === 'full_house') return [t('hand.row.three'), t('hand.row.pair')];
  if (kind === 'two_pair') return [t('hand.row.high_pair'), t('hand.row.low_pair')];
  return [t('hand.faces')];
}

// A row of faces, 1 to 6: `which` is first or second (the data-hand-* it sets).
function faceRow(which, label, count, faces, chosen) {
  const buttons = [1, 2, 3, 4, 5, 6].map((face) => {
    const ok = faces.has(face);
    return `<button type="button" class="face" id="hand-${which}-${face}" data-hand-${which}="${face}" aria-pressed="${face === chosen}" ${ok ? '' : 'disabled'} aria-label="${escapeHtml(facesWord(face))}">${die(face, {size: 34})}</button>`;
  }).join('');
  return `<div class="hand-face-row" id="hand-${which}" role="group" aria-label="${escapeHtml(label)}"><span class="hand-count" aria-hidden="true">${count}×</span><div class="faces">${buttons}</div></div>`;
}

function handPicker(table, bids, calls) {
  const state = table.state;
  const turn = turnKey(state);
  const legalKeys = new Set(bids.map(handKey));
  if (table.pickTurn !== turn || !isHand(table.pick) || !legalKeys.has(handKey(table.pick))) {
    table.pick = defaultHand(state.game, bids);
    table.pickTurn = turn;
  }
  const pick = table.pick;
  const [first, second] = pick.faces || [];
  const kinds = new Set(bids.map((hand) => hand.hand));
  const kindButtons = CATEGORIES.map((kind) => `<button type="button" class="hand-kind" id="kind-${kind}" data-hand-kind="${kind}" aria-pressed="${kind === pick.hand}" ${kinds.has(kind) ? '' : 'disabled'}>${escapeHtml(t(`hand.kind.${kind}`))}</button>`).join('');
  const sameKind = bids.filter((hand) => hand.hand === pick.hand);
  const counts = HAND_COUNTS[pick.hand] || [];
  let faceRows = '';
  const [firstLabel, secondLabel] = rowLabels(pick.hand);
  if (counts.length) {
    const firsts = new Set(sameKind.map((hand) => hand.faces[0]));
    faceRows += faceRow('first', firstLabel, counts[0], firsts, first);
  }
  if (counts.length === 2) {
    const seconds = new Set(sameKind.filter((hand) => hand.faces[0] === first).map((hand) => hand.faces[1]));
    faceRows += faceRow('second', secondLabel, counts[1], seconds, second);
  }
  const words = handWords(pick);
  return `<section class="actions picker hand-picker" data-key="actions-hand-picker" tabindex="-1" aria-label="${escapeHtml(t('table.actions'))}">
      <p class="your-turn">${escapeHtml(t('table.your_turn'))} ${timerHtml(state.deadline)}<span class="hand-dice" aria-hidden="true">${handDiceHtml(pick, 28)}</span></p>
      <div class="hand-kinds" id="hand-kind" role="group" aria-label="${escapeHtml(t('hand.kind'))}">${kindButtons}</div>
      ${faceRows ? `<div class="hand-faces" id="hand-faces">${faceRows}</div>` : ''}
      <div class="calls">
        <button id="bid-go" class="primary bid" aria-keyshortcuts="B">${escapeHtml(t('picker.bid', {bid: words}))}</button>
        ${calls}
      </div>
      <div class="picker-foot"><p class="help keys">${escapeHtml(t('picker.keys_hand'))}</p></div></section>`;
}
