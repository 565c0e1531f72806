// The home page: a name, then create a room, join one by code, a quick game or practice.
import {api, escapeHtml, memory, toast} from './page.js';
import {die} from './dice.js';
import {lang, t} from './i18n.js';

let catalogue = null; // presets and options, from the server (the engine's own lists)

async function loadCatalogue() {
  if (!catalogue) {
    const answer = await api('/api/presets');
    catalogue = answer.ok ? answer.data : {presets: {perudo: {title: 'Perudo', rules: {}}}, options: {}};
  }
  return catalogue;
}

function nameOrComplain(main) {
  const input = main.querySelector('#name');
  const name = input.value.trim();
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

function optionControl(name, spec, value) {
  const id = `opt-${name}`;
  const help = `<p class="help" id="${id}-help">${escapeHtml(t(`opt.${name}.help`))}</p>`;
  const label = escapeHtml(t(`opt.${name}`));
  if (spec.type === 'bool') {
    return `<div class="option"><label class="check"><input type="checkbox" id="${id}" data-opt="${name}" aria-describedby="${id}-help" ${value ? 'checked' : ''}> ${label}</label>${help}</div>`;
  }
  if (spec.type === 'choice') {
    const options = spec.choices.map((choice) => `<option value="${choice}" ${choice === value ? 'selected' : ''}>${escapeHtml(t(`choice.${name}.${choice}`))}</option>`).join('');
    return `<div class="option"><label for="${id}">${label}</label><select id="${id}" data-opt="${name}" aria-describedby="${id}-help">${options}</select>${help}</div>`;
  }
  return `<div class="option"><label for="${id}">${label}</label><input type="number" id="${id}" data-opt="${name}" min="${spec.min}" max="${spec.max}" value="${value}" aria-describedby="${id}-help" inputmode="numeric">${help}</div>`;
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

export function renderHome(main) {
  const view = {
    async render() {
      const data = await loadCatalogue();
      const presetOptions = Object.entries(data.presets).map(([key, preset]) =>
        `<option value="${key}">${escapeHtml(t(`preset.${key}`) === `preset.${key}` ? preset.title : t(`preset.${key}`))}</option>`).join('');
      main.innerHTML = `<div class="home">
      <section class="hero">
        <div class="hero-dice" aria-hidden="true">${[5, 1, 5, 3, 6].map((f) => die(f, {size: 40, counts: f === 5 || f === 1})).join('')}</div>
        <h1>${escapeHtml(t('home.title'))}</h1>
        <p class="lead">${escapeHtml(t('home.lead'))}</p>
      </section>
      <section class="card">
        <label for="name" class="big-label">${escapeHtml(t('home.name'))}</label>
        <input id="name" autocomplete="nickname" maxlength="24" value="${escapeHtml(memory.name)}" placeholder="${escapeHtml(t('home.name_placeholder'))}">
        <div class="buttons">
          <button id="quick" class="primary">${escapeHtml(t('home.quick'))}</button>
          <button id="practice" class="secondary">${escapeHtml(t('home.practice'))}</button>
        </div>
        <p class="help">${escapeHtml(t('home.practice_help'))}</p>
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
          <div class="option"><label for="preset">${escapeHtml(t('create.preset'))}</label>
            <select id="preset">${presetOptions}</select>
            <p class="help"><a id="preset-rules" href="/rules" target="_blank">${escapeHtml(t('create.read_rules'))}</a></p></div>
          <details id="house-rules"><summary>${escapeHtml(t('create.house_rules'))}</summary><div id="options"></div></details>
          <div class="option"><label for="seats">${escapeHtml(t('create.seats'))}</label>
            <select id="seats">${[2, 3, 4, 5, 6].map((n) => `<option ${n === 4 ? 'selected' : ''}>${n}</option>`).join('')}</select></div>
          <ol id="seat-list" class="seat-list">${seatRows(4)}</ol>
          <div class="option"><label for="timer">${escapeHtml(t('create.timer'))}</label>
            <select id="timer">${[0, 15, 30, 60, 120].map((s) => `<option value="${s}">${escapeHtml(s ? t('create.seconds', {n: s}) : t('create.no_timer'))}</option>`).join('')}</select>
            <p class="help">${escapeHtml(t('create.timer_help'))}</p></div>
          <div class="option"><label class="check"><input type="checkbox" id="public"> ${escapeHtml(t('create.public'))}</label></div>
          <button id="create" class="primary" type="submit">${escapeHtml(t('home.create'))}</button>
        </form>
      </section></div>`;
      const fillOptions = () => {
        const preset = main.querySelector('#preset').value;
        const rules = data.presets[preset].rules;
        main.querySelector('#options').innerHTML = Object.entries(data.options)
          .map(([name, spec]) => optionControl(name, spec, rules[name])).join('');
        main.querySelector('#preset-rules').href = `/rules?preset=${preset}&lang=${lang}`;
      };
      const chosenRules = () => {
        const preset = main.querySelector('#preset').value;
        const base = data.presets[preset].rules;
        const rules = {preset};
        for (const input of main.querySelectorAll('[data-opt]')) {
          const option = input.dataset.opt;
          let value = input.type === 'checkbox' ? input.checked : input.value;
          if (input.type === 'number') value = Number(value);
          if (value !== base[option]) rules[option] = value;
        }
        return rules;
      };
      main.querySelector('#options').addEventListener('change', () => {
        main.querySelector('#preset-rules').href = `/rules?${new URLSearchParams({...chosenRules(), lang})}`;
      });
      fillOptions();
      main.querySelector('#preset').addEventListener('change', fillOptions);
      main.querySelector('#seats').addEventListener('change', (event) => {
        main.querySelector('#seat-list').innerHTML = seatRows(Number(event.target.value));
      });
      main.querySelector('#quick').addEventListener('click', async () => {
        const name = nameOrComplain(main);
        if (!name) return;
        const answer = await api('/api/quick', {name});
        if (answer.ok) goTo(answer.data); else toast(answer.data.message || t('error.generic'));
      });
      main.querySelector('#practice').addEventListener('click', async () => {
        const name = nameOrComplain(main);
        if (!name) return;
        const preset = main.querySelector('#preset').value || 'perudo';
        const answer = await api('/api/rooms', {
          name, rules: {preset, starting_dice: 3}, seats: 3, bots: [null, 'easy', 'easy'], timer: 0});
        if (!answer.ok) { toast(answer.data.message || t('error.generic')); return; }
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
        else toast(answer.data.message || t('error.generic'));
      });
      main.querySelector('#create-form').addEventListener('submit', async (event) => {
        event.preventDefault();
        const name = nameOrComplain(main);
        if (!name) return;
        const rules = chosenRules();
        const seats = Number(main.querySelector('#seats').value);
        const bots = [null];
        for (const select of main.querySelectorAll('[data-seat]')) bots.push(select.value || null);
        const answer = await api('/api/rooms', {
          name, rules, seats, bots, timer: Number(main.querySelector('#timer').value),
          public: main.querySelector('#public').checked});
        if (answer.ok) goTo(answer.data); else toast(answer.data.message || t('error.generic'));
      });
    },
  };
  return view;
}
