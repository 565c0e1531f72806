// A finished game's page (/g/ID): every round with every cup shown, stepped through bid
// by bid; the analysis the server's bots layer made of every decision; the dice checked
// in this browser (verify.js); downloads. And /my-games, the games this device remembers.
// Like the table, it decides no rule: counts and outcomes come from the engine's replay
// (the analysis), the dice from the record.
//
// This module is the page's entry and its data (the record, the analysis, the check);
// the stage a step at a time is replaystage.js, the analysis as lists replayanalysis.js,
// the words replaywords.js, the fair-dice verdict replayfair.js.
import {lang, pickLanguage, presetShortTitle, setLanguage, t} from './i18n.js';
import {api, errorText, escapeHtml, listNames} from './page.js';
import {icon} from './icons.js';

// The replay's steps: to the start, a round back, a step back, and the same forward (here,
// not in icons.js: the home page loads that one).
const STEPS = {
  first: '<path d="M6 5v14M18 5l-7 7 7 7"/>',
  'prev-round': '<path d="M12 5l-7 7 7 7M19 5l-7 7 7 7"/>',
  prev: '<path d="M15 5l-7 7 7 7"/>',
  next: '<path d="M9 5l7 7-7 7"/>',
  'next-round': '<path d="M5 5l7 7-7 7M12 5l7 7-7 7"/>',
  last: '<path d="M18 5v14M6 5l7 7-7 7"/>',
};
import {forgetGame, myGames, rememberGame} from './mygames.js';
import {cryptoAvailable, verifyRecord} from './verify.js';
import {pct} from './replaywords.js';
import {Stage} from './replaystage.js';
import {renderLog, renderSummary, wireRounds} from './replayanalysis.js';
import {renderFair} from './replayfair.js';

const main = document.getElementById('main');

// A step button's word: shown beside its icon, left to screen readers where the buttons
// are a phone's bar of icons (replay.css).
const word = (text) => `<span class="word">${escapeHtml(text)}</span>`;

async function fetchRecord(id) {
  // The record is stored a moment after the game-over state goes out: a quick click on
  // the link may arrive first, so a 404 is asked again a few times, but only for a game
  // this browser saw end (an unknown id is told at once).
  const seen = myGames().some((game) => game.id === id);
  let answer;
  for (let attempt = 0; attempt < (seen ? 8 : 1); attempt += 1) {
    answer = await api(`/api/games/${id}`);
    if (answer.ok || answer.status !== 404) return answer;
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
  return answer;
}

class GamePage {
  constructor(id) {
    this.id = id;
    this.record = null;
    this.analysis = null;
    this.analysisError = '';
    this.verification = null;
    this.positions = []; // [round index, action index (-1: dealt)]
    this.at = 0;
    this.main = main;
    this.stage = new Stage(this);
    this.openRounds = new Set(); // the log's rounds shown open (replayanalysis.js)
    this.autoRound = null; // the one of them opened because the replay stands in it
  }

  name(seat) {
    const names = this.record.names || [];
    return names[seat] || t('rp.player', {n: seat + 1});
  }

  isBot(seat) {
    return (this.record.bots || []).includes(seat);
  }

  get points() {
    return this.record.rules?.format === 'points';
  }

  async load() {
    const answer = await fetchRecord(this.id);
    if (!answer.ok) {
      // In the page's language: the server's code (no_game, bad_request...), never its
      // lower-case words.
      const code = answer.data.error || answer.data.code;
      const why = code === 'no_game' ? 'replay.no_game' : code === 'bad_request' ? 'replay.bad_id'
        : code === 'network' ? 'error.network' : 'replay.unavailable';
      document.title = `dudo · ${t('replay.missing_title')}`;
      main.innerHTML = `<section class="card replay-missing"><h1>${escapeHtml(t('replay.missing_title'))}</h1>
        <p>${escapeHtml(t(why))}</p>
        <p><a href="/my-games">${escapeHtml(t('replay.my_games'))}</a> · <a href="/">${escapeHtml(t('replay.play'))}</a></p></section>`;
      return;
    }
    this.record = answer.data;
    const mine = myGames().find((game) => game.id === this.id);
    this.mySeat = mine && Number.isInteger(mine.seat) ? mine.seat : null;
    rememberGame({id: this.id, room: this.record.room || null, names: this.record.names || null,
      winners: null, seat: null});
    this.buildPositions();
    this.renderShell();
    this.stage.wire();
    wireRounds(this);
    this.stage.goTo(this.stage.positionFromHash() ?? 0, false);
    // The analysis (server, bots layer) and the dice check (this browser) run side by side.
    await Promise.all([this.loadAnalysis(), this.verify()]);
  }

  buildPositions() {
    this.positions = [];
    this.record.rounds.forEach((round, r) => {
      this.positions.push([r, -1]);
      (round.actions || []).forEach((_, k) => { this.positions.push([r, k]); });
    });
  }

  async loadAnalysis() {
    const answer = await api(`/api/games/${this.id}/analysis`);
    if (answer.ok) {
      this.analysis = answer.data;
      const winners = (this.analysis.winners || []).map((seat) => this.name(seat));
      rememberGame({id: this.id, winners});
      main.querySelector('#winners').textContent = winners.length
        ? t('rp.winner', {n: winners.length, names: listNames(winners)}) : t('rp.not_finished');
      main.querySelector('#rules-name').textContent = this.rulesTitle();
      if (this.analysis.rules_overrides) {
        const href = `/rules?${new URLSearchParams(Object.entries(this.analysis.rules_overrides)
          .map(([key, value]) => [key, String(value)]))}`;
        for (const link of document.querySelectorAll('#rules-link, #rules-sheet')) link.href = href;
      }
    } else {
      this.analysisError = errorText(answer.data) || t('rp.no_analysis');
    }
    main.querySelector('#analysis-state').dataset.state = answer.ok ? 'ready' : 'failed';
    renderSummary(this);
    renderLog(this);
    this.stage.render();
  }

  async verify() {
    const box = main.querySelector('#fair');
    if (!cryptoAvailable()) {
      box.dataset.state = 'unavailable';
      main.querySelector('#fair-verdict').textContent = t('rp.no_crypto');
      return;
    }
    this.verification = await verifyRecord(this.record);
    renderFair(this);
    this.stage.render();
    renderLog(this);
  }

  // -- the page's frame ---------------------------------------------------------------

  renderShell() {
    const record = this.record;
    const names = (record.names || []).map((_, seat) => this.name(seat));
    const table = record.room ? t('rp.table', {code: record.room}) : t('rp.a_game');
    document.title = `dudo · ${table} · ${names.join(', ')}`;
    const rulesHref = `/rules?${new URLSearchParams(Object.entries(record.rules || {})
      .map(([key, value]) => [key, String(value)]))}`;
    document.getElementById('rules-link').href = rulesHref;
    const file = `dudo-game-${this.id}.json`;
    main.innerHTML = `<article class="replay" data-game="${escapeHtml(this.id)}">
      <header class="replay-head">
        <h1>${escapeHtml(table)}: ${escapeHtml(names.join(', '))}</h1>
        <p class="lead"><span id="rules-name">${escapeHtml(this.rulesTitle())}</span> · ${escapeHtml(t('rp.rounds', {n: record.rounds.length}))} ·
          <span id="winners">…</span></p>
        <p class="fair-summary" id="fair-summary"><a href="#fair">${escapeHtml(t('rp.fair_checking'))}</a></p>
      </header>

      <section class="card stage-card" aria-labelledby="replay-title">
        <h2 id="replay-title">${escapeHtml(t('rp.replay'))}</h2>
        <div id="stage" class="stage" aria-live="off"></div>
        <p class="help keys">${escapeHtml(t('rp.keys'))}</p>
        <div class="controls" role="group" aria-label="${escapeHtml(t('rp.step_through'))}">
          <label for="slider" class="sr-only">${escapeHtml(t('rp.step'))}</label>
          <input type="range" id="slider" min="0" max="${this.positions.length - 1}" value="0" step="1">
          <div class="control-buttons">
            <button type="button" class="small secondary" id="first">${icon('first', STEPS)} ${word(t('rp.first'))}</button>
            <button type="button" class="small secondary" id="prev-round">${icon('prev-round', STEPS)} ${word(t('rp.round_button'))}</button>
            <button type="button" class="small primary" id="prev">${icon('prev', STEPS)} ${word(t('rp.back'))}</button>
            <button type="button" class="small primary" id="next">${word(t('rp.next'))} ${icon('next', STEPS)}</button>
            <button type="button" class="small secondary" id="next-round">${word(t('rp.round_button'))} ${icon('next-round', STEPS)}</button>
            <button type="button" class="small secondary" id="last">${word(t('rp.last'))} ${icon('last', STEPS)}</button>
          </div>
        </div>
      </section>

      <div class="replay-tools">
        <p class="downloads">
          <a class="button-link small" href="/api/games/${this.id}" download="${file}">${escapeHtml(t('rp.download'))}</a>
          <a class="button-link small" href="/api/games/${this.id}/scenario" download="dudo-${this.id}.scenario.json">${escapeHtml(t('rp.download_scenario'))}</a>
          <button type="button" class="small secondary" id="print">${escapeHtml(t('rp.print'))}</button>
        </p>
        <p class="help">${escapeHtml(t('rp.share'))}</p>
      </div>

      <section class="card replay-summary" aria-labelledby="summary-title" id="analysis-state" data-state="loading">
        <h2 id="summary-title">${escapeHtml(t('rp.how_each'))}</h2>
        <div id="summary"><p class="help">${escapeHtml(t('rp.analysing'))}</p></div>
      </section>

      <section class="card replay-log" aria-labelledby="log-title">
        <h2 id="log-title">${escapeHtml(t('rp.every_move'))}</h2>
        <details class="more"><summary>${escapeHtml(t('rp.log_help_title'))}</summary>
          <p class="help">${escapeHtml(t('rp.log_help', {high: pct(0.8), low: pct(0.2), half: pct(0.5)}))}</p></details>
        <div id="log" class="log-grid"></div>
      </section>

      <section class="card replay-fair" id="fair" data-state="checking" aria-labelledby="fair-title">
        <h2 id="fair-title">${escapeHtml(t('rp.fair_title'))}</h2>
        <p id="fair-verdict" class="verdict">${escapeHtml(t('rp.fair_checking_rounds'))}</p>
        <details class="more fair-more"><summary>${escapeHtml(t('rp.fair_each'))}</summary>
          <p class="help">${escapeHtml(t('rp.fair_help'))}</p>
          <ol id="fair-rounds" class="fair-rounds"></ol></details>
      </section>

      <section class="card replay-rules" aria-labelledby="rules-title">
        <h2 id="rules-title">${escapeHtml(t('rp.rules_title'))}</h2>
        <details class="more rules-more"><summary>${escapeHtml(t('rp.rules_each', {n: Object.keys(record.rules || {}).length}))}</summary>
          ${this.rulesList()}
          <p class="solo-link"><a id="rules-sheet" href="${escapeHtml(rulesHref)}">${escapeHtml(t('rp.rules_sheet'))}</a></p></details>
      </section>
    </article>`;
  }

  rulesTitle() {
    const rules = this.record.rules || {};
    const overrides = this.analysis?.rules_overrides;
    const title = presetShortTitle(overrides?.preset);
    if (title) {
      // A dice count is named, not called a house rule: "Perudo · 3 dice each".
      const named = 'starting_dice' in overrides
        ? `${title} · ${t('rp.dice_each', {n: overrides.starting_dice})}` : title;
      const others = Object.keys(overrides).filter((key) => key !== 'preset' && key !== 'starting_dice');
      return others.length ? t('rp.house_rules', {title: named}) : named;
    }
    return `${t('rp.dice_each', {n: rules.starting_dice ?? 5})}${rules.wild_ones ? t('rp.ones_wild') : ''}`;
  }

  rulesList() {
    const rules = this.record.rules || {};
    const value = (key, raw) => {
      if (typeof raw === 'boolean') return raw ? t('rp.yes') : t('rp.no');
      const choice = `choice.${key}.${raw}`;
      const words = t(choice);
      return words === choice ? String(raw) : words;
    };
    const rows = Object.entries(rules).map(([key, raw]) => {
      const label = t(`opt.${key}`);
      return `<div class="rule"><dt>${escapeHtml(label === `opt.${key}` ? key : label)}</dt><dd>${escapeHtml(value(key, raw))}</dd></div>`;
    }).join('');
    return `<dl class="rules-list">${rows}</dl>`;
  }

  // What the analysis has for a round, and for one decision of it (null before it came).
  roundInfo(round) {
    return this.analysis?.rounds?.[round] || null;
  }

  decision(round, step) {
    return this.roundInfo(round)?.steps?.[step] || null;
  }
}

// -- /my-games ------------------------------------------------------------------------------

function renderMyGames() {
  document.title = `dudo · ${t('rp.title_mine')}`;
  const games = myGames();
  const when = (ms) => {
    try { return new Date(ms).toLocaleString(lang); } catch { return ''; }
  };
  const items = games.map((game) => {
    const names = Array.isArray(game.names) ? game.names.join(', ') : '';
    const winners = Array.isArray(game.winners) && game.winners.length ? t('rp.won_by', {names: listNames(game.winners)}) : '';
    return `<li data-game="${escapeHtml(game.id)}">
      <a href="/g/${escapeHtml(game.id)}">${escapeHtml(game.room ? t('rp.table', {code: game.room}) : t('rp.a_game'))}${names ? `: ${escapeHtml(names)}` : ''}</a>
      <span class="help">${escapeHtml(when(game.when))}${escapeHtml(winners)}</span>
      <button type="button" class="small secondary" data-forget="${escapeHtml(game.id)}">${escapeHtml(t('rp.forget'))}<span class="sr-only">${escapeHtml(t('rp.this_game'))}</span></button></li>`;
  }).join('');
  main.innerHTML = `<section class="card my-games-page" aria-labelledby="my-games-title">
    <h1 id="my-games-title">${escapeHtml(t('rp.my_games_title'))}</h1>
    <p class="lead">${escapeHtml(t('rp.my_games_lead'))}</p>
    ${games.length ? `<ol class="my-games">${items}</ol>` : `<p>${escapeHtml(t('rp.no_games'))}</p>`}
    <p class="solo-link"><a href="/">${escapeHtml(t('rp.play_a_game'))}</a></p></section>`;
  for (const button of main.querySelectorAll('[data-forget]')) {
    button.addEventListener('click', () => {
      forgetGame(button.dataset.forget);
      renderMyGames();
      main.querySelector('h1').focus?.();
    });
  }
}

async function start() {
  await setLanguage(pickLanguage());
  const match = location.pathname.match(/^\/g\/([A-Za-z0-9]{1,40})\/?$/);
  if (match) {
    const page = new GamePage(match[1]);
    window.dudo = {page};
    await page.load();
  } else {
    renderMyGames();
  }
}

start();
