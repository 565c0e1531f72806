// A finished game's page (/g/ID): every round with every cup shown, stepped through bid
// by bid; the analysis the server's bots layer made of every decision; the dice checked
// in this browser (verify.js); downloads. And /my-games, the games this device remembers.
// Like the table, it decides no rule: counts and outcomes come from the engine's replay
// (the analysis), the dice from the record.
import {die} from './dice.js';
import {bidWords, pickLanguage, setLanguage, t} from './i18n.js';
import {api, escapeHtml} from './page.js';
import {forgetGame, myGames, rememberGame} from './mygames.js';
import {cryptoAvailable, verifyRecord} from './verify.js';

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
  return by === 'timer' ? 'the turn timer ran out: a bot moved' : 'a bot standing in';
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
    return names[seat] || `Player ${seat + 1}`;
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
    if (!this.translated) await setLanguage('en'); // the game's page itself is in English
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
        ? `${winners.length > 1 ? 'Winners' : 'Winner'}: ${winners.join(', ')}` : 'Not finished';
      main.querySelector('#rules-name').textContent = this.rulesTitle();
      if (this.analysis.rules_overrides) {
        const href = `/rules?${new URLSearchParams(Object.entries(this.analysis.rules_overrides)
          .map(([key, value]) => [key, String(value)]))}`;
        for (const link of document.querySelectorAll('#rules-link, #rules-sheet')) link.href = href;
      }
    } else {
      this.analysisError = answer.data.message || 'the server could not analyse this game';
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
      main.querySelector('#fair-verdict').textContent = 'This browser offers no Web Crypto on this page '
        + '(it needs HTTPS or localhost), so the dice cannot be checked here: download the record and run '
        + '“dudo verify” on it.';
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
    const table = record.room ? `Table ${record.room}` : 'A game';
    document.title = `dudo · ${table} · ${names.join(', ')}`;
    const rulesHref = `/rules?${new URLSearchParams(Object.entries(record.rules || {})
      .map(([key, value]) => [key, String(value)]))}`;
    document.getElementById('rules-link').href = rulesHref;
    const file = `dudo-game-${this.id}.json`;
    main.innerHTML = `<article class="replay" data-game="${escapeHtml(this.id)}">
      <header class="replay-head">
        <h1>${escapeHtml(table)}: ${escapeHtml(names.join(', '))}</h1>
        <p class="lead"><span id="rules-name">${escapeHtml(this.rulesTitle())}</span> · ${record.rounds.length} round${record.rounds.length === 1 ? '' : 's'} ·
          <span id="winners">…</span></p>
        <p class="fair-summary" id="fair-summary"><a href="#fair">Fair dice: checking in your browser…</a></p>
        <p class="downloads">
          <a class="button-link small" href="/api/games/${this.id}" download="${file}">Download the record (JSON)</a>
          <a class="button-link small" href="/api/games/${this.id}/scenario" download="dudo-${this.id}.scenario.json">Download as a scenario</a>
          <button type="button" class="small secondary" id="print">Print</button>
        </p>
        <p class="help">Share this page: anyone with the link sees the game, no sign-up. With the
          record saved, <code>dudo verify</code> checks every die in a terminal and
          <code>dudo analyze</code> prints this analysis.</p>
      </header>

      <section class="card stage-card" aria-labelledby="replay-title">
        <h2 id="replay-title">Replay</h2>
        <div id="stage" class="stage" aria-live="off"></div>
        <div class="controls" role="group" aria-label="Step through the game">
          <label for="slider" class="sr-only">Step</label>
          <input type="range" id="slider" min="0" max="${this.positions.length - 1}" value="0" step="1">
          <div class="control-buttons">
            <button type="button" class="small secondary" id="first"><span aria-hidden="true">⏮</span> First</button>
            <button type="button" class="small secondary" id="prev-round"><span aria-hidden="true">«</span> Round</button>
            <button type="button" class="small primary" id="prev"><span aria-hidden="true">◀</span> Back</button>
            <button type="button" class="small primary" id="next">Next <span aria-hidden="true">▶</span></button>
            <button type="button" class="small secondary" id="next-round">Round <span aria-hidden="true">»</span></button>
            <button type="button" class="small secondary" id="last">Last <span aria-hidden="true">⏭</span></button>
          </div>
          <p class="help keys">Keys: ← and → step, Page Up and Page Down go by round, Home and End.</p>
        </div>
      </section>

      <section class="card" aria-labelledby="summary-title" id="analysis-state" data-state="loading">
        <h2 id="summary-title">How each player did</h2>
        <div id="summary"><p class="help">The analysis is being made…</p></div>
      </section>

      <section class="card" aria-labelledby="log-title">
        <h2 id="log-title">Every bid and call</h2>
        <p class="help">The chance is how likely the bid was to hold <em>from the seat that made the
          move</em>: its own dice, and the others' dice unseen (each counts for a face one time in
          three while ones are wild, else one in six). “Hard” is what the hard bot would have done
          on that seat's view. The expected value counts the dice the move should cost if it is
          judged: a call at once, a bid if the next player calls it.
          <strong>Mistake</strong> marks a call on a bid ${pct(0.8)} or more likely to hold, or a bid
          under ${pct(0.2)} when a much better choice was at hand; a <strong>bluff</strong> is a bid
          under ${pct(0.5)}.</p>
        <div id="log"></div>
      </section>

      <section class="card" id="fair" data-state="checking" aria-labelledby="fair-title">
        <h2 id="fair-title">Fair dice, checked in your browser</h2>
        <p id="fair-verdict" class="verdict">Checking every round…</p>
        <p class="help">This page recomputes every die from the seeds in the record with your browser's
          own cryptography (SHA-256 and HMAC-SHA256), without asking the server whether it is right:
          the server's seed must match the commitment it published before the roll, the seeds it chose
          for bots must follow from that seed, and the dice must follow from every seat's seed.
          It is the check of <code>docs/protocol.md</code>, “Fair dice”, and of <code>dudo verify</code>.</p>
        <ol id="fair-rounds" class="fair-rounds"></ol>
      </section>

      <section class="card" aria-labelledby="rules-title">
        <h2 id="rules-title">The rules of this table</h2>
        ${this.rulesList()}
        <p><a id="rules-sheet" href="${escapeHtml(rulesHref)}">The full rules sheet for this table</a></p>
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
      return Object.keys(overrides).length > 1 ? `${title} with house rules` : title;
    }
    return `${rules.starting_dice ?? 5} dice each${rules.wild_ones ? ', ones wild' : ''}`;
  }

  rulesList() {
    const rules = this.record.rules || {};
    const value = (key, raw) => {
      if (typeof raw === 'boolean') return raw ? 'yes' : 'no';
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
    slider.setAttribute('aria-valuetext', `Round ${round + 1}, step ${step + 1} of ${this.record.rounds[round].actions.length}: ${sentence}`);
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
    if (announce) say(`Round ${round + 1}. ${sentence}`);
  }

  // -- what happened at a step -----------------------------------------------------------

  roundInfo(round) {
    return this.analysis?.rounds?.[round] || null;
  }

  decision(round, step) {
    return this.roundInfo(round)?.steps?.[step] || null;
  }

  actionWords(action, kind) {
    if (!action) return 'let the chance to call calza go by';
    if (action.bid) {
      const [q, f] = action.bid;
      return `${kind === 'open' ? 'opens with' : kind === 'raise' ? 'raises to' : 'bids'} ${bidWords(q, f)}`;
    }
    return action.call === 'calza' ? 'calls Calza (exact!)' : 'calls Liar!';
  }

  hardWords(action) {
    if (!action) return 'let it go';
    if (action.bid) return `bid ${bidWords(...action.bid)}`;
    return action.call === 'calza' ? 'call Calza' : 'call Liar!';
  }

  outcomeWords(reveal, out = []) {
    if (!reveal) return '';
    const [q, f] = reveal.bid;
    const verdict = reveal.call === 'calza'
      ? (reveal.outcome === 'exact' ? 'exactly right' : 'not exact')
      : (reveal.outcome === 'holds' ? 'the bid holds' : 'the bid was a lie');
    let who;
    if (reveal.loser == null) {
      who = reveal.change ? `${this.name(reveal.caller)} wins a die back.` : `${this.name(reveal.caller)} was exactly right.`;
    } else if (this.points) {
      who = `${this.name(reveal.loser)} takes ${reveal.change} penalty point${reveal.change === 1 ? '' : 's'}.`;
    } else {
      who = `${this.name(reveal.loser)} loses ${reveal.change === 1 ? 'a die' : `${reveal.change} dice`}${(out || []).includes(reveal.loser) ? ' and is out' : ''}.`;
    }
    return `${reveal.count} ${reveal.count === 1 ? 'die counts' : 'dice count'} for ${bidWords(q, f)}: ${verdict}. ${who}`;
  }

  stepSentence(round, step) {
    const played = this.record.rounds[round];
    if (step < 0) {
      const opener = played.actions[0]?.seat;
      return `The dice are rolled${opener != null ? `; ${this.name(opener)} opens` : ''}.`;
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
        sentence += ` ${this.analysis.winners.map((seat) => this.name(seat)).join(' and ')} ${this.analysis.winners.length > 1 ? 'win' : 'wins'} the game.`;
      }
    }
    return sentence;
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
    const counts = (d) => standing && standing.wild != null && (d === standing.bid[1] || (standing.wild && d === 1 && standing.bid[1] !== 1));
    const checked = this.verification?.rounds?.[round];
    const badges = [];
    if (info?.palifico) badges.push('<span class="badge pal">Palifico</span>');
    if (info && this.record.rules?.wild_ones) {
      const wild = standing?.wild ?? info.wild;
      badges.push(`<span class="badge">${wild ? 'Ones wild' : 'Ones not wild'}</span>`);
    }
    if (checked) {
      badges.push(checked.ok ? '<span class="badge ok">Dice verified ✓</span>'
        : '<span class="badge bad">Dice NOT verified ✗</span>');
    }
    const seats = played.dice.map((cup, seat) => {
      const classes = ['cup'];
      if (action && action.seat === seat) classes.push('actor');
      if (standing && standing.bidder === seat) classes.push('bidder');
      const marks = [];
      if (action && action.seat === seat) marks.push(action.bid ? 'bids' : 'calls');
      if (standing && standing.bidder === seat && !(action && action.seat === seat)) marks.push('standing bid');
      if (revealedNow && reveal && reveal.loser === seat) marks.push(this.points ? `+${reveal.change} point${reveal.change === 1 ? '' : 's'}` : `−${reveal.change} ${reveal.change === 1 ? 'die' : 'dice'}`);
      if (revealedNow && reveal && reveal.loser == null && reveal.change && reveal.caller === seat) marks.push('+1 die');
      if (!cup.length) marks.push('out');
      const counted = cup.filter(counts).length;
      const dice = cup.map((d) => die(d, {size: 30, counts: counts(d)})).join('');
      const spoken = cup.length ? `dice ${cup.join(', ')}${standing && standing.wild != null ? `; ${counted} count` : ''}` : 'no dice';
      return `<li class="${classes.join(' ')}" data-seat="${seat}">
        <span class="cup-name">${escapeHtml(this.name(seat))}${this.isBot(seat) ? ' <span class="badge">bot</span>' : ''}${seat === this.mySeat ? ' <span class="badge you">you</span>' : ''}</span>
        <span class="cup-dice" aria-hidden="true">${dice}</span>
        <span class="sr-only">${escapeHtml(spoken)}</span>
        ${marks.length ? `<span class="cup-marks">${escapeHtml(marks.join(' · '))}</span>` : ''}</li>`;
    }).join('');
    let standingLine = '<p class="standing-line">No bid yet.</p>';
    if (standing) {
      const [q, f] = standing.bid;
      const count = standing.count;
      const state = count == null ? '' : count >= q ? ' — true so far' : ` — short by ${q - count}`;
      standingLine = `<p class="standing-line"><span class="label">${standing.called ? 'Called bid' : 'Standing bid'}</span>
        <strong class="replay-bid" data-bid="${q}x${f}">${escapeHtml(bidWords(q, f))}</strong> by ${escapeHtml(this.name(standing.bidder))}.
        ${count == null ? '' : `<span class="replay-count">Under all cups: <strong data-count="${count}">${count}</strong> ${count === 1 ? 'counts' : 'count'}${escapeHtml(state)}.</span>`}</p>`;
    }
    stage.dataset.round = String(round + 1);
    stage.dataset.step = String(step + 1);
    stage.innerHTML = `<h3 class="stage-title">Round ${round + 1} <span class="of">of ${this.record.rounds.length}</span> ·
        ${step < 0 ? 'the deal' : `step ${step + 1} of ${played.actions.length}`} ${badges.join(' ')}</h3>
      ${checked && !checked.ok ? `<p class="notice fair-problem">These dice do not check out: ${escapeHtml(checked.problem)}.</p>` : ''}
      <p class="step-sentence" id="step-sentence">${escapeHtml(this.stepSentence(round, step))}</p>
      <ol class="cups-now">${seats}</ol>
      ${standingLine}
      ${decision ? this.insight(decision) : step >= 0 && this.analysisError ? `<p class="help">No analysis: ${escapeHtml(this.analysisError)}</p>` : ''}`;
  }

  // What the analysis says about one decision, in words.
  insight(d) {
    const who = this.name(d.seat);
    const lines = [];
    if (d.bid_odds) {
      const o = d.bid_odds;
      lines.push(`From ${escapeHtml(who)}'s seat, ${escapeHtml(bidWords(...d.action.bid))} was <strong>${pct(o.holds)}</strong> likely to hold: own dice gave ${o.own}, ${o.unseen} unseen dice, each counting ${o.p > 0.2 ? 'one in three' : 'one in six'}.`);
      if (d.standing_odds) lines.push(`The bid before it was ${pct(d.standing_odds.holds)} likely from there.`);
    } else if (d.action.call === 'dudo') {
      const o = d.standing_odds;
      lines.push(`From ${escapeHtml(who)}'s seat, ${escapeHtml(bidWords(...d.standing))} was <strong>${pct(o.holds)}</strong> likely to hold (own dice gave ${o.own}, ${o.unseen} unseen), so the call was ${pct(1 - o.holds)} likely to be right.`);
    } else {
      const o = d.standing_odds;
      lines.push(`From ${escapeHtml(who)}'s seat, exactly ${escapeHtml(bidWords(...d.standing))} was <strong>${pct(o.exact)}</strong> likely (own dice gave ${o.own}, ${o.unseen} unseen).`);
    }
    const unit = this.points ? 'points' : 'dice';
    const ev = `${signed(this.points ? -d.ev : d.ev)} ${unit}`;
    if (d.hard.same) {
      lines.push(`Hard would have done the same (expected ${ev}).`);
    } else {
      lines.push(`Hard would have: <strong>${escapeHtml(this.hardWords(d.hard.action))}</strong> (expected ${signed(this.points ? -d.hard.ev : d.hard.ev)} ${unit}; this move ${ev}).`);
    }
    const marks = [];
    if (d.mistake) marks.push(`<span class="mark mistake">Mistake</span> ${escapeHtml(d.mistake.text)}`);
    if (d.bluff) marks.push(`<span class="mark bluff">Bluff</span>${d.caught ? ' and caught' : ''}`);
    if (d.outcome) marks.push(`<span class="mark ${d.outcome}">${d.outcome === 'right' ? 'Right call' : 'Wrong call'}</span>`);
    return `<div class="insight" data-seat="${d.seat}">${lines.map((line) => `<p>${line}</p>`).join('')}
      ${marks.length ? `<p class="marks">${marks.join(' ')}</p>` : ''}</div>`;
  }

  // -- the analysis as lists ---------------------------------------------------------------

  renderSummary() {
    const box = main.querySelector('#summary');
    if (!this.analysis) {
      box.innerHTML = `<p class="notice">The analysis is not available: ${escapeHtml(this.analysisError)}</p>`;
      return;
    }
    const cards = this.analysis.summary.map((p) => `<li class="player-card" data-seat="${p.seat}">
      <h3>${escapeHtml(this.name(p.seat))}${p.bot ? ' <span class="badge">bot</span>' : ''}${p.seat === this.mySeat ? ' <span class="badge you">you</span>' : ''}${(this.analysis.winners || []).includes(p.seat) ? ' <span class="badge ok">winner</span>' : ''}</h3>
      <dl class="stats">
        <div><dt>Calls right</dt><dd data-stat="calls-right">${p.calls.right}</dd></div>
        <div><dt>Calls wrong</dt><dd data-stat="calls-wrong">${p.calls.wrong}</dd></div>
        <div><dt>Bluffs (caught)</dt><dd data-stat="bluffs">${p.bluffs} (${p.bluffs_caught})</dd></div>
        <div><dt>Average risk</dt><dd data-stat="risk">${pct(p.average_risk)}</dd></div>
        <div><dt>Mistakes</dt><dd data-stat="mistakes">${p.mistakes}</dd></div>
        <div><dt>As hard would</dt><dd data-stat="hard">${p.agreed_with_hard} of ${p.decisions}</dd></div>
        ${p.by_bot ? `<div><dt>Moves made by a bot for them (not counted)</dt><dd data-stat="by-bot">${p.by_bot}</dd></div>` : ''}
      </dl></li>`).join('');
    box.innerHTML = `<ul class="player-cards">${cards}</ul>
      <p class="help">Average risk: the chance, on average, that a move of theirs would lose if judged
      (a call at once, a bid if called), from their own seat.</p>`;
  }

  renderLog() {
    const box = main.querySelector('#log');
    if (!box) return;
    const rounds = this.record.rounds.map((played, r) => {
      const info = this.roundInfo(r);
      const checked = this.verification?.rounds?.[r];
      const cups = played.dice.map((cup, seat) => `<li><span class="cup-name">${escapeHtml(this.name(seat))}</span>
        <span class="cup-dice" aria-hidden="true">${cup.map((d) => die(d, {size: 20})).join('')}</span>
        <span class="sr-only">${cup.length ? cup.join(', ') : 'no dice'}</span></li>`).join('');
      const steps = played.actions.map((action, k) => {
        const d = info?.steps?.[k];
        const chance = d ? (d.bid_odds ? pct(d.bid_odds.holds) : d.action.call === 'dudo' ? `bid ${pct(d.standing_odds.holds)}` : `exact ${pct(d.standing_odds.exact)}`) : '';
        const notes = [];
        if (d?.mistake) notes.push('<span class="mark mistake">Mistake</span>');
        if (d?.bluff) notes.push(`<span class="mark bluff">Bluff${d.caught ? ', caught' : ''}</span>`);
        if (d?.outcome) notes.push(`<span class="mark ${d.outcome}">${d.outcome === 'right' ? 'Right' : 'Wrong'}</span>`);
        return `<li class="step" id="log-r${r + 1}s${k + 1}">
          <a class="step-link" href="#r${r + 1}s${k + 1}"><span class="sr-only">Step </span>${k + 1}</a>
          <span class="step-who">${escapeHtml(this.name(action.seat))}</span>
          <span class="step-what">${escapeHtml(this.actionWords(action, d?.kind))}${action.by ? ` <span class="by">${escapeHtml(byWords(action.by))}</span>` : ''}</span>
          ${d ? `<span class="step-chance"><span class="sr-only">chance from their seat </span>${chance}</span>
          <span class="step-hard">${d.hard.same ? '<span class="same">= hard</span>' : `hard: ${escapeHtml(this.hardWords(d.hard.action))}`}</span>` : ''}
          ${notes.length ? `<span class="step-notes">${notes.join(' ')}</span>` : ''}</li>`;
      }).join('');
      const outcome = info?.reveal ? `<p class="outcome">${escapeHtml(this.outcomeWords(info.reveal, info.out))}</p>` : '';
      const badge = checked ? (checked.ok ? ' <span class="badge ok">dice verified ✓</span>' : ' <span class="badge bad">dice NOT verified ✗</span>') : '';
      return `<section class="round-log" aria-labelledby="round-${r + 1}-title">
        <h3 id="round-${r + 1}-title"><a href="#r${r + 1}s0">Round ${r + 1}</a>${info?.palifico ? ' <span class="badge pal">Palifico</span>' : ''}${badge}</h3>
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
    const failed = result.rounds.filter((round) => !round.ok);
    const summary = main.querySelector('#fair-summary a');
    summary.textContent = result.ok ? 'Fair dice: ✓ every die verified in your browser'
      : `Fair dice: ✗ NOT VERIFIED (${failed.length || 'the record'}${failed.length ? ` round${failed.length === 1 ? '' : 's'}` : ''}): see why`;
    summary.parentElement.className = `fair-summary ${result.ok ? 'ok' : 'bad'}`;
    verdict.textContent = result.ok
      ? `✓ Verified: every die of all ${result.rounds.length} rounds follows from the published seeds.`
      : `✗ NOT VERIFIED: ${result.problem || `round ${failed[0].round}: ${failed[0].problem}`}.`;
    main.querySelector('#fair-rounds').innerHTML = result.rounds.map((round) => `<li data-round="${round.round}" data-ok="${round.ok}" class="${round.ok ? 'ok' : 'bad'}">
      <strong>Round ${round.round} ${round.ok ? '✓' : '✗ NOT verified'}</strong>
      ${escapeHtml(round.ok ? round.checks.join(' · ') : round.problem)}</li>`).join('');
  }
}

// -- /my-games ------------------------------------------------------------------------------

function renderMyGames() {
  document.title = 'dudo · my games';
  const games = myGames();
  const when = (ms) => {
    try { return new Date(ms).toLocaleString(); } catch { return ''; }
  };
  const items = games.map((game) => {
    const names = Array.isArray(game.names) ? game.names.join(', ') : '';
    const winners = Array.isArray(game.winners) && game.winners.length ? ` · won by ${game.winners.join(', ')}` : '';
    return `<li data-game="${escapeHtml(game.id)}">
      <a href="/g/${escapeHtml(game.id)}">${escapeHtml(game.room ? `Table ${game.room}` : 'A game')}${names ? `: ${escapeHtml(names)}` : ''}</a>
      <span class="help">${escapeHtml(when(game.when))}${escapeHtml(winners)}</span>
      <button type="button" class="small secondary" data-forget="${escapeHtml(game.id)}">Forget<span class="sr-only"> this game</span></button></li>`;
  }).join('');
  main.innerHTML = `<section class="card my-games-page" aria-labelledby="my-games-title">
    <h1 id="my-games-title">My games</h1>
    <p class="lead">The games finished or opened in this browser. The list stays on this device: there is no account, and nothing about it is sent anywhere.</p>
    ${games.length ? `<ol class="my-games">${items}</ol>` : '<p>No games yet. Finish a game at a table and it appears here, with a replay, the analysis and the dice checked.</p>'}
    <p><a href="/">Play a game</a></p></section>`;
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
