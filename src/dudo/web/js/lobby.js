// The home page: a name, then create a room, join one by code or from the list of open
// public rooms, a quick game (with a preset and a number of dice) or practice.
import {MOST_NAME, api, cutName, errorText, escapeHtml, memory, nameHtml, toast} from './page.js';
import {die} from './dice.js';
import {lang, t} from './i18n.js';
import {morph} from './morph.js';
import {DEFAULT_TIMER, DICE_CHOICES, chosenRules, loadCatalogue, optionChanged, optionControls,
  presetTitle, timerOptions} from './rooms.js';

const ROOMS_EVERY = 10000;
// Presets made for a number of players (docs/rules-spec.md: Common Hand is the variant for
// two); the create form's seats start there when one is picked. Others start at 4.
const PRESET_SEATS = {'common-hand': 2};
const DEFAULT_SEATS = 4;

// The game's name in the display face (Bitter Bold, fonts/OFL.txt) drawn as one path: the
// home page shows it without downloading the font (its weight budget, docs/web.md).
const WORDMARK = '<svg class="wordmark-art" viewBox="20 140 2350 830" aria-hidden="true" focusable="false"><path d="M230 947Q172 947 128 916Q83 886 58 826Q32 766 32 680Q32 532 107 460Q182 389 318 389Q340 389 362 391Q384 393 408 398L382 414V249L392 263L310 236V165L522 157V857L505 837L589 863V934L413 942L395 856L409 861Q365 904 322 926Q278 947 230 947ZM284 844Q310 844 339 830Q368 815 399 787L382 829V470L399 502Q352 489 314 489Q243 489 210 536Q178 584 178 667Q178 721 191 761Q204 801 228 822Q251 844 284 844ZM827 947Q761 947 716 904Q671 860 671 772V480L684 500L604 476V404L811 397V749Q811 796 832 818Q853 841 888 841Q915 841 947 826Q979 812 1011 781L1002 806V477L1015 500L935 476V404L1142 397V861L1125 837L1208 863V934L1033 942L1014 844L1033 851Q984 899 930 923Q876 947 827 947ZM1446 947Q1388 947 1344 916Q1299 886 1274 826Q1248 766 1248 680Q1248 532 1323 460Q1398 389 1534 389Q1556 389 1578 391Q1600 393 1624 398L1598 414V249L1608 263L1526 236V165L1738 157V857L1721 837L1805 863V934L1629 942L1611 856L1625 861Q1581 904 1538 926Q1494 947 1446 947ZM1500 844Q1526 844 1555 830Q1584 815 1615 787L1598 829V470L1615 502Q1568 489 1530 489Q1459 489 1426 536Q1394 584 1394 667Q1394 721 1407 761Q1420 801 1444 822Q1467 844 1500 844ZM2106 389Q2224 389 2290 459Q2356 529 2356 658Q2356 748 2324 812Q2292 877 2232 912Q2172 947 2088 947Q1970 947 1906 877Q1841 807 1841 678Q1841 588 1872 524Q1904 459 1963 424Q2022 389 2106 389ZM2099 489Q2042 489 2014 534Q1986 578 1986 671Q1986 764 2013 806Q2040 847 2095 847Q2135 847 2160 827Q2185 807 2198 766Q2211 725 2211 665Q2211 574 2183 532Q2155 489 2099 489Z"/></svg>';

// Line icons for the home page's cards (24×24, stroked in the card's colour).
const ICONS = {
  dice: '<rect x="3" y="3" width="18" height="18" rx="4"/><circle cx="8.5" cy="8.5" r="1.2"/><circle cx="15.5" cy="15.5" r="1.2"/><circle cx="12" cy="12" r="1.2"/>',
  bulb: '<path d="M9 18h6M10 21h4M12 3a6 6 0 0 0-3.5 10.9c.6.5 1 1.2 1 2.1h5c0-.9.4-1.6 1-2.1A6 6 0 0 0 12 3z"/>',
  door: '<path d="M14 3h5v18h-5M10 8l4 4-4 4M14 12H3"/>',
  table: '<ellipse cx="12" cy="12" rx="9" ry="6"/><circle cx="12" cy="3.5" r="1.5"/><circle cx="12" cy="20.5" r="1.5"/><circle cx="1.8" cy="12" r="1.3"/><circle cx="22.2" cy="12" r="1.3"/>',
  people: '<circle cx="9" cy="8" r="3.5"/><path d="M2.5 20c.5-3.6 3.2-6 6.5-6s6 2.4 6.5 6"/><circle cx="17" cy="9" r="2.6"/><path d="M16.5 14.2c2.8.2 4.6 2.3 5 5.3"/>',
};
const icon = (name) => `<svg class="card-ico" viewBox="0 0 24 24" aria-hidden="true" focusable="false">${ICONS[name]}</svg>`; // how often the list of open rooms is asked for again

// The home page's text boxes, kept as typed when the page is drawn again.
const TYPED = ['name', 'join-code'];

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

// A room code as friends pass it on: "abcd", "AB CD", "ab-cd", or the whole invitation
// link pasted into the box. A link is followed as it is (its path on this site, so the
// room's invite key in it still opens a locked room); otherwise the letters, or null
// when what was typed cannot be a code.
function codeFromTyped(text) {
  const link = /\/r\/([A-Za-z]{4})\/?(\?[^#\s]*)?(?:#\S*)?$/.exec(text.trim());
  if (link) return {code: link[1].toUpperCase(), path: `/r/${link[1].toUpperCase()}${link[2] || ''}`};
  const letters = text.replace(/[\s\-\u2010-\u2015.·_]/g, '').toUpperCase();
  return /^[A-Z]{4}$/.test(letters) ? {code: letters, path: null} : null;
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
  const host = room.seats[room.host ?? 0]?.name || '';
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
  let seatsFromPreset = false; // the seats were set by a preset (PRESET_SEATS), not by hand

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
      // Drawn again (another language): what the player has typed so far stays.
      const typed = TYPED.map((id) => [id, main.querySelector(`#${id}`)?.value]);
      main.innerHTML = `<div class="home">
      <section class="hero" aria-labelledby="home-title">
        <div class="hero-text">
          <h1 id="home-title"><span class="wordmark">${WORDMARK}<span class="sr-only">dudo</span></span>
            <span class="tagline">${escapeHtml(t('home.title'))}</span></h1>
          <p class="pitch">${escapeHtml(t('home.pitch'))}</p>
          <div class="hero-name">
            <label for="name" class="big-label">${escapeHtml(t('home.name'))}</label>
            <input id="name" autocomplete="nickname" maxlength="${MOST_NAME}" dir="auto" value="${escapeHtml(memory.name)}" placeholder="${escapeHtml(t('home.name_placeholder'))}">
          </div>
        </div>
        <div class="hero-art" aria-hidden="true"><span class="hero-cup"></span>
          <span class="hero-dice">${[5, 1, 5, 3, 6].map((f) => die(f, {size: 44})).join('')}</span></div>
      </section>
      <div class="home-actions">
        <section class="card action featured" aria-labelledby="quick-title">
          <h2 id="quick-title">${icon('dice')}${escapeHtml(t('home.quick_title'))}</h2>
          <p class="help">${escapeHtml(t('home.quick_help'))}</p>
          <div class="quick-rules">
            <label for="preset">${escapeHtml(t('home.quick_rules'))}</label>
            <select id="preset">${presetOptions}</select>
            <label for="quick-dice">${escapeHtml(t('opt.starting_dice'))}</label>
            <select id="quick-dice">${diceOptions}</select>
          </div>
          <button id="quick" class="primary big">${escapeHtml(t('home.quick'))}</button>
        </section>
        <section class="card action" aria-labelledby="practice-title">
          <h2 id="practice-title">${icon('bulb')}${escapeHtml(t('home.practice_title'))}</h2>
          <p class="help">${escapeHtml(t('home.practice_help'))}</p>
          <button id="practice" class="secondary big">${escapeHtml(t('home.practice'))}</button>
        </section>
        <section class="card action" aria-labelledby="join-title">
          <h2 id="join-title">${icon('door')}${escapeHtml(t('home.join_title'))}</h2>
          <p class="help">${escapeHtml(t('home.join_help'))}</p>
          <form id="join-form" class="row">
            <label for="join-code" class="sr-only">${escapeHtml(t('home.code'))}</label>
            <input id="join-code" class="code-input" maxlength="200" autocapitalize="characters" autocomplete="off" spellcheck="false" placeholder="ABCD" required>
            <button id="join" class="primary" type="submit">${escapeHtml(t('home.join'))}</button>
          </form>
        </section>
      </div>
      <div class="home-more">
        <section class="card create" aria-labelledby="create-title">
          <h2 id="create-title">${icon('table')}${escapeHtml(t('home.create_title'))}</h2>
          <p class="help">${escapeHtml(t('home.create_help'))}</p>
          <form id="create-form">
          <p class="help"><span id="create-preset">${escapeHtml(t('create.preset_chosen', {rules: presetTitle(data, 'perudo')}))}</span>
            <a id="preset-rules" href="/rules" target="_blank">${escapeHtml(t('create.read_rules'))}</a></p>
          <div class="create-table"><div class="create-col"><div class="option inline"><label for="seats">${escapeHtml(t('create.seats'))}</label>
            <select id="seats">${[2, 3, 4, 5, 6].map((n) => `<option ${n === DEFAULT_SEATS ? 'selected' : ''}>${n}</option>`).join('')}</select></div>
          <ol id="seat-list" class="seat-list">${seatRows(DEFAULT_SEATS)}</ol></div>
          <div class="create-col"><div class="option inline"><label for="timer">${escapeHtml(t('create.timer'))}</label>
            <select id="timer">${timerOptions(DEFAULT_TIMER)}</select>
            <p class="help" id="timer-help">${escapeHtml(t('create.timer_help'))}</p></div>
          <div class="option"><label class="check"><input type="checkbox" id="public"> ${escapeHtml(t('create.public'))}</label></div>
          <div class="option"><label class="check"><input type="checkbox" id="show-lost" checked> ${escapeHtml(t('create.show_lost'))}</label></div></div></div>
          <details id="house-rules"><summary>${escapeHtml(t('create.house_rules'))}</summary><div id="options" class="rule-groups"></div></details>
          <button id="create" class="primary big" type="submit">${escapeHtml(t('home.create'))}</button>
        </form>
        </section>
        <div class="home-side">
          <section class="card" aria-labelledby="rooms-title">
            <h2 id="rooms-title">${icon('people')}${escapeHtml(t('home.rooms_title'))}</h2>
            <div id="rooms-list"></div>
          </section>
          <p class="my-games-link"><a href="/my-games" id="my-games">${escapeHtml(t('home.my_games'))}</a></p>
        </div>
      </div></div>`;
      for (const [id, value] of typed) {
        const input = main.querySelector(`#${id}`);
        if (input && value != null) input.value = value;
      }
      // A preset made for a number of players (Common Hand: for two) sets the seats; the
      // host may change them, and another preset then goes back to the form's 4 unless
      // the host changed them by hand.
      const setSeats = (count) => {
        const seats = main.querySelector('#seats');
        if (seats.value === String(count)) return;
        seats.value = String(count);
        main.querySelector('#seat-list').innerHTML = seatRows(count);
        defaultTimer();
      };
      const presetSeats = () => {
        const wanted = PRESET_SEATS[main.querySelector('#preset').value];
        if (wanted) { setSeats(wanted); seatsFromPreset = true; }
        else if (seatsFromPreset) { setSeats(DEFAULT_SEATS); seatsFromPreset = false; }
      };
      const fillOptions = () => {
        const preset = main.querySelector('#preset').value;
        main.querySelector('#options').innerHTML = optionControls(data, data.presets[preset].rules);
        main.querySelector('#preset-rules').href = `/rules?preset=${preset}&lang=${lang}`;
        // One Rules picker on the page (beside the name): quick game, practice and a room.
        main.querySelector('#create-preset').textContent = t('create.preset_chosen', {rules: presetTitle(data, preset)});
      };
      const rulesNow = () => chosenRules(data, main.querySelector('#options'), main.querySelector('#preset').value);
      // A turn timer by default when someone else may sit down (an open seat); none when
      // the table is you and bots, and the help under it says why. The player's own choice
      // is kept once made.
      const defaultTimer = () => {
        if (timerTouched) return;
        const open = [...main.querySelectorAll('[data-seat]')].some((select) => !select.value);
        main.querySelector('#timer').value = String(open ? DEFAULT_TIMER : 0);
        main.querySelector('#timer-help').textContent = t(open ? 'create.timer_help' : 'create.timer_bots');
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
      main.querySelector('#preset').addEventListener('change', () => { fillOptions(); presetSeats(); });
      main.querySelector('#timer').addEventListener('change', () => {
        timerTouched = true;
        main.querySelector('#timer-help').textContent = t('create.timer_help');
      });
      main.querySelector('#seats').addEventListener('change', (event) => {
        seatsFromPreset = false;
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
        // The page's language names the bots of a table this player starts (a found one keeps its own).
        const body = preset === 'perudo' && Object.keys(rules).length === 1 ? {name, lang} : {name, rules, lang};
        const answer = await api('/api/quick', body);
        if (answer.ok) goTo(answer.data); else toast(errorText(answer.data));
      });
      main.querySelector('#practice').addEventListener('click', async () => {
        // A beginner is not stopped for a name: the one typed, the last one, or "Player".
        const typed = cutName(main.querySelector('#name').value);
        if (typed) memory.name = typed;
        const name = typed || memory.name || t('profile.default_name');
        const preset = main.querySelector('#preset').value || 'perudo';
        const answer = await api('/api/rooms', {
          name, rules: {preset, starting_dice: 3}, seats: 3, bots: [null, 'easy', 'easy'], timer: 0, lang});
        if (!answer.ok) { toast(errorText(answer.data)); return; }
        memory.markPractice(answer.data.code);
        goTo(answer.data);
      });
      main.querySelector('#join-form').addEventListener('submit', async (event) => {
        event.preventDefault();
        const name = nameOrComplain(main);
        if (!name) return;
        const input = main.querySelector('#join-code');
        const typed = codeFromTyped(input.value);
        if (!typed) { toast(t('home.code_shape')); input.focus(); return; }
        if (typed.path) { location.assign(typed.path); return; }
        const {code} = typed;
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
          show_lost_dice: main.querySelector('#show-lost').checked, lang});
        if (!answer.ok) { toast(errorText(answer.data)); return; }
        goTo(answer.data);
      });
    },
  };
  return view;
}
