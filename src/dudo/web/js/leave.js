// Leaving the table: a "Leave table" button wherever you hold a seat, a confirmation that
// says what happens to the seat (it opens in the lobby; during a game a bot plays it to
// the end and keeps it; between games a bot takes it), and the protocol's `leave`. The
// server acknowledges and closes the seat's sockets with 4411; the table then forgets
// the seat and goes where the player chose: the home page, or watching on.
// A player out of dice gets the same way out, and a new game, beside the table.
import {icon} from './icons.js';
import {escapeHtml, memory, randomHex, toast} from './page.js';
import {t} from './i18n.js';

export const CLOSE_LEFT = 4411;

// The button in the room's head, for a seated player.
export function leaveButton(state) {
  if (state.you.seat == null) return '';
  return `<button id="leave" class="small secondary leave" aria-haspopup="dialog">${icon('leave')} <span class="wide-only">${escapeHtml(t('leave.button'))}</span><span class="sr-only narrow-only">${escapeHtml(t('leave.button'))}</span></button>`;
}

// Beside the table when you are out of dice and the others play on.
export function outChoices() {
  return `<div class="out-choices" id="out-choices">
    <p class="help">${escapeHtml(t('leave.out_help'))}</p>
    <div class="buttons"><button id="leave-out" class="secondary small" aria-haspopup="dialog">${escapeHtml(t('leave.button'))}</button>
    <button id="leave-new" class="primary small">${escapeHtml(t('leave.new_game'))}</button></div></div>`;
}

function consequence(state) {
  const status = state.room.status;
  return t(status === 'lobby' ? 'leave.lobby' : status === 'playing' ? 'leave.playing' : 'leave.over');
}

export class Leaving {
  constructor(table) {
    this.table = table;
    this.going = null; // where to go once the server let the seat go
  }

  // The confirmation, as a modal dialog outside the table's markup (morph leaves it be).
  ask(from) {
    const state = this.table.state;
    if (!state || state.you.seat == null) return;
    this.close();
    const dialog = document.createElement('dialog');
    dialog.id = 'leave-dialog';
    dialog.className = 'leave-dialog';
    dialog.setAttribute('aria-labelledby', 'leave-title');
    dialog.setAttribute('aria-describedby', 'leave-what');
    dialog.innerHTML = `<h2 id="leave-title">${escapeHtml(t('leave.title'))}</h2>
      <p id="leave-what">${escapeHtml(consequence(state))}</p>
      <div class="buttons"><button id="leave-yes" class="primary danger">${escapeHtml(t('leave.confirm'))}</button>
      <button id="leave-no" class="secondary">${escapeHtml(t('leave.stay'))}</button></div>`;
    dialog.addEventListener('click', (event) => {
      const id = event.target.closest('button')?.id;
      if (id === 'leave-yes') this.leave('/');
      else if (id === 'leave-no') this.close();
    });
    dialog.addEventListener('close', () => {
      dialog.remove();
      if (this.dialog === dialog) this.dialog = null;
      if (from?.isConnected) from.focus({preventScroll: true});
      else this.table.main.querySelector('#leave')?.focus({preventScroll: true});
    });
    document.body.append(dialog);
    this.dialog = dialog;
    dialog.showModal();
    dialog.querySelector('#leave-no').focus();
  }

  close() {
    if (this.dialog?.open) this.dialog.close();
  }

  // Leave now, then go to `where` (a path).
  leave(where) {
    this.going = where;
    if (!this.table.send({type: 'leave', id: randomHex(8)})) this.going = null;
  }

  // The socket closed with 4411: the seat is no longer ours.
  left() {
    const table = this.table;
    memory.dropSeat(table.code);
    table.session = null;
    this.close();
    toast(t('leave.done'), 'info');
    const where = this.going || '/';
    this.going = null;
    location.assign(where);
  }
}
