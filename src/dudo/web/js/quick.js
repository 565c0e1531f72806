// A quick game's lobby says what happens: no friends to invite, no host settings, just
// the table filling up, and a countdown to the moment bots take the open seats and the
// game starts (the server's `room.fill_at`). The first player may start at once with bots.
import {escapeHtml} from './page.js';
import {t} from './i18n.js';

function secondsTo(at) {
  return Math.max(0, Math.ceil(Number(at) - Date.now() / 1000));
}

function countdownText(at) {
  return t('quick.countdown', {n: secondsTo(at)});
}

// The lobby of a quick table; `seats` is the table's seat list markup, `rules` its rules line.
export function quickLobby(state, seats, rules) {
  const {room, you} = state;
  const open = room.seats.filter((seat) => seat.kind === 'open').length;
  const at = room.fill_at;
  const countdown = at && open
    ? `<p class="quick-countdown" id="quick-countdown"><span data-fill-at="${at}">${escapeHtml(countdownText(at))}</span></p>`
    : `<p class="quick-countdown" id="quick-countdown">${escapeHtml(t(open ? 'quick.waiting' : 'quick.starting'))}</p>`;
  const now = you.host && open
    ? `<div class="buttons"><button id="quick-now" class="primary">${escapeHtml(t('quick.start_now'))}</button></div>` : '';
  return `<section class="card lobby quick-lobby" data-key="quick-lobby">
    <h1>${escapeHtml(t('quick.title'))}</h1>
    <p class="lead">${escapeHtml(t('quick.lead'))}</p>
    ${countdown}
    <h2>${escapeHtml(t('lobby.seats'))}</h2>
    ${seats}
    ${rules}
    ${now}
  </section>`;
}

// Called with the table's clocks (four times a second): the countdown's seconds.
export function tickQuick(root) {
  for (const element of root.querySelectorAll('[data-fill-at]')) {
    const text = countdownText(element.dataset.fillAt);
    if (element.textContent !== text) element.textContent = text;
  }
}
