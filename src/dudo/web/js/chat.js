// Table talk: a short chat per room beside the reactions. Lines are text only (escaped,
// one line, at most 140 characters; the server allows one every two seconds per seat),
// seen by everyone at the table and by spectators, who cannot write. Each player can mute
// anyone (kept for this room in this tab); the host can turn the talk off, even mid-game.
// Nothing is kept: the server sends each line once and stores none, and this page keeps
// the last 30 in memory only (docs/protocol.md, "Table talk").
import {escapeHtml, nameHtml} from './page.js';
import {t} from './i18n.js';

const KEEP = 30;

export class Chat {
  constructor(table) {
    this.table = table;
    this.lines = [];
    this.key = `dudo.muted.${table.code}`;
    try { this.muted = new Set(JSON.parse(sessionStorage.getItem(this.key)) || []); } catch { this.muted = new Set(); }
  }

  receive(message) {
    const state = this.table.state;
    const name = state?.room.seats[message.seat]?.name || t('seat.number', {n: message.seat + 1});
    this.lines.push({seat: message.seat, name, text: String(message.text)});
    if (this.lines.length > KEEP) this.lines.shift();
    this.table.render();
  }

  submit(form) {
    const input = form.querySelector('#chat-text');
    const text = input.value.trim();
    if (!text) return;
    if (this.table.send({type: 'chat', text})) input.value = '';
  }

  toggleMute(seat) {
    if (this.muted.has(seat)) this.muted.delete(seat); else this.muted.add(seat);
    sessionStorage.setItem(this.key, JSON.stringify([...this.muted]));
    this.table.render();
  }

  panel() {
    const state = this.table.state;
    if (!state) return '';
    const {room, you} = state;
    const me = you.seat;
    const shown = this.lines.filter((line) => !this.muted.has(line.seat));
    const items = shown.map((line, i) => `<li data-key="chat-${this.lines.indexOf(line)}-${i}"><span class="chat-who">${nameHtml(line.name)}</span> <span class="chat-text"><bdi>${escapeHtml(line.text)}</bdi></span>${line.seat !== me ? ` <button type="button" class="link-button" data-mute="${line.seat}">${escapeHtml(t('chat.mute'))}<span class="sr-only"> ${escapeHtml(line.name)}</span></button>` : ''}</li>`).join('');
    const muted = [...this.muted].map((seat) => {
      const name = room.seats[seat]?.name || t('seat.number', {n: seat + 1});
      return `<button type="button" class="small secondary" data-mute="${seat}">${escapeHtml(t('chat.unmute', {name}))}</button>`;
    }).join(' ');
    let form = '';
    if (!room.chat) form = `<p class="help">${escapeHtml(t('chat.off'))}</p>`;
    else if (me == null) form = `<p class="help">${escapeHtml(t('chat.spectators'))}</p>`;
    else {
      form = `<form id="chat-form" class="chat-form"><label for="chat-text" class="sr-only">${escapeHtml(t('chat.say'))}</label>
        <input id="chat-text" maxlength="140" dir="auto" autocomplete="off" placeholder="${escapeHtml(t('chat.say'))}">
        <button type="submit" id="chat-send" class="small secondary">${escapeHtml(t('chat.send'))}</button></form>`;
    }
    const host = you.host ? `<label class="check small"><input type="checkbox" id="chat-on" ${room.chat ? 'checked' : ''}> ${escapeHtml(t('chat.allow'))}</label>` : '';
    return `<section class="chat" data-key="chat" aria-labelledby="chat-title">
      <h2 id="chat-title">${escapeHtml(t('chat.title'))}</h2>
      <div role="log" aria-live="polite" aria-labelledby="chat-title"><ul class="chat-lines">${items}</ul></div>
      ${muted ? `<p class="chat-muted">${muted}</p>` : ''}
      ${form}${host}</section>`;
  }
}
