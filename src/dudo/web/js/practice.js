// The practice round: a guided game against easy bots. Tips appear at the moment they
// matter, driven only by the state the server sent; each is shown once.
import {escapeHtml} from './page.js';
import {t} from './i18n.js';
import {anyBidWords} from './hands.js';

const TIPS = [
  ['welcome', () => true],
  ['your_dice', (s) => s.game && s.game.dice.length > 0],
  ['open', (s) => myTurn(s) && !s.game.standing],
  ['wild', (s) => s.game && s.game.phase === 'bidding' && s.game.wild],
  ['raise', (s) => myTurn(s) && s.game.standing],
  ['liar', (s) => s.game?.legal.calls.includes('dudo')],
  ['calza', (s) => s.game?.legal.calls.includes('calza')],
  ['odds', (s) => myTurn(s) && s.game.standing && s.room.rules.bids !== 'poker'], // no helper there
  ['reveal', (s) => s.game && s.game.phase !== 'bidding' && s.game.last_reveal],
  ['palifico', (s) => s.game?.palifico],
  ['out', (s) => s.game && s.you.seat != null && s.game.dice_counts[s.you.seat] === 0 && s.game.phase !== 'over'],
  ['over', (s) => s.game && s.game.phase === 'over'],
];

// Tips whose words are about quantities: poker hands (Common Hand) have their own.
const POKER_WORDS = new Set(['open', 'raise', 'liar', 'reveal']);

// The key of a tip's words under the room's rules.
function wordsKey(tip, rules) {
  if (rules.bids === 'poker' && POKER_WORDS.has(tip)) return `tip.${tip}.poker`;
  if (tip === 'calza' && rules.calza === 'in_turn') return 'tip.calza.in_turn';
  // The dudo sheet: a player who also holds one die may change the palifico face.
  if (tip === 'palifico' && rules.palifico_one_die_may_change_face) return 'tip.palifico.change_face';
  // Ones-lock: ones are wild only until someone bids ones this round.
  if (tip === 'wild' && rules.ones_bids === 'lock') return 'tip.wild.lock';
  return `tip.${tip}`;
}

function myTurn(state) {
  return state.game && state.game.phase === 'bidding' && state.game.turn === state.you.seat;
}

export class Practice {
  constructor(table) {
    this.table = table;
    this.key = `dudo.tips.${table.code}`;
    try { this.seen = new Set(JSON.parse(sessionStorage.getItem(this.key)) || []); } catch { this.seen = new Set(); }
  }

  current() {
    const state = this.table.state;
    if (!state) return null;
    for (const [name, applies] of TIPS) {
      if (!this.seen.has(name) && applies(state)) return name;
    }
    return null;
  }

  params() {
    const game = this.table.state.game;
    const params = {};
    // While bidding, the bid is this round's standing one; the reveal's tip (between
    // rounds) quotes the bid that was called.
    if (game && game.phase === 'bidding' && game.standing) params.bid = anyBidWords(game.standing);
    if (game && game.phase !== 'bidding' && game.last_reveal) {
      params.bid = anyBidWords(game.last_reveal.bid);
      params.count = game.last_reveal.count;
    }
    if (game?.legal.bids.length) params.lowest = anyBidWords(game.legal.bids[0]);
    return params;
  }

  // `inTurn`: shown during your turn, drawn compact (table.css) so that on a phone the
  // tip and the picker fit the first screen together.
  panel(inTurn = false) {
    const tip = this.current();
    if (!tip) return '';
    return `<aside class="tip${inTurn ? ' in-turn' : ''}" id="tip" data-key="tip-${tip}" data-tip="${tip}" aria-labelledby="tip-title">
      <h2 id="tip-title">${escapeHtml(t(`tip.${tip}.title`))}</h2>
      <p>${escapeHtml(t(wordsKey(tip, this.table.state.room.rules), this.params()))}</p>
      <button id="tip-ok" class="secondary small">${escapeHtml(t('tip.ok'))}</button>
    </aside>`;
  }

  // The player bid or called: the tip on screen was read (or not wanted), and the next
  // one may come. Nothing is drawn here: the move's state redraws the table.
  moved() {
    const tip = this.current();
    if (!tip) return;
    this.seen.add(tip);
    sessionStorage.setItem(this.key, JSON.stringify([...this.seen]));
  }

  // The table calls this when #tip-ok is pressed (its clicks are handled in one place).
  dismiss(tip) {
    if (!tip) return;
    this.seen.add(tip);
    sessionStorage.setItem(this.key, JSON.stringify([...this.seen]));
    this.table.render();
    document.getElementById('tip-ok')?.focus({preventScroll: true});
  }
}
