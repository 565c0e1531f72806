// The home page: a name, then create a room, join one by code or from the list of open
// public rooms, a quick game (with a preset and a number of dice) or practice.
import {api, cutName, errorText, escapeHtml, memory, nameHtml, toast} from './page.js';
import {die} from './dice.js';
import {lang, t} from './i18n.js';
import {morph} from './morph.js';
import {DEFAULT_TIMER, DICE_CHOICES, chosenRules, loadCatalogue, optionChanged, optionControls,
  presetTitle, timerOptions} from './rooms.js';

const ROOMS_EVERY = 10000; // how often the list of open rooms is asked for again

function nameOrComplain(main) {
  const input = main.querySelector('#name');
  const name = cutName(input.value);
  if (!name) {
    toast(t('home.need_name'));
    input.focus();
    return null;
  }
  memory.name = name;
  return name;
}

function goTo(joined) {
  memory.keepSeat(joined.code, joined);
  location.assign(`/r/${joined.code}`);
}

function seatRows(count) {
  const rows = [`<li><span class="seat-no">1</span> ${escapeHtml(t('create.you'))}</li>`];
  for (let i = 1; i < count; i += 1) {
    rows.push(`<li><label><span class="seat-no">${i + 1}</span> <span class="sr-only">${escapeHtml(t('create.seat', {n: i + 1}))}</span>
      <select data-seat="${i}">
        <option value="">${escapeHtml(t('seat.open'))}</option>
        <option value="easy" ${i === count - 1 ? 'selected' : ''}>${escapeHtml(t('seat.bot_easy'))}</option>
        <option value="normal">${escapeHtml(t('seat.bot_normal'))}</option>
        <option value="hard">${escapeHtml(t('seat.bot_hard'))}</option>
      </select></label></li>`);
  }
  return rows.join('');
}

function roomRow(data, room) {
  const taken = room.seats.filter((s) => s.kind !== 'open').length;
  const host = room.seats[0]?.name || '';
  const preset = Object.keys(data.presets).find((key) =>
    Object.entries(data.presets[key].rules).every(([name, value]) => room.rules[name] === value));
  const rules = preset ? presetTitle(data, preset) : t('home.house_rules_short');
  const facts = [rules, t('seat.dice', {n: room.rules.starting_dice}),
    room.timer ? t('create.seconds', {n: room.timer}) : t('create.no_timer')];
  return `<li data-key="room-${room.code}"><span class="room-what"><span class="code">${escapeHtml(room.code)}</span> ·
    ${escapeHtml(t('home.room_of', {name: '\u0000'})).replace('\u0000', nameHtml(host))} ·
    ${escapeHtml(t('home.players_of', {n: taken, total: room.seats.length}))}<br><span class="help">${escapeHtml(facts.join(' · '))}</span></span>
    <button class="secondary small" data-join="${escapeHtml(room.code)}">${escapeHtml(t('home.join'))}<span class="sr-only"> ${escapeHtml(room.code)}</span></button></li>`;
}

export function renderHome(main) {
  let timer = null;
  let rooms = null; // the last list of open public rooms (null: not asked yet)
  let timerTouched = false;

  async function refreshRooms(data) {
    const answer = await api('/api/rooms');
    if (!main.querySelector('#rooms-list')) return;
    rooms = answer.ok ? answer.data.rooms.filter((room) => room.seats.some((s) => s.kind === 'open')) : [];
    drawRooms(data);
  }

  function drawRooms(data) {
    const list = main.querySelector('#rooms-list');
    if (!list) return;
    if (rooms === null) morph(list, `<p class="help">${escapeHtml(t('home.rooms_loading'))}</p>`);
    else if (!rooms.length) morph(list, `<p class="help">${escapeHtml(t('home.no_rooms'))}</p>`);
    else morph(list, `<ul class="rooms-list">${rooms.map((room) => roomRow(data, room)).join('')}</ul>`);
  }

  const view = {
    close() { clearInterval(timer); },
    async render() {
      const data = await loadCatalogue();
      document.title = `dudo · ${t('home.title')}`;
      document.body.dataset.view = 'home';
      const presetOptions = Object.keys(data.presets).map((key) =>
        `<option value="${key}">${escapeHtml(presetTitle(data, key))}</option>`).join('');
      const diceOptions = DICE_CHOICES.map((n) => `<option value="${n}" ${n === 5 ? 'selected' : ''}>${n}</option>`).join('');
      main.innerHTML = `<div class="home">
      <section class="hero">
        <div class="hero-dice" aria-hidden="true">${[5, 1, 5, 3, 6].map((f) => die(f, {size: 40, counts: f === 5 || f === 1})).join('')}</div>
        <h1>${escapeHtml(t('home.title'))}</h1>
        <p class="lead">${escapeHtml(t('home.lead'))}</p>
        <p><a href="/my-games" id="my-games">${escapeHtml(t('home.my_games'))}</a></p>
      </section>
      <section class="card">
        <label for="name" class="big-label">${escapeHtml(t('home.name'))}</label>
        <input id="name" autocomplete="nickname" maxlength="64" dir="auto" value="${escapeHtml(memory.name)}" placeholder="${escapeHtml(t('home.name_placeholder'))}">
        <div class="buttons">
          <button id="quick" class="primary">${escapeHtml(t('home.quick'))}</button>
          <button id="practice" class="secondary">${escapeHtml(t('home.practice'))}</button>
        </div>
        <div class="quick-rules">
          <label for="preset">${escapeHtml(t('home.quick_rules'))}</label>
          <select id="preset">${presetOptions}</select>
          <label for="quick-dice">${escapeHtml(t('opt.starting_dice'))}</label>
          <select id="quick-dice">${diceOptions}</select>
        </div>
        <p class="help">${escapeHtml(t('home.quick_help'))} ${escapeHtml(t('home.practice_help'))}</p>
      </section>
      <section class="card" aria-labelledby="rooms-title">
        <h2 id="rooms-title">${escapeHtml(t('home.rooms_title'))}</h2>
        <div id="rooms-list"></div>
      </section>
      <section class="card">
        <h2>${escapeHtml(t('home.join_title'))}</h2>
        <form id="join-form" class="row">
          <label for="join-code" class="sr-only">${escapeHtml(t('home.code'))}</label>
          <input id="join-code" class="code-input" maxlength="4" autocapitalize="characters" autocomplete="off" placeholder="ABCD" pattern="[A-Za-z]{4}" required>
          <button id="join" class="primary" type="submit">${escapeHtml(t('home.join'))}</button>
        </form>
      </section>
      <section class="card create">
        <h2>${escapeHtml(t('home.create_title'))}</h2>
        <form id="create-form">
          <div class="option"><p class="help" id="create-preset">${escapeHtml(t('create.preset_chosen', {rules: presetTitle(data, 'perudo')}))}</p>
            <p class="help"><a id="preset-rules" href="/rules" target="_blank">${escapeHtml(t('create.read_rules'))}</a></p></div>
          <details id="house-rules"><summary>${escapeHtml(t('create.house_rules'))}</summary><div id="options"></div></details>
          <div class="option"><label for="seats">${escapeHtml(t('create.seats'))}</label>
            <select id="seats">${[2, 3, 4, 5, 6].map((n) => `<option ${n === 4 ? 'selected' : ''}>${n}</option>`).join('')}</select></div>
          <ol id="seat-list" class="seat-list">${seatRows(4)}</ol>
          <div class="option"><label for="timer">${escapeHtml(t('create.timer'))}</label>
            <select id="timer">${timerOptions(DEFAULT_TIMER)}</select>
            <p class="help">${escapeHtml(t('create.timer_help'))}</p></div>
          <div class="option"><label class="check"><input type="checkbox" id="public"> ${escapeHtml(t('create.public'))}</label></div>
          <div class="option"><label class="check"><input type="checkbox" id="show-lost" checked> ${escapeHtml(t('create.show_lost'))}</label></div>
          <button id="create" class="primary" type="submit">${escapeHtml(t('home.create'))}</button>
        </form>
      </section></div>`;
      const fillOptions = () => {
        const preset = main.querySelector('#preset').value;
        main.querySelector('#options').innerHTML = optionControls(data, data.presets[preset].rules);
        main.querySelector('#preset-rules').href = `/rules?preset=${preset}&lang=${lang}`;
        // One Rules picker on the page (beside the name): quick game, practice and a room.
        main.querySelector('#create-preset').textContent = t('create.preset_chosen', {rules: presetTitle(data, preset)});
      };
      const rulesNow = () => chosenRules(data, main.querySelector('#options'), main.querySelector('#preset').value);
      // A turn timer by default when someone else may sit down (an open seat); none when
      // the table is you and bots. The player's own choice is kept once made.
      const defaultTimer = () => {
        if (timerTouched) return;
        const open = [...main.querySelectorAll('[data-seat]')].some((select) => !select.value);
        main.querySelector('#timer').value = String(open ? DEFAULT_TIMER : 0);
      };
      main.querySelector('#options').addEventListener('change', (event) => {
        optionChanged(data, main.querySelector('#options'), main.querySelector('#preset').value,
          event.target.dataset.opt);
        main.querySelector('#preset-rules').href = `/rules?${new URLSearchParams({...rulesNow(), lang})}`;
      });
      fillOptions();
      defaultTimer();
      drawRooms(data);
      clearInterval(timer);
      refreshRooms(data);
      timer = setInterval(() => { if (!document.hidden) refreshRooms(data); }, ROOMS_EVERY);
      main.querySelector('#preset').addEventListener('change', fillOptions);
      main.querySelector('#timer').addEventListener('change', () => { timerTouched = true; });
      main.querySelector('#seats').addEventListener('change', (event) => {
        main.querySelector('#seat-list').innerHTML = seatRows(Number(event.target.value));
        defaultTimer();
      });
      main.querySelector('#seat-list').addEventListener('change', defaultTimer);
      main.querySelector('#rooms-list').addEventListener('click', async (event) => {
        const button = event.target.closest('[data-join]');
        if (!button) return;
        const name = nameOrComplain(main);
        if (!name) return;
        const code = button.dataset.join;
        const answer = await api(`/api/rooms/${encodeURIComponent(code)}/join`, {name});
        if (answer.ok) goTo(answer.data);
        else if (answer.data.error === 'started') location.assign(`/r/${code}?watch=1`);
        else { toast(errorText(answer.data)); refreshRooms(data); }
      });
      main.querySelector('#quick').addEventListener('click', async () => {
        const name = nameOrComplain(main);
        if (!name) return;
        const preset = main.querySelector('#preset').value;
        const dice = Number(main.querySelector('#quick-dice').value);
        const rules = {preset};
        if (dice !== data.presets[preset]?.rules.starting_dice) rules.starting_dice = dice;
        const body = preset === 'perudo' && Object.keys(rules).length === 1 ? {name} : {name, rules};
        const answer = await api('/api/quick', body);
        if (answer.ok) goTo(answer.data); else toast(errorText(answer.data));
      });
      main.querySelector('#practice').addEventListener('click', async () => {
        const name = nameOrComplain(main);
        if (!name) return;
        const preset = main.querySelector('#preset').value || 'perudo';
        const answer = await api('/api/rooms', {
          name, rules: {preset, starting_dice: 3}, seats: 3, bots: [null, 'easy', 'easy'], timer: 0});
        if (!answer.ok) { toast(errorText(answer.data)); return; }
        memory.markPractice(answer.data.code);
        goTo(answer.data);
      });
      main.querySelector('#join-form').addEventListener('submit', async (event) => {
        event.preventDefault();
        const name = nameOrComplain(main);
        if (!name) return;
        const code = main.querySelector('#join-code').value.trim().toUpperCase();
        const answer = await api(`/api/rooms/${encodeURIComponent(code)}/join`, {name});
        if (answer.ok) goTo(answer.data);
        else if (answer.data.error === 'started') location.assign(`/r/${code}?watch=1`);
        else toast(errorText(answer.data));
      });
      main.querySelector('#create-form').addEventListener('submit', async (event) => {
        event.preventDefault();
        const name = nameOrComplain(main);
        if (!name) return;
        const rules = rulesNow();
        const seats = Number(main.querySelector('#seats').value);
        const bots = [null];
        for (const select of main.querySelectorAll('[data-seat]')) bots.push(select.value || null);
        const answer = await api('/api/rooms', {
          name, rules, seats, bots, timer: Number(main.querySelector('#timer').value),
          public: main.querySelector('#public').checked,
          show_lost_dice: main.querySelector('#show-lost').checked});
        if (!answer.ok) { toast(errorText(answer.data)); return; }
        goTo(answer.data);
      });
    },
  };
  return view;
}
