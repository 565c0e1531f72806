// A finished game's analysis, as the server's bots layer made it (GET
// /api/games/ID/analysis): for one decision, its chance from the seat that made it, what
// the hard bot would have done and both expected values, and its marks (insight, shown
// under the replay's stage); a card per player (renderSummary); every round's moves as a
// list of links to their steps (renderLog). `page` is the GamePage (replay.js).
import {die} from './dice.js';
import {t} from './i18n.js';
import {escapeHtml} from './page.js';
import {anyBidWords} from './hands.js';
import {MARK, actionWords, byWords, hardWords, mistakeWords, outcomeWords, pct, signed, strong} from './replaywords.js';

// What the analysis says about one decision, in words.
export function insight(page, d) {
  const who = page.name(d.seat);
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
  const unit = t(page.points ? 'rp.unit_points' : 'rp.unit_dice');
  const ev = `${signed(page.points ? -d.ev : d.ev)} ${unit}`;
  if (d.hard.same) {
    lines.push(escapeHtml(t('rp.hard_same', {ev})));
  } else {
    lines.push(strong(t('rp.hard_other', {what: MARK, hard: `${signed(page.points ? -d.hard.ev : d.hard.ev)} ${unit}`, ev}), hardWords(d.hard.action)));
  }
  const marks = [];
  if (d.mistake) marks.push(`<span class="mark mistake">${escapeHtml(t('rp.mistake'))}</span> ${escapeHtml(mistakeWords(d.mistake))}`);
  if (d.bluff) marks.push(`<span class="mark bluff">${escapeHtml(t('rp.bluff'))}</span>${d.caught ? escapeHtml(t('rp.and_caught')) : ''}`);
  if (d.outcome) marks.push(`<span class="mark ${d.outcome}">${escapeHtml(t(d.outcome === 'right' ? 'rp.right_call' : 'rp.wrong_call'))}</span>`);
  return `<div class="insight" data-seat="${d.seat}">${lines.map((line) => `<p>${line}</p>`).join('')}
    ${marks.length ? `<p class="marks">${marks.join(' ')}</p>` : ''}</div>`;
}

export function renderSummary(page) {
  const box = page.main.querySelector('#summary');
  if (!page.analysis) {
    box.innerHTML = `<p class="notice">${escapeHtml(t('rp.analysis_missing', {why: page.analysisError}))}</p>`;
    return;
  }
  const cards = page.analysis.summary.map((p) => `<li class="player-card" data-seat="${p.seat}">
    <h3>${escapeHtml(page.name(p.seat))}${p.bot ? ` <span class="badge">${escapeHtml(t('rp.bot'))}</span>` : ''}${p.seat === page.mySeat ? ` <span class="badge you">${escapeHtml(t('rp.you'))}</span>` : ''}${(page.analysis.winners || []).includes(p.seat) ? ` <span class="badge ok">${escapeHtml(t('rp.winner_badge'))}</span>` : ''}</h3>
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

export function renderLog(page) {
  const box = page.main.querySelector('#log');
  if (!box) return;
  const rounds = page.record.rounds.map((played, r) => {
    const info = page.roundInfo(r);
    const checked = page.verification?.rounds?.[r];
    const cups = played.dice.map((cup, seat) => `<li><span class="cup-name">${escapeHtml(page.name(seat))}</span>
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
        <span class="step-who">${escapeHtml(page.name(action.seat))}</span>
        <span class="step-what">${escapeHtml(actionWords(action, d?.kind))}${action.by ? ` <span class="by">${escapeHtml(byWords(action.by))}</span>` : ''}</span>
        ${d ? `<span class="step-chance"><span class="sr-only">${escapeHtml(t('rp.chance_from_seat'))}</span>${escapeHtml(chance)}</span>
        <span class="step-hard">${d.hard.same ? `<span class="same">${escapeHtml(t('rp.same_hard'))}</span>` : escapeHtml(t('rp.hard_did', {what: hardWords(d.hard.action)}))}</span>` : ''}
        ${notes.length ? `<span class="step-notes">${notes.join(' ')}</span>` : ''}</li>`;
    }).join('');
    const outcome = info?.reveal ? `<p class="outcome">${escapeHtml(outcomeWords(page, info.reveal, info.out))}</p>` : '';
    const badge = checked ? (checked.ok ? ` <span class="badge ok">${escapeHtml(t('rp.dice_verified_small'))}</span>` : ` <span class="badge bad">${escapeHtml(t('rp.dice_not_verified_small'))}</span>`) : '';
    return `<section class="round-log" id="round-${r + 1}" data-round="${r + 1}" aria-labelledby="round-${r + 1}-title" hidden>
      <h3 id="round-${r + 1}-title"><a href="#r${r + 1}s0">${escapeHtml(t('rp.round_n', {n: r + 1}))}</a>${info?.palifico ? ` <span class="badge pal">${escapeHtml(t('rp.palifico'))}</span>` : ''}${badge}</h3>
      <ul class="cups-log">${cups}</ul>
      <ol class="steps">${steps}</ol>${outcome}</section>`;
  }).join('');
  // The rounds as a row of buttons, each showing or folding its round's moves.
  const strip = page.record.rounds.map((_, r) => `<li><button type="button" class="round-toggle" aria-expanded="false" aria-controls="round-${r + 1}" data-round="${r}"><span class="sr-only">${escapeHtml(t('rp.round_n', {n: r + 1}))}</span><span aria-hidden="true">${r + 1}</span></button></li>`).join('');
  const all = `<li class="all"><button type="button" class="small secondary" id="all-rounds">${escapeHtml(t('rp.open_rounds'))}</button></li>`;
  box.innerHTML = `<ul class="round-strip" aria-label="${escapeHtml(t('rp.rounds_label'))}">${strip}${all}</ul>${rounds}`;
  showRounds(page);
  const [round, step] = page.positions[page.at] || [0, -1];
  const current = page.main.querySelector(`#log-r${round + 1}s${step + 1}`);
  if (current) {
    current.classList.add('current');
    current.setAttribute('aria-current', 'step');
  }
}

// The log is folded by round, so that a long game does not make a page of many screens: a
// row of the rounds' numbers, and under it the current round's moves, and those of any
// other round the player opened (page.openRounds);
// the round the replay's step brought open (page.autoRound) folds again when the step
// leaves it. Printed, every round is open (replay.css).
export function showRounds(page) {
  const [current] = page.positions[page.at] || [0];
  if (page.autoRound !== current && !page.openRounds.has(current)) {
    if (page.autoRound != null) page.openRounds.delete(page.autoRound);
    page.openRounds.add(current);
    page.autoRound = current;
  }
  for (const button of page.main.querySelectorAll('.round-toggle')) {
    const round = Number(button.dataset.round);
    const open = page.openRounds.has(round);
    button.setAttribute('aria-expanded', String(open));
    button.classList.toggle('current', round === current);
    page.main.querySelector(`#${button.getAttribute('aria-controls')}`).hidden = !open;
  }
  const all = page.main.querySelector('#all-rounds');
  if (all) all.textContent = t(page.openRounds.size >= page.record.rounds.length ? 'rp.fold_rounds' : 'rp.open_rounds');
}

// The round buttons (each round's, and every round's at once), wired once on the log.
export function wireRounds(page) {
  page.main.querySelector('#log').addEventListener('click', (event) => {
    if (event.target.closest('#all-rounds')) {
      const rounds = page.record.rounds.length;
      if (page.openRounds.size >= rounds) {
        page.openRounds.clear();
        page.autoRound = null; // the current round opens again
      } else {
        for (let r = 0; r < rounds; r += 1) page.openRounds.add(r);
      }
      showRounds(page);
      return;
    }
    const button = event.target.closest('.round-toggle');
    if (!button) return;
    const round = Number(button.dataset.round);
    const [current] = page.positions[page.at] || [0];
    if (page.openRounds.delete(round)) {
      if (round === current) page.autoRound = current; // folded by the player: stays so
    } else {
      page.openRounds.add(round);
      if (round === page.autoRound) page.autoRound = null; // opened by the player: stays so
    }
    showRounds(page);
  });
}
