// The room around the game: the room's head (its code, badges and buttons), the join page
// for a visitor without a seat, the lobby panel (share link and QR code, the seat list,
// the take-seat form, the rules line, the host's settings) and, between games, the next
// game's seats. Each function draws from the table's state (and the presets catalogue);
// the table morphs the markup into the page and input.js handles what is pressed.
import {icon} from './icons.js';
import {MOST_NAME, api, cutName, errorText, escapeHtml, memory, nameHtml, toast} from './page.js';
import {lang, t} from './i18n.js';
import {morph} from './morph.js';
import {keysButton} from './keyboard.js';
import {leaveButton} from './leave.js';
import {soundOn} from './sound.js';
import {notifyOn} from './narration.js';
import {closestPreset, optionControls, presetTitle, timerOptions} from './rooms.js';

export function rulesHref(rules) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(rules.overrides || rules)) query.set(key, String(value));
  query.set('lang', lang);
  return `/rules?${query}`;
}

// The room's head: its code, who watches, whether the socket is back, and the buttons
// (sound, the turn bell, keys, leave, copy link, rules).
export function roomHead(table) {
  const {room, you} = table.state;
  const link = shareLink(table);
  // A practice round is nobody else's to join: its name, not a code to share.
  const title = table.practice ? `<span class="room-word">${escapeHtml(t('home.practice'))}</span>`
    : `<span class="room-word">${escapeHtml(t('table.room'))} </span><span class="code">${table.code}</span>`;
  const heading = room.status === 'lobby' ? `<p class="room-title">${title}</p>` : `<h1 class="room-title">${title}</h1>`;
  const sound = soundOn();
  const notify = 'Notification' in window
    ? `<button id="notify-toggle" class="icon small secondary" aria-pressed="${notifyOn()}" title="${escapeHtml(t('table.notify'))}">${icon(notifyOn() ? 'bell' : 'bell-off')}<span class="sr-only">${escapeHtml(t('table.notify'))}</span></button>` : '';
  return `<section class="room-head" data-key="head" aria-label="${escapeHtml(t('table.room'))}">
      ${heading}
      <div class="head-buttons">
        ${you.role === 'spectator' ? `<span class="badge">${escapeHtml(t('table.watching'))}</span>` : ''}
        ${room.spectators ? `<span class="badge watchers"><span aria-hidden="true">👀 </span>${escapeHtml(t('table.spectators', {n: room.spectators}))}</span>` : ''}
        ${table.connection.offline && !table.replaced ? `<span class="badge warn">${escapeHtml(t('table.reconnecting'))}</span>` : ''}
        ${table.replaced ? `<button id="play-here" class="small primary">${escapeHtml(t('table.play_here'))}</button>` : ''}
        <button id="sound-toggle" class="icon small secondary" aria-pressed="${sound}" title="${escapeHtml(t('table.sound'))}">${icon(sound ? 'sound' : 'mute')}<span class="sr-only">${escapeHtml(t('table.sound'))}</span></button>
        ${notify}
        ${keysButton()}
        ${leaveButton(table.state)}
        ${table.practice ? '' : `<button id="copy-link" class="small secondary" data-link="${escapeHtml(link)}">${icon('link')} <span class="wide-only">${escapeHtml(t('table.copy_link'))}</span><span class="sr-only narrow-only">${escapeHtml(t('table.copy_link'))}</span></button>`}
        <a class="small button-link" href="${rulesHref(room.rules)}" target="_blank">${icon('rules')} <span class="wide-only">${escapeHtml(t('table.rules'))}</span><span class="sr-only narrow-only">${escapeHtml(t('table.rules'))}</span></a>
      </div></section>`;
}

// -- joining ------------------------------------------------------------------------

// A visitor without a seat: the room's seats, a seat to take if one is open, or watch.
export async function joinPage(table) {
  const info = await api(`/api/rooms/${table.code}`);
  if (table.closed || table.session || table.watch) return;
  if (!info.ok) {
    morph(table.main, `<section class="card"><h1>${escapeHtml(t('table.no_room', {code: table.code}))}</h1><p><a href="/">${escapeHtml(t('table.home'))}</a></p></section>`);
    return;
  }
  const room = info.data;
  const open = room.status !== 'playing' && room.seats.some((s) => s.kind === 'open');
  const seats = room.seats.map((s, i) => `<li>${s.kind === 'open' ? `<em>${escapeHtml(t('seat.open'))}</em>` : nameHtml(s.name)}${s.kind === 'bot' ? ` <span class="badge bot">${escapeHtml(t(`seat.bot_${s.level}`))}</span>` : ''}${i === room.host ? ` <span class="badge">${escapeHtml(t('seat.host'))}</span>` : ''}</li>`).join('');
  const why = room.status === 'lobby' ? 'join.full' : room.status === 'over' ? 'join.over_full' : 'join.started';
  document.title = `dudo · ${t('join.title')} ${table.code}`;
  morph(table.main, `
      <section class="card join">
        <h1>${escapeHtml(t('join.title'))} <span class="code">${table.code}</span></h1>
        <p class="lead">${escapeHtml(t(open ? 'join.invite' : 'join.invite_watch', {name: room.seats[0]?.name || ''}))}</p>
        ${table.joinError ? `<p class="notice">${escapeHtml(table.joinError)}</p>` : ''}
        ${room.status === 'over' && open ? `<p class="notice">${escapeHtml(t('join.between_games'))}</p>` : ''}
        <ol class="seat-list">${seats}</ol>
        ${open ? `<form id="join-form">
          <label for="name" class="big-label">${escapeHtml(t('home.name'))}</label>
          <input id="name" maxlength="${MOST_NAME}" dir="auto" autocomplete="nickname" value="${escapeHtml(memory.name)}" required>
          <button class="primary" id="take-seat" type="submit">${escapeHtml(t('join.take_seat'))}</button>
        </form>` : `<p>${escapeHtml(t(why))}</p>`}
        <p><button class="secondary" id="watch">${escapeHtml(t('join.watch'))}</button>
        <a href="${rulesHref(room.rules)}" target="_blank">${escapeHtml(t('table.rules'))}</a></p>
      </section>`);
}

// The join page's or a spectator's form sent: ask for the seat, keep its token, connect.
export async function takeSeat(table, nameInput) {
  const name = cutName(nameInput.value);
  if (!name) { toast(t('home.need_name')); nameInput.focus(); return; }
  memory.name = name;
  const invite = new URLSearchParams(location.search).get('invite');
  const answer = await api(`/api/rooms/${table.code}/join`, invite ? {name, invite} : {name});
  if (!answer.ok) { toast(errorText(answer.data)); return; }
  memory.keepSeat(table.code, answer.data);
  table.session = memory.seat(table.code);
  table.watch = false;
  table.joinError = '';
  table.connect();
  table.render();
}

// -- the lobby ----------------------------------------------------------------------

// The host's link carries the room's invite key: it lets friends in even when the
// room is locked, which the code alone never does.
function shareLink(table) {
  const {you} = table.state;
  const invite = you.host && you.invite ? `?invite=${encodeURIComponent(you.invite)}` : '';
  return `${shareOrigin(table)}/r/${table.code}${invite}`;
}

// A page opened as localhost (the host's own computer) must not hand out a localhost
// link: no friend's phone can open it. A server listening on all interfaces (make party,
// dudo serve --lan) names the addresses friends can open (GET /api/share), and the link
// and the QR code use the first; a server for this computer only names none, and the
// lobby says how to let friends in.
const onLoopback = /^(localhost|127(\.\d+){3}|\[::1\])$/.test(location.hostname);
let sharedOrigins = null; // null until asked (once per page), then the server's list

function shareOrigin(table) {
  if (!onLoopback) return location.origin;
  if (sharedOrigins === null) {
    sharedOrigins = [];
    api('/api/share').then((answer) => {
      if (!answer.ok || !Array.isArray(answer.data?.origins)) return;
      sharedOrigins = answer.data.origins;
      if (sharedOrigins.length && !table.closed) table.render();
    });
  }
  return sharedOrigins[0] || location.origin;
}

// Whether the link shown opens only on this computer (a localhost page, nothing shared).
function linkStaysHere(table) {
  return onLoopback && shareOrigin(table) === location.origin;
}

// The share link as a QR code, drawn by the server (dudo.server.share) from the same
// parts as shareLink(): the origin shared, the code, the host's invite key.
function shareQr(table) {
  const {you} = table.state;
  const query = new URLSearchParams({origin: shareOrigin(table)});
  if (you.host && you.invite) query.set('invite', you.invite);
  return `/r/${table.code}/qr.svg?${query}`;
}

// The seats of a room not playing now (its lobby, or between games): the host sets
// bots and open seats and removes players.
export function seatList(state) {
  const {room, you} = state;
  const host = you.host && room.status !== 'playing' && !(room.quick && room.status === 'lobby');
  const rows = room.seats.map((seat, index) => {
    let who;
    if (seat.kind === 'human') who = `${nameHtml(seat.name)}${seat.connected ? '' : ` <span class="badge">${escapeHtml(t('seat.away'))}</span>`}`;
    else if (seat.kind === 'bot') who = `${nameHtml(seat.name)} <span class="badge">${escapeHtml(t(`seat.bot_${seat.level}`))}</span>`;
    else who = `<em>${escapeHtml(t('seat.open'))}</em>`;
    let control = '';
    if (host && seat.kind !== 'human') {
      const value = seat.kind === 'bot' ? seat.level : '';
      control = `<label class="sr-only" for="seat-kind-${index}">${escapeHtml(t('create.seat', {n: index + 1}))}</label>
          <select id="seat-kind-${index}" data-configure-seat="${index}">
          ${['', 'easy', 'normal', 'hard'].map((v) => `<option value="${v}" ${v === value ? 'selected' : ''}>${escapeHtml(v ? t(`seat.bot_${v}`) : t('seat.open'))}</option>`).join('')}
          </select>`;
    } else if (host && index !== 0) {
      control = `<button class="small secondary" id="remove-${index}" data-remove="${index}">${escapeHtml(t('lobby.remove'))}<span class="sr-only"> ${escapeHtml(seat.name)}</span></button>`;
    }
    const badges = `${index === room.host ? ` <span class="badge">${escapeHtml(t('seat.host'))}</span>` : ''}${index === you.seat ? ` <span class="badge you">${escapeHtml(t('seat.you'))}</span>` : ''}`;
    return `<li><span class="seat-no">${index + 1}</span> <span class="who">${who}${badges}</span> ${control}</li>`;
  }).join('');
  return `<ol class="seat-list">${rows}</ol>`;
}

// The host's settings for the room: house rules, timer, who may join, lost dice shown.
function settings(table) {
  const {room, you} = table.state;
  if (!you.host || room.status === 'playing' || !table.catalogue) return '';
  const data = table.catalogue;
  const preset = closestPreset(data, room.rules);
  const presets = Object.keys(data.presets).map((key) =>
    `<option value="${key}" ${key === preset ? 'selected' : ''}>${escapeHtml(presetTitle(data, key))}</option>`).join('');
  const openHouse = table.openDetails.has('set-house') ? 'open' : '';
  return `<div class="settings" id="room-settings-form">
      <div class="option"><label for="set-preset">${escapeHtml(t('create.preset'))}</label>
        <select id="set-preset">${presets}</select></div>
      <details id="set-house" ${openHouse}><summary>${escapeHtml(t('create.house_rules'))}</summary>
        <div id="set-options" class="rule-groups">${optionControls(data, room.rules, 'set')}</div></details>
      <div class="option"><label for="set-timer">${escapeHtml(t('create.timer'))}</label>
        <select id="set-timer">${timerOptions(room.timer)}</select>
        <p class="help">${escapeHtml(t('create.timer_help'))}</p></div>
      <div class="option"><label class="check"><input type="checkbox" id="set-public" ${room.public ? 'checked' : ''}> ${escapeHtml(t('create.public'))}</label></div>
      <div class="option"><label class="check"><input type="checkbox" id="lock-room" ${room.locked ? 'checked' : ''}> ${escapeHtml(t('lobby.lock'))}</label></div>
      <div class="option"><label class="check"><input type="checkbox" id="set-lost" ${room.show_lost_dice ? 'checked' : ''}> ${escapeHtml(t('create.show_lost'))}</label></div>
    </div>`;
}

// The rules in one line: the preset, the dice, the timer, and the rules sheet's link.
export function rulesLine(table) {
  const {room} = table.state;
  const data = table.catalogue;
  const preset = data ? presetTitle(data, closestPreset(data, room.rules)) : '';
  const parts = [];
  if (preset) parts.push(preset);
  parts.push(t('seat.dice', {n: room.rules.starting_dice}));
  parts.push(room.timer ? t('create.seconds', {n: room.timer}) : t('create.no_timer'));
  return `<p class="help">${escapeHtml(t('lobby.rules_summary'))} ${escapeHtml(parts.join(' · '))} · <a href="${rulesHref(room.rules)}" target="_blank">${escapeHtml(t('table.rules'))}</a></p>`;
}

// A private room's lobby: how to invite, who sits where, start (the host) or wait.
export function lobbyPanel(table) {
  const {room, you} = table.state;
  const link = shareLink(table);
  return `<section class="card lobby"><div class="lobby-invite">
      <h1>${escapeHtml(t('lobby.title'))}</h1>
      <p>${escapeHtml(t('lobby.share'))}</p>
      <div class="share-code">${table.code}</div>
      <p class="share-link"><input id="share-link" readonly value="${escapeHtml(link)}" aria-label="${escapeHtml(t('lobby.link'))}"> <button id="copy-link-2" class="secondary" data-link="${escapeHtml(link)}">${escapeHtml(t('table.copy_link'))}</button></p>
      <figure class="share-qr"><img id="share-qr" src="${escapeHtml(shareQr(table))}" width="240" height="240" alt="${escapeHtml(t('lobby.qr_alt'))}">
        <figcaption class="help">${escapeHtml(t('lobby.qr_help'))}</figcaption></figure>
      ${linkStaysHere(table) ? `<p class="notice" id="share-local">${escapeHtml(t('lobby.local_only'))}</p>` : ''}</div>
      <div class="lobby-seats"><h2>${escapeHtml(t('lobby.seats'))}</h2>
      ${seatList(table.state)}
      ${takeSeatForm(table.state, 'join.take_seat')}
      ${rulesLine(table)}
      ${!you.host && room.locked ? `<p class="help">${escapeHtml(t('lobby.locked'))}</p>` : ''}
      ${you.host ? `<div class="buttons">${room.seats.some((s) => s.kind === 'open') ? `<button id="fill-bots" class="secondary">${escapeHtml(t('lobby.fill_bots'))}</button>` : ''}
        <button id="start" class="primary">${escapeHtml(t('lobby.start'))}</button></div>`
    : `<p class="notice">${escapeHtml(t('lobby.wait_host'))}</p>`}
      ${you.host ? `<h2>${escapeHtml(t('lobby.settings'))}</h2>${settings(table)}` : ''}</div>
    </section>`;
}

// A spectator's way to an open seat (in the lobby, or between games for the rematch).
function takeSeatForm(state, label) {
  const {room, you} = state;
  if (you.seat != null || !room.seats.some((s) => s.kind === 'open')) return '';
  return `<form id="take-form" class="take-seat">
        <label for="take-name">${escapeHtml(t('home.name'))}</label>
        <input id="take-name" maxlength="${MOST_NAME}" dir="auto" autocomplete="nickname" value="${escapeHtml(memory.name)}" required>
        <button class="primary" id="take-seat" type="submit">${escapeHtml(t(label))}</button></form>`;
}

// Between games: who sits where for the rematch. Spectators can take an open seat; the
// host can change the rules, the seats and the timer, and remove a player.
export function nextGame(table) {
  const {room, you} = table.state;
  const open = room.seats.filter((s) => s.kind === 'open').length;
  const take = takeSeatForm(table.state, 'over.take_seat');
  const openHouse = table.openDetails.has('room-settings') ? 'open' : '';
  return `<section class="card next-game" data-key="next-game" aria-labelledby="next-title">
      <h2 id="next-title">${escapeHtml(t('over.next_game'))}</h2>
      ${seatList(table.state)}
      ${open ? `<p class="help">${escapeHtml(t('over.open_seats', {n: open}))}</p>` : ''}
      ${take}
      ${you.host && open ? `<p><button id="fill-bots" class="secondary small">${escapeHtml(t('lobby.fill_bots'))}</button></p>` : ''}
      ${rulesLine(table)}
      ${you.host && table.catalogue ? `<details id="room-settings" ${openHouse}><summary>${escapeHtml(t('over.change_rules'))}</summary>${settings(table)}</details>` : ''}
    </section>`;
}
