// What every view takes from the page: the server's API, the browser's memory, messages
// for the player (toasts) and for screen readers (the live region), safe HTML.
import {has, t} from './i18n.js';
import {profileRefusal, withProfile} from './profile.js';

export function randomHex(bytes) {
  const values = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(values, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function escapeHtml(text) {
  return String(text ?? '').replace(/[&<>"']/g, (c) => ({
    '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c]));
}

// A player's name as markup: escaped, and isolated with <bdi> so a right-to-left name
// shows correctly and does not reorder the words around it.
export function nameHtml(name) {
  return `<bdi>${escapeHtml(name)}</bdi>`;
}

// The most characters a name keeps: the server's limit (dudo/printable.py MOST_NAME).
// Every name input holds at most this many (maxlength), so the cut is seen while typing.
export const MOST_NAME = 24;

// At most `limit` characters (code points, as the server counts them), never cutting
// inside a grapheme: an emoji sequence such as a family stays whole or goes whole.
export function cutName(text, limit = MOST_NAME) {
  const value = String(text ?? '').trim();
  const parts = typeof Intl !== 'undefined' && Intl.Segmenter
    ? Array.from(new Intl.Segmenter(undefined, {granularity: 'grapheme'}).segment(value), (s) => s.segment)
    : Array.from(value);
  let kept = '';
  let length = 0;
  for (const part of parts) {
    const size = Array.from(part).length;
    if (length + size > limit) break;
    kept += part;
    length += size;
  }
  return kept.trim();
}

// The words for a refusal: the server's error code in the page's language (err.<code>),
// else the server's own words, else a general apology.
export function errorText(data) {
  const code = data && (data.code || data.error);
  // Rules refused by the engine: which option, in the engine's words, after the reason.
  if (code === 'bad_rules' && data.message) return `${t('err.bad_rules')} ${data.message}`;
  if (code && has(`err.${code}`)) return t(`err.${code}`);
  return data?.message || t('error.generic');
}

// Names in a list: "Ana", "Ana and Ben", "Ana, Ben and Cy" in the page's language.
export function listNames(names) {
  try {
    return new Intl.ListFormat(document.documentElement.lang || 'en', {type: 'conjunction'}).format(names);
  } catch {
    return names.join(', ');
  }
}

// Screen readers hear bids and reveals through this polite live region.
export function announce(text) {
  const live = document.getElementById('live');
  const line = document.createElement('p');
  line.textContent = text;
  live.append(line);
  while (live.childElementCount > 6) live.firstElementChild.remove();
}

// A toast stays as long as its words take to read: 5 s for a few ("Copied"), longer for a
// sentence (a refused bid's cause runs to 20-odd words): 2 s to find it, then 70 ms a
// character (some 150 words a minute), at most 20 s. A click takes it away sooner.
export function toastTime(text) {
  return Math.min(20000, Math.max(5000, 2000 + 70 * text.length));
}

// The note an earlier page left for this one (see api()), shown once.
export function showNextPageNote() {
  const note = sessionStorage.getItem(NEXT_PAGE_NOTE);
  if (!note) return;
  sessionStorage.removeItem(NEXT_PAGE_NOTE);
  toast(note, 'info');
}

// The toasts' box is an assertive live region: a screen reader says each toast. One whose
// words were just said in the polite region as well (`announced`: announce() first) is kept
// out of it, so that they are heard once.
export function toast(text, kind = 'error', {announced = false} = {}) {
  const box = document.getElementById('toasts');
  const item = document.createElement('p');
  item.className = `toast ${kind}`;
  item.textContent = text;
  if (announced) item.setAttribute('aria-hidden', 'true');
  item.addEventListener('click', () => item.remove());
  box.append(item);
  setTimeout(() => item.remove(), toastTime(text));
}

// A random id for this browser, so the server's limit on mistyped room codes counts this
// browser's mistakes, not those of everyone behind the same address.
export function clientId() {
  let id = localStorage.getItem('dudo.client');
  if (!id) { id = randomHex(16); localStorage.setItem('dudo.client', id); }
  return id;
}

// A note for the next page this tab opens (a join goes on to the room's page at once).
const NEXT_PAGE_NOTE = 'dudo.note';

export async function api(path, given) {
  const body = await withProfile(path, given);
  const headers = {'X-Dudo-Client': clientId()};
  const options = body === undefined ? {headers} : {
    method: 'POST', headers: {...headers, 'Content-Type': 'application/json'},
    body: JSON.stringify(body)};
  try {
    const response = await fetch(path, options);
    const data = await response.json().catch(() => ({}));
    // A seat taken while the profile could not be made: say so, rather than let the game
    // go missing from the player's stats unseen.
    if (response.ok && body !== given && !body.profile && profileRefusal()) {
      sessionStorage.setItem(NEXT_PAGE_NOTE, t('profile.not_counted', {why: errorText(profileRefusal())}));
    }
    return {ok: response.ok, status: response.status, data};
  } catch {
    return {ok: false, status: 0, data: {error: 'network', message: t('error.network')}};
  }
}

// What the browser remembers: the player's name and one seat token per room code.
export const memory = {
  get name() { return localStorage.getItem('dudo.name') || ''; },
  set name(value) { localStorage.setItem('dudo.name', value); },
  seat(code) {
    try { return JSON.parse(localStorage.getItem(`dudo.seat.${code}`)); } catch { return null; }
  },
  keepSeat(code, joined) {
    localStorage.setItem(`dudo.seat.${code}`, JSON.stringify(
      {token: joined.token, seat: joined.seat, name: joined.name}));
  },
  dropSeat(code) { localStorage.removeItem(`dudo.seat.${code}`); },
  practice(code) { return localStorage.getItem(`dudo.practice.${code}`) === '1'; },
  markPractice(code) { localStorage.setItem(`dudo.practice.${code}`, '1'); },
};
