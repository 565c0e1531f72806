// The replay's stage: a finished game stepped through action by action (buttons, the
// slider, the keys, the address #rRsS naming the step), and at each step every cup with
// the dice that count for the standing bid marked, who did what, the badges (palifico,
// wild ones, dice verified) and the analysis of that move. `page` is the GamePage
// (replay.js); positions are its [round index, action index (-1: the deal)].
import {die} from './dice.js';
import {bidWords, t} from './i18n.js';
import {escapeHtml} from './page.js';
import {handDiceHtml, handUses, handWords, isHand} from './hands.js';
import {avatar, seatColour} from './avatar.js';
import {rolloffAttempts, stepSentence} from './replaywords.js';
import {insight, showRounds} from './replayanalysis.js';

function say(text) {
  document.getElementById('live').textContent = text;
}

export class Stage {
  constructor(page) {
    this.page = page;
  }

  wire() {
    const on = (id, handler) => this.page.main.querySelector(`#${id}`).addEventListener('click', handler);
    on('first', () => this.goTo(0));
    on('last', () => this.goTo(this.page.positions.length - 1));
    on('prev', () => this.goTo(this.page.at - 1));
    on('next', () => this.goTo(this.page.at + 1));
    on('prev-round', () => this.byRound(-1));
    on('next-round', () => this.byRound(1));
    on('print', () => window.print());
    const slider = this.page.main.querySelector('#slider');
    // Where the controls are a bar fixed to the foot of the screen (a phone, a tablet: replay.css),
    // the page keeps their height free below its end, and a focused element in view above them.
    const controls = this.page.main.querySelector('.controls');
    new ResizeObserver(() => {
      const fixed = getComputedStyle(controls).position === 'fixed';
      document.documentElement.style.setProperty('--controls-h', `${fixed ? controls.offsetHeight : 0}px`);
    }).observe(controls);
    slider.addEventListener('input', () => this.goTo(Number(slider.value)));
    document.addEventListener('keydown', (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const onSlider = event.target === slider;
      const keys = {
        ArrowRight: () => this.goTo(this.page.at + 1), ArrowLeft: () => this.goTo(this.page.at - 1),
        Home: () => this.goTo(0), End: () => this.goTo(this.page.positions.length - 1),
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
        this.page.main.querySelector('#stage').scrollIntoView({block: 'nearest'});
      }
    });
  }

  byRound(direction) {
    if (!this.page.positions.length) return;
    const [round, step] = this.page.positions[this.page.at];
    let target = round + direction;
    if (direction < 0 && step > -1) target = round; // back to this round's deal first
    target = Math.max(0, Math.min(this.page.record.rounds.length - 1, target));
    this.goTo(this.page.positions.findIndex(([r, k]) => r === target && k === -1));
  }

  positionFromHash() {
    const match = location.hash.match(/^#r(\d+)s(\d+)$/);
    if (!match) return null;
    const found = this.page.positions.findIndex(([r, k]) => r === Number(match[1]) - 1 && k === Number(match[2]) - 1);
    return found < 0 ? null : found;
  }

  goTo(index, announce = true) {
    if (!this.page.positions.length) return; // a record without rounds: nothing to step
    const at = Math.max(0, Math.min(this.page.positions.length - 1, index));
    this.page.at = at;
    const [round, step] = this.page.positions[at];
    const slider = this.page.main.querySelector('#slider');
    slider.value = String(at);
    const sentence = stepSentence(this.page, round, step);
    slider.setAttribute('aria-valuetext', t('rp.position', {round: round + 1, step: step + 1, steps: this.page.record.rounds[round].actions.length, sentence}));
    this.page.main.querySelector('#prev').disabled = at === 0;
    this.page.main.querySelector('#first').disabled = at === 0;
    this.page.main.querySelector('#next').disabled = at === this.page.positions.length - 1;
    this.page.main.querySelector('#last').disabled = at === this.page.positions.length - 1;
    // By round: nothing before the first deal, nothing after the last round's deal.
    this.page.main.querySelector('#prev-round').disabled = at === 0;
    this.page.main.querySelector('#next-round').disabled = round === this.page.record.rounds.length - 1;
    history.replaceState(null, '', `#r${round + 1}s${step + 1}`);
    this.render();
    for (const item of this.page.main.querySelectorAll('.step.current')) {
      item.classList.remove('current');
      item.removeAttribute('aria-current');
    }
    const current = this.page.main.querySelector(`#log-r${round + 1}s${step + 1}`);
    if (current) {
      current.classList.add('current');
      current.setAttribute('aria-current', 'step');
    }
    showRounds(this.page);
    if (announce) say(t('rp.round_said', {n: round + 1, sentence}));
  }

  rolloffHtml() {
    const attempts = rolloffAttempts(this.page.record);
    const checked = this.page.verification?.rolloff || [];
    const badge = (check) => (check.ok ? ` <span class="badge ok">${escapeHtml(t('rp.rolloff_verified'))}</span>` : ` <span class="badge bad">${escapeHtml(t('rp.rolloff_not_verified'))}</span>`);
    return `<section class="replay-rolloff" id="replay-rolloff" aria-label="${escapeHtml(t('rp.rolloff_label'))}"><h4>${escapeHtml(t('rolloff.title'))}</h4><ol>${attempts.map((attempt, i) => `<li data-attempt="${i + 1}">
      <span class="label">${escapeHtml(t('rolloff.attempt', {n: i + 1}))}${checked[i] ? badge(checked[i]) : ''}</span>
      ${attempt.seats.map((seat, j) => `<span class="rolloff-roll${attempt.tied.includes(seat) ? ' top' : ''}">${escapeHtml(this.page.name(seat))} <span aria-hidden="true">${die(attempt.rolls[j][0], {size: 20})}${die(attempt.rolls[j][1], {size: 20})}</span><span class="sr-only">${escapeHtml(t('rp.rolloff_pair', {a: attempt.rolls[j][0], b: attempt.rolls[j][1]}))}</span> = ${attempt.rolls[j][0] + attempt.rolls[j][1]}</span>`).join(' ')}</li>`).join('')}</ol></section>`;
  }

  // The standing bid after the step, how many dice count for it, and which do.
  standingAfter(round, step) {
    const played = this.page.record.rounds[round];
    if (step < 0) return null;
    const action = played.actions[step];
    const info = this.page.roundInfo(round);
    const decision = this.page.decision(round, step);
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

  render() {
    const stage = this.page.main.querySelector('#stage');
    if (!stage || !this.page.positions.length) return;
    const [round, step] = this.page.positions[this.page.at];
    const played = this.page.record.rounds[round];
    const info = this.page.roundInfo(round);
    const standing = this.standingAfter(round, step);
    const action = step >= 0 ? played.actions[step] : null;
    const decision = step >= 0 ? this.page.decision(round, step) : null;
    const reveal = info?.reveal;
    const revealedNow = action?.call && step === played.actions.length - 1;
    const counts = (d) => (standing && isHand(standing.bid) ? handUses(standing.bid, d)
      : standing && standing.wild != null && (d === standing.bid[1] || (standing.wild && d === 1 && standing.bid[1] !== 1)));
    const checked = this.page.verification?.rounds?.[round];
    const badges = [];
    if (info?.palifico) badges.push(`<span class="badge pal">${escapeHtml(t('rp.palifico'))}</span>`);
    if (info && this.page.record.rules?.wild_ones) {
      const wild = standing?.wild ?? info.wild;
      badges.push(`<span class="badge">${escapeHtml(t(wild ? 'rp.ones_wild_badge' : 'rp.ones_not_wild'))}</span>`);
    }
    if (checked) {
      badges.push(checked.ok ? `<span class="badge ok">${escapeHtml(t('rp.verified'))}</span>`
        : `<span class="badge bad">${escapeHtml(t('rp.not_verified'))}</span>`);
    }
    const seats = played.dice.map((cup, seat) => {
      const classes = ['seat', 'cup'];
      if (action && action.seat === seat) classes.push('actor');
      if (standing && standing.bidder === seat) classes.push('bidder');
      const marks = [];
      if (action && action.seat === seat) marks.push(t(action.bid ? 'rp.mark_bids' : 'rp.mark_calls'));
      if (standing && standing.bidder === seat && !(action && action.seat === seat)) marks.push(t('rp.mark_standing'));
      if (revealedNow && reveal && reveal.loser === seat) marks.push(t(this.page.points ? 'rp.mark_points' : 'rp.mark_dice', {n: reveal.change}));
      if (revealedNow && reveal && reveal.loser == null && reveal.change && reveal.caller === seat) marks.push(t('rp.mark_plus_die'));
      if (!cup.length) {
        marks.push(t('rp.mark_out'));
        classes.push('out');
      }
      if (seat === this.page.mySeat) classes.push('me');
      const counted = cup.filter(counts).length;
      const dice = cup.map((d) => die(d, {size: 26, counts: counts(d)})).join('');
      const spoken = cup.length ? `${t('rp.spoken_dice', {dice: cup.join(', ')})}${standing && standing.wild != null ? `; ${t('rp.spoken_count', {n: counted})}` : ''}` : t('rp.no_dice');
      return `<li class="${classes.join(' ')}" data-seat="${seat}" style="--seat-colour: ${seatColour(seat)}">
        <span class="seat-name cup-name">${avatar(this.page.name(seat), seat, 20)}<bdi>${escapeHtml(this.page.name(seat))}</bdi>${this.page.isBot(seat) ? ` <span class="badge">${escapeHtml(t('rp.bot'))}</span>` : ''}${seat === this.page.mySeat ? ` <span class="badge you">${escapeHtml(t('rp.you'))}</span>` : ''}</span>
        <span class="seat-dice cup-dice" aria-hidden="true">${dice}</span>
        <span class="sr-only">${escapeHtml(spoken)}</span>
        ${marks.length ? `<span class="seat-status cup-marks">${escapeHtml(marks.join(' · '))}</span>` : ''}</li>`;
    }).join('');
    let standingLine = `<p class="standing-line">${escapeHtml(t('rp.no_bid'))}</p>`;
    if (standing && isHand(standing.bid)) {
      standingLine = `<p class="standing-line"><span class="label">${escapeHtml(t(standing.called ? 'rp.called_bid' : 'rp.standing_bid'))}</span>
        <span class="bid-dice" aria-hidden="true">${handDiceHtml(standing.bid, 28)}</span>
        <strong class="replay-bid" data-bid="${escapeHtml(standing.bid.hand)}">${escapeHtml(handWords(standing.bid))}</strong> ${escapeHtml(t('rp.by_name', {name: this.page.name(standing.bidder)}))}</p>`;
    } else if (standing) {
      const [q, f] = standing.bid;
      const count = standing.count;
      const state = count == null ? '' : count >= q ? t('rp.true_so_far') : t('rp.short_by', {n: q - count});
      const under = count == null ? '' : escapeHtml(t('rp.under_cups', {n: count, count: '\u0000'}))
        .replace('\u0000', `<strong data-count="${count}">${count}</strong>`);
      standingLine = `<p class="standing-line"><span class="label">${escapeHtml(t(standing.called ? 'rp.called_bid' : 'rp.standing_bid'))}</span>
        <span class="bid-dice" aria-hidden="true"><span class="times">${q} ×</span>${die(f, {size: 32})}</span>
        <strong class="replay-bid" data-bid="${q}x${f}">${escapeHtml(bidWords(q, f))}</strong> ${escapeHtml(t('rp.by_name', {name: this.page.name(standing.bidder)}))}
        ${count == null ? '' : `<span class="replay-count">${under}${escapeHtml(state)}.</span>`}</p>`;
    }
    stage.dataset.round = String(round + 1);
    stage.dataset.step = String(step + 1);
    stage.innerHTML = `<h3 class="stage-title">${escapeHtml(t('rp.stage_round', {n: round + 1, total: this.page.record.rounds.length}))} ·
        ${escapeHtml(step < 0 ? t('rp.the_deal') : t('rp.step_of', {n: step + 1, total: played.actions.length}))} ${badges.join(' ')}</h3>
      ${checked && !checked.ok ? `<p class="notice fair-problem">${escapeHtml(t('rp.bad_dice', {problem: checked.problem}))}</p>` : ''}
      <p class="step-sentence" id="step-sentence">${escapeHtml(stepSentence(this.page, round, step))}</p>
      ${round === 0 && step < 0 && rolloffAttempts(this.page.record).length ? this.rolloffHtml() : ''}
      <div class="felt replay-felt" data-seats="${played.dice.length}">
        <ol class="seats cups-now">${seats}</ol>
        <div class="replay-centre">${standingLine}</div>
      </div>
      ${decision ? insight(this.page, decision) : step >= 0 && this.page.analysisError ? `<p class="help">${escapeHtml(t('rp.no_analysis_for', {why: this.page.analysisError}))}</p>` : ''}`;
  }

}
