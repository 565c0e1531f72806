// A finished game's page (/g/ID): every round with every cup shown, stepped through bid
// by bid; the analysis the server's bots layer made of every decision; the dice checked
// in this browser (verify.js); downloads. And /my-games, the games this device remembers.
// Like the table, it decides no rule: counts and outcomes come from the engine's replay
// (the analysis), the dice from the record.
import {die} from './dice.js';
import {bidWords, pickLanguage, setLanguage, t} from './i18n.js';
import {api, errorText, escapeHtml, listNames} from './page.js';
import {forgetGame, myGames, rememberGame} from './mygames.js';
import {cryptoAvailable, verifyRecord} from './verify.js';
import {anyBidWords, handUses, handWords, isHand} from './hands.js';

const main = document.getElementById('main');
const live = document.getElementById('live');

const pct = (x) => {
  if (x == null) return '–';
  if (x > 0 && x < 0.005) return '<1%';
  if (x < 1 && x > 0.995) return '>99%';
  return `${Math.round(x * 100)}%`;
};
const signed = (x) => `${x < 0 ? '−' : '+'}${Math.abs(x).toFixed(2)}`;

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

// A move the seat's player did not make: the record says who did (a bot either way).
function byWords(by) {
  return t(by === 'timer' ? 'rp.by_timer' : 'rp.by_stand_in');
}

// A sentence with one part in bold: MARK in the words is where it goes (both escaped).
const MARK = '\u0001';
function strong(words, bold) {
  return escapeHtml(words).replace(MARK, `<strong>${escapeHtml(bold)}</strong>`);
}

function say(text) {
  live.textContent = text;
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
    this.wire();
    this.goTo(this.positionFromHash() ?? 0, false);
    // The analysis (server, bots layer) and the dice check (this browser) run side by side.
    await Promise.all([this.loadAnalysis(), this.verify()]);
  }

  buildPositions() {
    this.positions = [];
    this.record.rounds.forEach((round, r) => {
      this.positions.push([r, -1]);
      (round.actions || []).forEach((_, k) => this.positions.push([r, k]));
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
    this.renderSummary();
    this.renderLog();
    this.renderStage();
  }

  async verify() {
    const box = main.querySelector('#fair');
    if (!cryptoAvailable()) {
      box.dataset.state = 'unavailable';
      main.querySelector('#fair-verdict').textContent = t('rp.no_crypto');
      return;
    }
    this.verification = await verifyRecord(this.record);
    this.renderFair();
    this.renderStage();
    this.renderLog();
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
        <p class="downloads">
          <a class="button-link small" href="/api/games/${this.id}" download="${file}">${escapeHtml(t('rp.download'))}</a>
          <a class="button-link small" href="/api/games/${this.id}/scenario" download="dudo-${this.id}.scenario.json">${escapeHtml(t('rp.download_scenario'))}</a>
          <button type="button" class="small secondary" id="print">${escapeHtml(t('rp.print'))}</button>
        </p>
        <p class="help">${escapeHtml(t('rp.share'))}</p>
      </header>

      <section class="card stage-card" aria-labelledby="replay-title">
        <h2 id="replay-title">${escapeHtml(t('rp.replay'))}</h2>
        <div id="stage" class="stage" aria-live="off"></div>
        <div class="controls" role="group" aria-label="${escapeHtml(t('rp.step_through'))}">
          <label for="slider" class="sr-only">${escapeHtml(t('rp.step'))}</label>
          <input type="range" id="slider" min="0" max="${this.positions.length - 1}" value="0" step="1">
          <div class="control-buttons">
            <button type="button" class="small secondary" id="first"><span aria-hidden="true">⏮</span> ${escapeHtml(t('rp.first'))}</button>
            <button type="button" class="small secondary" id="prev-round"><span aria-hidden="true">«</span> ${escapeHtml(t('rp.round_button'))}</button>
            <button type="button" class="small primary" id="prev"><span aria-hidden="true">◀</span> ${escapeHtml(t('rp.back'))}</button>
            <button type="button" class="small primary" id="next">${escapeHtml(t('rp.next'))} <span aria-hidden="true">▶</span></button>
            <button type="button" class="small secondary" id="next-round">${escapeHtml(t('rp.round_button'))} <span aria-hidden="true">»</span></button>
            <button type="button" class="small secondary" id="last">${escapeHtml(t('rp.last'))} <span aria-hidden="true">⏭</span></button>
          </div>
          <p class="help keys">${escapeHtml(t('rp.keys'))}</p>
        </div>
      </section>

      <section class="card" aria-labelledby="summary-title" id="analysis-state" data-state="loading">
        <h2 id="summary-title">${escapeHtml(t('rp.how_each'))}</h2>
        <div id="summary"><p class="help">${escapeHtml(t('rp.analysing'))}</p></div>
      </section>

      <section class="card" aria-labelledby="log-title">
        <h2 id="log-title">${escapeHtml(t('rp.every_move'))}</h2>
        <p class="help">${escapeHtml(t('rp.log_help', {high: pct(0.8), low: pct(0.2), half: pct(0.5)}))}</p>
        <div id="log"></div>
      </section>

      <section class="card" id="fair" data-state="checking" aria-labelledby="fair-title">
        <h2 id="fair-title">${escapeHtml(t('rp.fair_title'))}</h2>
        <p id="fair-verdict" class="verdict">${escapeHtml(t('rp.fair_checking_rounds'))}</p>
        <p class="help">${escapeHtml(t('rp.fair_help'))}</p>
        <ol id="fair-rounds" class="fair-rounds"></ol>
      </section>

      <section class="card" aria-labelledby="rules-title">
        <h2 id="rules-title">${escapeHtml(t('rp.rules_title'))}</h2>
        ${this.rulesList()}
        <p><a id="rules-sheet" href="${escapeHtml(rulesHref)}">${escapeHtml(t('rp.rules_sheet'))}</a></p>
      </section>
    </article>`;
  }

  rulesTitle() {
    const rules = this.record.rules || {};
    const presets = ['perudo', 'dudo', 'tavern', 'ones-lock', 'no-wilds'];
    const overrides = this.analysis?.rules_overrides;
    const preset = overrides?.preset;
    if (preset && presets.includes(preset)) {
      const title = t(`preset.${preset}`).split(' (')[0];
      return Object.keys(overrides).length > 1 ? t('rp.house_rules', {title}) : title;
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

  // -- stepping ---------------------------------------------------------------------------

  wire() {
    const on = (id, handler) => main.querySelector(`#${id}`).addEventListener('click', handler);
    on('first', () => this.goTo(0));
    on('last', () => this.goTo(this.positions.length - 1));
    on('prev', () => this.goTo(this.at - 1));
    on('next', () => this.goTo(this.at + 1));
    on('prev-round', () => this.byRound(-1));
    on('next-round', () => this.byRound(1));
    on('print', () => window.print());
    const slider = main.querySelector('#slider');
    slider.addEventListener('input', () => this.goTo(Number(slider.value)));
    document.addEventListener('keydown', (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const onSlider = event.target === slider;
      const keys = {
        ArrowRight: () => this.goTo(this.at + 1), ArrowLeft: () => this.goTo(this.at - 1),
        Home: () => this.goTo(0), End: () => this.goTo(this.positions.length - 1),
        PageDown: () => this.byRound(1), PageUp: () => this.byRound(-1),
      };
      if (!(event.key in keys) || (onSlider && !event.key.startsWith('Page'))) return;
      if (event.target.matches?.('input:not([type=range]), select, textarea')) return;
      event.preventDefault();
      keys[event.key]();
    });
    window.addEventListener('hashchange', () => {
      const wanted = this.positionFromHash();
      if (wanted != null) {
        this.goTo(wanted);
        main.querySelector('#stage').scrollIntoView({block: 'nearest'});
      }
    });
  }

  byRound(direction) {
    const [round, step] = this.positions[this.at];
    let target = round + direction;
    if (direction < 0 && step > -1) target = round; // back to this round's deal first
    target = Math.max(0, Math.min(this.record.rounds.length - 1, target));
    this.goTo(this.positions.findIndex(([r, k]) => r === target && k === -1));
  }

  positionFromHash() {
    const match = location.hash.match(/^#r(\d+)s(\d+)$/);
    if (!match) return null;
    const found = this.positions.findIndex(([r, k]) => r === Number(match[1]) - 1 && k === Number(match[2]) - 1);
    return found < 0 ? null : found;
  }

  goTo(index, announce = true) {
    const at = Math.max(0, Math.min(this.positions.length - 1, index));
    this.at = at;
    const [round, step] = this.positions[at];
    const slider = main.querySelector('#slider');
    slider.value = String(at);
    const sentence = this.stepSentence(round, step);
    slider.setAttribute('aria-valuetext', t('rp.position', {round: round + 1, step: step + 1, steps: this.record.rounds[round].actions.length, sentence}));
    main.querySelector('#prev').disabled = at === 0;
    main.querySelector('#first').disabled = at === 0;
    main.querySelector('#next').disabled = at === this.positions.length - 1;
    main.querySelector('#last').disabled = at === this.positions.length - 1;
    // By round: nothing before the first deal, nothing after the last round's deal.
    main.querySelector('#prev-round').disabled = at === 0;
    main.querySelector('#next-round').disabled = round === this.record.rounds.length - 1;
    history.replaceState(null, '', `#r${round + 1}s${step + 1}`);
    this.renderStage();
    for (const item of main.querySelectorAll('.step.current')) {
      item.classList.remove('current');
      item.removeAttribute('aria-current');
    }
    const current = main.querySelector(`#log-r${round + 1}s${step + 1}`);
    if (current) {
      current.classList.add('current');
      current.setAttribute('aria-current', 'step');
    }
    if (announce) say(t('rp.round_said', {n: round + 1, sentence}));
  }

  // -- what happened at a step -----------------------------------------------------------

  roundInfo(round) {
    return this.analysis?.rounds?.[round] || null;
  }

  decision(round, step) {
    return this.roundInfo(round)?.steps?.[step] || null;
  }

  actionWords(action, kind) {
    if (!action) return t('rp.let_calza_go');
    if (action.bid) {
      return t(kind === 'open' ? 'rp.opens' : kind === 'raise' ? 'rp.raises' : 'rp.bids', {bid: anyBidWords(action.bid)});
    }
    return action.call === 'calza' ? t('rp.calls_calza') : t('rp.calls_liar');
  }

  hardWords(action) {
    if (!action) return t('rp.hard_let_go');
    if (action.bid) return t('rp.hard_bid', {bid: anyBidWords(action.bid)});
    return action.call === 'calza' ? t('rp.hard_calza') : t('rp.hard_liar');
  }

  outcomeWords(reveal, out = []) {
    if (!reveal) return '';
    if (isHand(reveal.bid)) {
      const loser = reveal.loser == null ? '' : ` ${this.name(reveal.loser)} loses a die${(out || []).includes(reveal.loser) ? ' and is out' : ''}.`;
      return `All the dice together ${reveal.outcome === 'holds' ? 'show' : 'do not show'} ${handWords(reveal.bid)}: ${reveal.outcome === 'holds' ? 'the bid holds' : 'the bid was a lie'}.${loser}`;
    }
    const [q, f] = reveal.bid;
    const verdict = reveal.call === 'calza'
      ? t(reveal.outcome === 'exact' ? 'rp.exactly_right' : 'rp.not_exact')
      : t(reveal.outcome === 'holds' ? 'rp.holds' : 'rp.lie');
    let who;
    if (reveal.loser == null) {
      who = t(reveal.change ? 'rp.wins_die' : 'rp.was_exact', {name: this.name(reveal.caller)});
    } else if (this.points) {
      who = t('rp.takes_points', {name: this.name(reveal.loser), n: reveal.change});
    } else {
      who = t((out || []).includes(reveal.loser) ? 'rp.loses_out' : 'rp.loses', {name: this.name(reveal.loser), n: reveal.change});
    }
    return `${t('rp.count_for', {n: reveal.count, bid: bidWords(q, f), verdict})} ${who}`;
  }

  stepSentence(round, step) {
    const played = this.record.rounds[round];
    if (step < 0) {
      const opener = played.actions[0]?.seat;
      const rolled = round === 0 && this.rolloffAttempts().length
        ? `${this.rolloffWords()} ` : '';
      return rolled + (opener != null ? t('rp.rolled_opens', {name: this.name(opener)}) : t('rp.rolled'));
    }
    const action = played.actions[step];
    const decision = this.decision(round, step);
    const words = this.actionWords(action, decision?.kind);
    let sentence = `${this.name(action.seat)} ${words}${/[.!?]$/.test(words) ? '' : '.'}`;
    if (action.by) sentence += ` (${byWords(action.by)})`;
    const info = this.roundInfo(round);
    if (action.call && info?.reveal && step === played.actions.length - 1) {
      sentence += ` ${this.outcomeWords(info.reveal, info.out)}`;
      if (round === this.record.rounds.length - 1 && this.analysis?.winners?.length) {
        sentence += ` ${t('rp.wins_game', {n: this.analysis.winners.length, names: listNames(this.analysis.winners.map((seat) => this.name(seat)))})}`;
      }
    }
    return sentence;
  }

  // The roll-off before round 1 (start.rolloff): [{seats, rolls, tied}] per attempt.
  rolloffAttempts() {
    const attempts = this.record.start?.rolloff;
    if (!Array.isArray(attempts)) return [];
    const counts = this.record.start.dice_counts || Array(this.record.players).fill(1);
    let rolling = counts.map((n, seat) => (n ? seat : null)).filter((seat) => seat != null);
    return attempts.map((rolls) => {
      const seats = rolling;
      const totals = rolls.map(([a, b]) => a + b);
      const best = Math.max(...totals);
      const tied = seats.filter((_, i) => totals[i] === best);
      rolling = tied;
      return {seats, rolls, tied, best};
    });
  }

  rolloffWords() {
    return this.rolloffAttempts().map((attempt, i) => {
      const rolls = attempt.seats.map((seat, j) => `${this.name(seat)} ${attempt.rolls[j][0]}+${attempt.rolls[j][1]}`).join(', ');
      const result = attempt.tied.length > 1
        ? `tied at ${attempt.best}: ${attempt.tied.map((seat) => this.name(seat)).join(' and ')} roll again`
        : `${this.name(attempt.tied[0])} rolled the highest and opens`;
      return `Roll-off ${i + 1}: ${rolls}; ${result}.`;
    }).join(' ');
  }

  rolloffHtml() {
    const attempts = this.rolloffAttempts();
    const checked = this.verification?.rolloff || [];
    return `<section class="replay-rolloff" id="replay-rolloff" aria-label="Roll-off for the first opener"><h4>Roll-off: who opens</h4><ol>${attempts.map((attempt, i) => `<li data-attempt="${i + 1}">
      <span class="label">Roll ${i + 1}${checked[i] ? (checked[i].ok ? ' <span class="badge ok">verified ✓</span>' : ' <span class="badge bad">NOT verified ✗</span>') : ''}</span>
      ${attempt.seats.map((seat, j) => `<span class="rolloff-roll${attempt.tied.includes(seat) ? ' top' : ''}">${escapeHtml(this.name(seat))} <span aria-hidden="true">${die(attempt.rolls[j][0], {size: 20})}${die(attempt.rolls[j][1], {size: 20})}</span><span class="sr-only">${attempt.rolls[j][0]} and ${attempt.rolls[j][1]}</span> = ${attempt.rolls[j][0] + attempt.rolls[j][1]}</span>`).join(' ')}</li>`).join('')}</ol></section>`;
  }

  // The standing bid after the step, how many dice count for it, and which do.
  standingAfter(round, step) {
    const played = this.record.rounds[round];
    if (step < 0) return null;
    const action = played.actions[step];
    const info = this.roundInfo(round);
    const decision = this.decision(round, step);
    if (action.bid) {
      const bidder = action.seat;
      return {bid: action.bid, bidder, count: decision?.after?.count ?? null,
        wild: decision?.after?.wild ?? null};
    }
    const reveal = info?.reveal;
    let last = null;
    for (let k = step; k >= 0; k -= 1) if (played.actions[k].bid) { last = played.actions[k]; break; }
    return last ? {bid: last.bid, bidder: last.seat, count: reveal ? reveal.count : null,
      wild: reveal ? reveal.wild : null, called: true} : null;
  }

  renderStage() {
    const stage = main.querySelector('#stage');
    if (!stage || !this.positions.length) return;
    const [round, step] = this.positions[this.at];
    const played = this.record.rounds[round];
    const info = this.roundInfo(round);
    const standing = this.standingAfter(round, step);
    const action = step >= 0 ? played.actions[step] : null;
    const decision = step >= 0 ? this.decision(round, step) : null;
    const reveal = info?.reveal;
    const revealedNow = action?.call && step === played.actions.length - 1;
    const counts = (d) => (standing && isHand(standing.bid) ? handUses(standing.bid, d)
      : standing && standing.wild != null && (d === standing.bid[1] || (standing.wild && d === 1 && standing.bid[1] !== 1)));
    const checked = this.verification?.rounds?.[round];
    const badges = [];
    if (info?.palifico) badges.push(`<span class="badge pal">${escapeHtml(t('rp.palifico'))}</span>`);
    if (info && this.record.rules?.wild_ones) {
      const wild = standing?.wild ?? info.wild;
      badges.push(`<span class="badge">${escapeHtml(t(wild ? 'rp.ones_wild_badge' : 'rp.ones_not_wild'))}</span>`);
    }
    if (checked) {
      badges.push(checked.ok ? `<span class="badge ok">${escapeHtml(t('rp.verified'))}</span>`
        : `<span class="badge bad">${escapeHtml(t('rp.not_verified'))}</span>`);
    }
    const seats = played.dice.map((cup, seat) => {
      const classes = ['cup'];
      if (action && action.seat === seat) classes.push('actor');
      if (standing && standing.bidder === seat) classes.push('bidder');
      const marks = [];
      if (action && action.seat === seat) marks.push(t(action.bid ? 'rp.mark_bids' : 'rp.mark_calls'));
      if (standing && standing.bidder === seat && !(action && action.seat === seat)) marks.push(t('rp.mark_standing'));
      if (revealedNow && reveal && reveal.loser === seat) marks.push(t(this.points ? 'rp.mark_points' : 'rp.mark_dice', {n: reveal.change}));
      if (revealedNow && reveal && reveal.loser == null && reveal.change && reveal.caller === seat) marks.push(t('rp.mark_plus_die'));
      if (!cup.length) marks.push(t('rp.mark_out'));
      const counted = cup.filter(counts).length;
      const dice = cup.map((d) => die(d, {size: 30, counts: counts(d)})).join('');
      const spoken = cup.length ? `${t('rp.spoken_dice', {dice: cup.join(', ')})}${standing && standing.wild != null ? `; ${t('rp.spoken_count', {n: counted})}` : ''}` : t('rp.no_dice');
      return `<li class="${classes.join(' ')}" data-seat="${seat}">
        <span class="cup-name">${escapeHtml(this.name(seat))}${this.isBot(seat) ? ` <span class="badge">${escapeHtml(t('rp.bot'))}</span>` : ''}${seat === this.mySeat ? ` <span class="badge you">${escapeHtml(t('rp.you'))}</span>` : ''}</span>
        <span class="cup-dice" aria-hidden="true">${dice}</span>
        <span class="sr-only">${escapeHtml(spoken)}</span>
        ${marks.length ? `<span class="cup-marks">${escapeHtml(marks.join(' · '))}</span>` : ''}</li>`;
    }).join('');
    let standingLine = `<p class="standing-line">${escapeHtml(t('rp.no_bid'))}</p>`;
    if (standing && isHand(standing.bid)) {
      standingLine = `<p class="standing-line"><span class="label">${escapeHtml(t(standing.called ? 'rp.called_bid' : 'rp.standing_bid'))}</span>
        <strong class="replay-bid" data-bid="${escapeHtml(standing.bid.hand)}">${escapeHtml(handWords(standing.bid))}</strong> ${escapeHtml(t('rp.by_name', {name: this.name(standing.bidder)}))}</p>`;
    } else if (standing) {
      const [q, f] = standing.bid;
      const count = standing.count;
      const state = count == null ? '' : count >= q ? t('rp.true_so_far') : t('rp.short_by', {n: q - count});
      const under = count == null ? '' : escapeHtml(t('rp.under_cups', {n: count, count: '\u0000'}))
        .replace('\u0000', `<strong data-count="${count}">${count}</strong>`);
      standingLine = `<p class="standing-line"><span class="label">${escapeHtml(t(standing.called ? 'rp.called_bid' : 'rp.standing_bid'))}</span>
        <strong class="replay-bid" data-bid="${q}x${f}">${escapeHtml(bidWords(q, f))}</strong> ${escapeHtml(t('rp.by_name', {name: this.name(standing.bidder)}))}
        ${count == null ? '' : `<span class="replay-count">${under}${escapeHtml(state)}.</span>`}</p>`;
    }
    stage.dataset.round = String(round + 1);
    stage.dataset.step = String(step + 1);
    stage.innerHTML = `<h3 class="stage-title">${escapeHtml(t('rp.stage_round', {n: round + 1, total: this.record.rounds.length}))} ·
        ${escapeHtml(step < 0 ? t('rp.the_deal') : t('rp.step_of', {n: step + 1, total: played.actions.length}))} ${badges.join(' ')}</h3>
      ${checked && !checked.ok ? `<p class="notice fair-problem">${escapeHtml(t('rp.bad_dice', {problem: checked.problem}))}</p>` : ''}
      <p class="step-sentence" id="step-sentence">${escapeHtml(this.stepSentence(round, step))}</p>
      ${round === 0 && step < 0 && this.rolloffAttempts().length ? this.rolloffHtml() : ''}
      <ol class="cups-now">${seats}</ol>
      ${standingLine}
      ${decision ? this.insight(decision) : step >= 0 && this.analysisError ? `<p class="help">${escapeHtml(t('rp.no_analysis_for', {why: this.analysisError}))}</p>` : ''}`;
  }

  // What the analysis says about one decision, in words.
  insight(d) {
    const who = this.name(d.seat);
    const lines = [];
    if (d.bid_odds) {
      const o = d.bid_odds;
      lines.push(strong(t('rp.insight_bid', {who, bid: anyBidWords(d.action.bid), p: MARK, own: o.own, unseen: o.unseen, each: t(o.p > 0.2 ? 'rp.one_in_three' : 'rp.one_in_six')}), pct(o.holds)));
      if (d.standing_odds) lines.push(escapeHtml(t('rp.insight_before', {p: pct(d.standing_odds.holds)})));
    } else if (d.action.call === 'dudo') {
      const o = d.standing_odds;
      lines.push(strong(t('rp.insight_dudo', {who, bid: anyBidWords(d.standing), p: MARK, own: o.own, unseen: o.unseen, right: pct(1 - o.holds)}), pct(o.holds)));
    } else {
      const o = d.standing_odds;
      lines.push(strong(t('rp.insight_calza', {who, bid: anyBidWords(d.standing), p: MARK, own: o.own, unseen: o.unseen}), pct(o.exact)));
    }
    const unit = t(this.points ? 'rp.unit_points' : 'rp.unit_dice');
    const ev = `${signed(this.points ? -d.ev : d.ev)} ${unit}`;
    if (d.hard.same) {
      lines.push(escapeHtml(t('rp.hard_same', {ev})));
    } else {
      lines.push(strong(t('rp.hard_other', {what: MARK, hard: `${signed(this.points ? -d.hard.ev : d.hard.ev)} ${unit}`, ev}), this.hardWords(d.hard.action)));
    }
    const marks = [];
    if (d.mistake) marks.push(`<span class="mark mistake">${escapeHtml(t('rp.mistake'))}</span> ${escapeHtml(d.mistake.text)}`);
    if (d.bluff) marks.push(`<span class="mark bluff">${escapeHtml(t('rp.bluff'))}</span>${d.caught ? escapeHtml(t('rp.and_caught')) : ''}`);
    if (d.outcome) marks.push(`<span class="mark ${d.outcome}">${escapeHtml(t(d.outcome === 'right' ? 'rp.right_call' : 'rp.wrong_call'))}</span>`);
    return `<div class="insight" data-seat="${d.seat}">${lines.map((line) => `<p>${line}</p>`).join('')}
      ${marks.length ? `<p class="marks">${marks.join(' ')}</p>` : ''}</div>`;
  }

  // -- the analysis as lists ---------------------------------------------------------------

  renderSummary() {
    const box = main.querySelector('#summary');
    if (!this.analysis) {
      box.innerHTML = `<p class="notice">${escapeHtml(t('rp.analysis_missing', {why: this.analysisError}))}</p>`;
      return;
    }
    const cards = this.analysis.summary.map((p) => `<li class="player-card" data-seat="${p.seat}">
      <h3>${escapeHtml(this.name(p.seat))}${p.bot ? ` <span class="badge">${escapeHtml(t('rp.bot'))}</span>` : ''}${p.seat === this.mySeat ? ` <span class="badge you">${escapeHtml(t('rp.you'))}</span>` : ''}${(this.analysis.winners || []).includes(p.seat) ? ` <span class="badge ok">${escapeHtml(t('rp.winner_badge'))}</span>` : ''}</h3>
      <dl class="stats">
        <div><dt>${escapeHtml(t('rp.calls_right'))}</dt><dd data-stat="calls-right">${p.calls.right}</dd></div>
        <div><dt>${escapeHtml(t('rp.calls_wrong'))}</dt><dd data-stat="calls-wrong">${p.calls.wrong}</dd></div>
        <div><dt>${escapeHtml(t('rp.bluffs'))}</dt><dd data-stat="bluffs">${p.bluffs} (${p.bluffs_caught})</dd></div>
        <div><dt>${escapeHtml(t('rp.avg_risk'))}</dt><dd data-stat="risk">${pct(p.average_risk)}</dd></div>
        <div><dt>${escapeHtml(t('rp.mistakes'))}</dt><dd data-stat="mistakes">${p.mistakes}</dd></div>
        <div><dt>${escapeHtml(t('rp.as_hard'))}</dt><dd data-stat="hard">${escapeHtml(t('rp.n_of', {n: p.agreed_with_hard, total: p.decisions}))}</dd></div>
        ${p.by_bot ? `<div><dt>${escapeHtml(t('rp.by_bot'))}</dt><dd data-stat="by-bot">${p.by_bot}</dd></div>` : ''}
      </dl></li>`).join('');
    box.innerHTML = `<ul class="player-cards">${cards}</ul>
      <p class="help">${escapeHtml(t('rp.risk_help'))}</p>`;
  }

  renderLog() {
    const box = main.querySelector('#log');
    if (!box) return;
    const rounds = this.record.rounds.map((played, r) => {
      const info = this.roundInfo(r);
      const checked = this.verification?.rounds?.[r];
      const cups = played.dice.map((cup, seat) => `<li><span class="cup-name">${escapeHtml(this.name(seat))}</span>
        <span class="cup-dice" aria-hidden="true">${cup.map((d) => die(d, {size: 20})).join('')}</span>
        <span class="sr-only">${escapeHtml(cup.length ? cup.join(', ') : t('rp.no_dice'))}</span></li>`).join('');
      const steps = played.actions.map((action, k) => {
        const d = info?.steps?.[k];
        const chance = d ? (d.bid_odds ? pct(d.bid_odds.holds) : d.action.call === 'dudo' ? t('rp.chance_bid', {p: pct(d.standing_odds.holds)}) : t('rp.chance_exact', {p: pct(d.standing_odds.exact)})) : '';
        const notes = [];
        if (d?.mistake) notes.push(`<span class="mark mistake">${escapeHtml(t('rp.mistake'))}</span>`);
        if (d?.bluff) notes.push(`<span class="mark bluff">${escapeHtml(t(d.caught ? 'rp.bluff_caught' : 'rp.bluff'))}</span>`);
        if (d?.outcome) notes.push(`<span class="mark ${d.outcome}">${escapeHtml(t(d.outcome === 'right' ? 'rp.right' : 'rp.wrong'))}</span>`);
        return `<li class="step" id="log-r${r + 1}s${k + 1}">
          <a class="step-link" href="#r${r + 1}s${k + 1}"><span class="sr-only">${escapeHtml(t('rp.step'))} </span>${k + 1}</a>
          <span class="step-who">${escapeHtml(this.name(action.seat))}</span>
          <span class="step-what">${escapeHtml(this.actionWords(action, d?.kind))}${action.by ? ` <span class="by">${escapeHtml(byWords(action.by))}</span>` : ''}</span>
          ${d ? `<span class="step-chance"><span class="sr-only">${escapeHtml(t('rp.chance_from_seat'))}</span>${escapeHtml(chance)}</span>
          <span class="step-hard">${d.hard.same ? `<span class="same">${escapeHtml(t('rp.same_hard'))}</span>` : escapeHtml(t('rp.hard_did', {what: this.hardWords(d.hard.action)}))}</span>` : ''}
          ${notes.length ? `<span class="step-notes">${notes.join(' ')}</span>` : ''}</li>`;
      }).join('');
      const outcome = info?.reveal ? `<p class="outcome">${escapeHtml(this.outcomeWords(info.reveal, info.out))}</p>` : '';
      const badge = checked ? (checked.ok ? ` <span class="badge ok">${escapeHtml(t('rp.dice_verified_small'))}</span>` : ` <span class="badge bad">${escapeHtml(t('rp.dice_not_verified_small'))}</span>`) : '';
      return `<section class="round-log" aria-labelledby="round-${r + 1}-title">
        <h3 id="round-${r + 1}-title"><a href="#r${r + 1}s0">${escapeHtml(t('rp.round_n', {n: r + 1}))}</a>${info?.palifico ? ` <span class="badge pal">${escapeHtml(t('rp.palifico'))}</span>` : ''}${badge}</h3>
        <ul class="cups-log">${cups}</ul>
        <ol class="steps">${steps}</ol>${outcome}</section>`;
    }).join('');
    box.innerHTML = rounds;
    const [round, step] = this.positions[this.at] || [0, -1];
    const current = main.querySelector(`#log-r${round + 1}s${step + 1}`);
    if (current) {
      current.classList.add('current');
      current.setAttribute('aria-current', 'step');
    }
  }

  renderFair() {
    const result = this.verification;
    const box = main.querySelector('#fair');
    box.dataset.state = result.ok ? 'verified' : 'failed';
    const verdict = main.querySelector('#fair-verdict');
    verdict.className = `verdict ${result.ok ? 'ok' : 'bad'}`;
    const rolloff = result.rolloff || [];
    const failed = [...rolloff, ...result.rounds].filter((round) => !round.ok);
    const summary = main.querySelector('#fair-summary a');
    summary.textContent = t(result.ok ? 'rp.fair_ok' : 'rp.fair_bad');
    summary.parentElement.className = `fair-summary ${result.ok ? 'ok' : 'bad'}`;
    verdict.textContent = result.ok
      ? t('rp.verdict_ok', {n: result.rounds.length}) + (rolloff.length ? ` ${t('rp.verdict_rolloff', {n: rolloff.length})}` : '')
      : t('rp.verdict_bad', {problem: result.problem || `${failed[0].attempt ? t('rp.rolloff_attempt', {n: failed[0].attempt}) : t('rp.fair_round', {n: failed[0].round})}: ${failed[0].problem}`});
    main.querySelector('#fair-rounds').innerHTML = rolloff.map((attempt) => `<li data-round="${attempt.round}" data-ok="${attempt.ok}" class="${attempt.ok ? 'ok' : 'bad'}">
      <strong>${escapeHtml(t('rp.rolloff_attempt', {n: attempt.attempt}))} ${attempt.ok ? '✓' : escapeHtml(t('rp.fair_round_bad'))}</strong>
      ${escapeHtml(attempt.ok ? attempt.checks.join(' · ') : attempt.problem)}</li>`).join('') + result.rounds.map((round) => `<li data-round="${round.round}" data-ok="${round.ok}" class="${round.ok ? 'ok' : 'bad'}">
      <strong>${escapeHtml(t('rp.fair_round', {n: round.round}))} ${round.ok ? '✓' : escapeHtml(t('rp.fair_round_bad'))}</strong>
      ${escapeHtml(round.ok ? round.checks.join(' · ') : round.problem)}</li>`).join('');
  }
}

// -- /my-games ------------------------------------------------------------------------------

function renderMyGames() {
  document.title = `dudo · ${t('rp.title_mine')}`;
  const games = myGames();
  const when = (ms) => {
    try { return new Date(ms).toLocaleString(); } catch { return ''; }
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
    <p><a href="/">${escapeHtml(t('rp.play_a_game'))}</a></p></section>`;
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
