// The table by keyboard: when your turn starts, focus moves to the bid picker's Bid
// button (one Enter bids the picked bid; + − 1–6 change it, 1–6 a hand's faces; L and C
// call), and after a bid the focus stays in the actions' place instead of falling to the
// page's start. N rolls the next round; ? opens the list of keys (also a button in the
// room's head).
import {icon} from './icons.js';
import {escapeHtml} from './page.js';
import {t} from './i18n.js';

const KEYS = [
  ['+ −', 'keys.quantity'], ['1–6', 'keys.face'], ['B', 'keys.bid'], ['L', 'keys.liar'],
  ['C', 'keys.calza'], ['N', 'keys.next'], ['?', 'keys.help'], ['Esc', 'keys.close'],
];
// A Common Hand room (poker bids) has no quantity and no calza, and its digits pick the
// hand's faces, the first and then the second (input.js).
const HAND_KEYS = [
  ['1–6', 'keys.hand_face'], ['B', 'keys.bid'], ['L', 'keys.liar'],
  ['N', 'keys.next'], ['?', 'keys.help'], ['Esc', 'keys.close'],
];

// The button in the room's head (shown where there is a keyboard: table.css).
export function keysButton() {
  return `<button id="keys-help" class="icon small secondary keys-help" aria-haspopup="dialog" aria-keyshortcuts="?" title="${escapeHtml(t('keys.title'))}">${icon('keys')}<span class="sr-only">${escapeHtml(t('keys.title'))}</span></button>`;
}

export class Keyboard {
  constructor(table) {
    this.table = table;
    this.focusedTurn = null; // the turn focus was moved for (once per turn)
    this.wasInActions = false;
  }

  // Whether moving focus would take nothing from the player: not while they type, read
  // a dialog, or work somewhere outside the table.
  mayMoveFocus() {
    const active = document.activeElement;
    if (!active || active === document.body || active === this.table.main) return true;
    if (active.closest('dialog') || active.matches('input, select, textarea')) return false;
    return !!active.closest('.table-page');
  }

  // Just before the table draws a state.
  before() {
    const active = document.activeElement;
    this.wasInActions = !!active?.closest?.('.actions');
  }

  // Just after: focus to the picker at the start of a turn, or back into the actions if
  // the button that had it went away (the picker after a bid), or to Next round.
  after() {
    const {state, main} = this.table;
    const game = state?.game;
    const me = state?.you.seat;
    const mine = game && game.phase === 'bidding' && me != null && game.turn === me;
    const turn = mine ? `${state.fair?.game_id}:${game.round}:${game.bids.length}` : null;
    const lost = !document.activeElement || document.activeElement === document.body;
    if (turn && turn !== this.focusedTurn) {
      this.focusedTurn = turn;
      if (this.mayMoveFocus()) {
        const target = main.querySelector('#bid-go:not([disabled])') || main.querySelector('.actions .call');
        if (target) { target.focus({preventScroll: true}); return; }
      }
    }
    // (A round that ended at once has no actions: Next round takes it then.)
    if (lost && this.wasInActions) (main.querySelector('.actions') || main.querySelector('#next-round'))?.focus({preventScroll: true});
  }

  showHelp() {
    if (document.getElementById('keys-dialog')) return;
    const from = document.activeElement;
    const dialog = document.createElement('dialog');
    dialog.id = 'keys-dialog';
    dialog.className = 'keys-dialog';
    dialog.setAttribute('aria-labelledby', 'keys-title');
    // The keys this room's rules have: a poker room its own; C only where calza is played.
    const rules = this.table.state?.room.rules;
    const list = rules?.bids === 'poker' ? HAND_KEYS
      : KEYS.filter(([key]) => key !== 'C' || rules?.calza !== 'off');
    const rows = list.map(([keys, what]) => `<tr><th scope="row"><kbd>${escapeHtml(keys)}</kbd></th><td>${escapeHtml(t(what))}</td></tr>`).join('');
    dialog.innerHTML = `<h2 id="keys-title">${escapeHtml(t('keys.title'))}</h2>
      <table class="keys-table"><caption class="sr-only">${escapeHtml(t('keys.title'))}</caption><tbody>${rows}</tbody></table>
      <div class="buttons"><button id="keys-close" class="primary">${escapeHtml(t('keys.done'))}</button></div>`;
    dialog.addEventListener('click', (event) => {
      if (event.target.closest('#keys-close')) dialog.close();
    });
    dialog.addEventListener('close', () => {
      dialog.remove();
      if (from?.isConnected && from !== document.body) from.focus({preventScroll: true});
    });
    document.body.append(dialog);
    dialog.showModal();
    dialog.querySelector('#keys-close').focus();
  }

  close() {
    document.getElementById('keys-dialog')?.close();
  }
}
