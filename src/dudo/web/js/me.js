// The profile page (/me): this device's profile, its numbers across games (from the
// server's stored game records), two small plots, the leaderboard it may join, moving it
// to another device with a one-time code, and the player's data: export or forget.
import {decimal, pickLanguage, presetShortTitle, setLanguage, t} from './i18n.js';
import {MOST_NAME, escapeHtml, memory, nameHtml, toast, errorText} from './page.js';
import {avatarSvg, claimProfile, dropProfile, ensureProfile, profileCall, profileId, profileRefusal} from './profile.js';

const main = document.getElementById('main');
const live = document.getElementById('live');

const STATS = ['games', 'wins', 'rounds', 'best_streak', 'calls_right', 'calls_wrong',
  'bluffs_caught', 'bluffs_survived', 'calza_right', 'calza_wrong'];

// A preset as the rest of the client names it, in the page's language; the stats'
// "custom" (rules from no preset) as house rules.
function presetName(preset) {
  return presetShortTitle(preset) ?? (preset === 'custom' ? t('home.house_rules_short') : preset);
}

function pct(part, whole) {
  return whole ? `${Math.round((part / whole) * 100)}%` : '–';
}

// A line of running shares (0..1) over games, drawn in a 300×120 box; `marks` adds a dot
// per game (won or lost).
function linePlot(id, title, values, marks = null, kind = '') {
  const width = 300; const height = 120; const left = 28; const bottom = 16;
  const x = (i) => left + (values.length < 2 ? (width - left) / 2 : (i * (width - left - 8)) / (values.length - 1));
  const y = (v) => 6 + (1 - v) * (height - bottom - 6);
  const grid = [0, 0.5, 1].map((v) => `<line class="grid" x1="${left}" x2="${width - 4}" y1="${y(v)}" y2="${y(v)}"/><text x="2" y="${y(v) + 3}">${Math.round(v * 100)}%</text>`).join('');
  const points = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  // A dot per game (filled for a win where `marks` says), so one game shows too.
  const dots = values.map((v, i) => `<circle class="${marks ? (marks[i] ? 'won' : 'lost') : `point ${kind}`}" cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3"/>`).join('');
  return `<svg class="plot" id="${id}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-title">
    <title id="${id}-title">${escapeHtml(title)}</title>${grid}
    <line class="axis" x1="${left}" x2="${left}" y1="4" y2="${height - bottom}"/>
    <line class="axis" x1="${left}" x2="${width - 4}" y1="${height - bottom}" y2="${height - bottom}"/>
    ${values.length ? `<polyline class="line ${kind}" points="${points}"/>` : ''}${dots}</svg>`;
}

function plots(timeline) {
  if (!timeline.length) return `<p class="help">${escapeHtml(t('profile.no_games'))}</p>`;
  let wins = 0;
  const winShare = timeline.map((game, i) => { wins += game.won ? 1 : 0; return wins / (i + 1); });
  let right = 0; let calls = 0;
  const callShare = [];
  for (const game of timeline) {
    right += game.calls_right; calls += game.calls_right + game.calls_wrong;
    if (calls) callShare.push(right / calls);
  }
  const lastWin = winShare[winShare.length - 1];
  const lastCall = callShare.length ? callShare[callShare.length - 1] : null;
  return `<div class="plots">
    <figure>${linePlot('plot-wins', t('profile.plot_wins'), winShare, timeline.map((g) => g.won))}
      <figcaption>${escapeHtml(t('profile.plot_wins_caption', {share: Math.round(lastWin * 100), n: timeline.length}))}</figcaption></figure>
    <figure>${linePlot('plot-calls', t('profile.plot_calls'), callShare, null, 'calls')}
      <figcaption>${escapeHtml(lastCall == null ? t('profile.no_calls') : t('profile.plot_calls_caption', {share: Math.round(lastCall * 100), n: calls}))}</figcaption></figure>
  </div>`;
}

function statGrid(total) {
  return `<dl class="stat-grid">${STATS.map((key) => `<div><dt>${escapeHtml(t(`profile.stat.${key}`))}</dt><dd data-stat="${key}">${total[key]}</dd></div>`).join('')}
    <div><dt>${escapeHtml(t('profile.stat.win_share'))}</dt><dd data-stat="win_share">${pct(total.wins, total.games)}</dd></div>
    <div><dt>${escapeHtml(t('profile.stat.call_share'))}</dt><dd data-stat="call_share">${pct(total.calls_right, total.calls_right + total.calls_wrong)}</dd></div></dl>`;
}

// Every counter per preset: on a phone only the four that matter most (the others are
// hidden by profile.css below 900 px, so the table fits without scrolling sideways).
const PRESET_COLS = ['games', 'wins', 'calls_right', 'best_streak', 'rounds', 'calls_wrong',
  'bluffs_caught', 'bluffs_survived', 'calza_right', 'calza_wrong'];
const PHONE_COLS = new Set(['games', 'wins', 'calls_right', 'best_streak']);

function presetTable(presets) {
  const names = Object.keys(presets).sort();
  if (!names.length) return '';
  const cls = (c) => (PHONE_COLS.has(c) ? '' : ' class="wide"');
  return `<div class="table-wrap" tabindex="0" role="region" aria-labelledby="presets-title"><table class="presets-table">
    <caption id="presets-title">${escapeHtml(t('profile.per_preset'))}</caption>
    <thead><tr><th scope="col">${escapeHtml(t('profile.preset'))}</th>${PRESET_COLS.map((c) => `<th scope="col"${cls(c)}>${escapeHtml(t(`profile.stat.${c}`))}</th>`).join('')}</tr></thead>
    <tbody>${names.map((name) => `<tr data-preset="${escapeHtml(name)}"><th scope="row">${escapeHtml(presetName(name))}</th>${PRESET_COLS.map((c) => `<td data-col="${c}"${cls(c)}>${presets[name][c]}</td>`).join('')}</tr>`).join('')}</tbody></table></div>`;
}

// The newest games, each a link to its page (the replay and the analysis).
function recentGames(timeline) {
  if (!timeline.length) return '';
  const items = timeline.slice(-10).reverse().map((game) => {
    const when = new Date(game.at * 1000).toLocaleDateString(document.documentElement.lang || 'en');
    return `<li><a href="/g/${encodeURIComponent(game.game_id)}">${escapeHtml(t(game.won ? 'profile.game_won' : 'profile.game_lost', {preset: presetName(game.preset), when}))}</a></li>`;
  }).join('');
  return `<h3>${escapeHtml(t('profile.recent'))}</h3><ol class="recent-games" id="recent-games">${items}</ol>`;
}

class ProfilePage {
  constructor() {
    this.data = null;
    this.board = [];
    this.transfer = null;
    this.confirmForget = false;
    this.gone = false;
    this.unknown = false;
    this.claimCode = '';
    const match = location.hash.match(/^#claim=([A-Za-z0-9-]{1,40})$/);
    if (match) {
      this.claimCode = match[1];
      history.replaceState(null, '', location.pathname); // the code leaves the address bar
    }
  }

  async load() {
    if (this.claimCode && !profileId()) {
      // A new device opened a transfer link: nothing is made here before the claim.
      this.unknown = true;
      this.render();
      return;
    }
    // A new profile is named in the page's language (the server would say "Player").
    const secret = await ensureProfile(memory.name || t('profile.default_name'));
    // Not made just now (too many new profiles from this address, no network): say why,
    // with a way to try again; it is not a profile the server forgot.
    this.refused = secret ? null : profileRefusal();
    if (!secret) { this.unknown = !this.refused; this.render(); return; }
    const answer = await profileCall('/api/profile/me');
    if (answer.status === 404) { this.unknown = true; this.data = null; }
    else if (answer.ok) { this.unknown = false; this.data = answer.data; }
    else toast(errorText(answer.data));
    const board = await fetch('/api/leaderboard').then((r) => r.json()).catch(() => ({players: []}));
    this.board = board.players || [];
    this.render();
  }

  render() {
    document.title = `dudo · ${t('profile.title')}`;
    if (this.gone) {
      main.innerHTML = `<section class="card"><h1>${escapeHtml(t('profile.forgotten'))}</h1><p>${escapeHtml(t('profile.forgotten_help'))}</p><p><a href="/">${escapeHtml(t('table.home'))}</a></p></section>`;
      return;
    }
    if (this.refused) {
      main.innerHTML = `<section class="card"><h1>${escapeHtml(t('profile.not_made'))}</h1><p id="profile-refused">${escapeHtml(errorText(this.refused))}</p>
        <button id="retry-profile" class="primary">${escapeHtml(t('profile.retry'))}</button></section>`;
      this.wire();
      return;
    }
    if (this.unknown) {
      const [heading, help] = this.claimCode && !profileId() ? ['profile.claim_first', 'profile.claim_first_help'] : ['profile.unknown', 'profile.unknown_help'];
      main.innerHTML = `<section class="card"><h1>${escapeHtml(t(heading))}</h1><p>${escapeHtml(t(help))}</p>
        <button id="start-new" class="primary">${escapeHtml(t('profile.start_new'))}</button></section>${this.claimCard()}`;
      this.wire();
      return;
    }
    if (!this.data) return;
    const {profile, stats} = this.data;
    const rating = profile.rating;
    main.innerHTML = `
      <section class="card profile-head-card">
        <div class="profile-head">${avatarSvg(profile.avatar, 56)}<h1 id="profile-name">${nameHtml(profile.name)}</h1></div>
        <p class="profile-id">${escapeHtml(t('profile.id', {id: profile.id}))}</p>
        <form id="name-form" class="inline-form"><label>${escapeHtml(t('profile.name'))}<input id="profile-name-input" name="name" maxlength="${MOST_NAME}" autocomplete="nickname" value="${escapeHtml(profile.name)}"></label>
          <button class="secondary" type="submit">${escapeHtml(t('profile.save'))}</button></form>
        <p id="rating-line">${escapeHtml(rating.games ? t('profile.rating', {rating: decimal(rating.shown, 1), n: rating.games}) : t('profile.unrated'))}</p>
      </section>
      <section class="card" aria-labelledby="stats-title"><h2 id="stats-title">${escapeHtml(t('profile.stats'))}</h2>
        ${statGrid(stats.total)}${presetTable(stats.presets)}
        <p class="help">${escapeHtml(t('profile.stats_help'))}</p></section>
      <section class="card" aria-labelledby="plots-title"><h2 id="plots-title">${escapeHtml(t('profile.over_time'))}</h2>${plots(stats.timeline)}${recentGames(stats.timeline)}</section>
      ${this.boardCard(profile)}
      ${this.transferCard()}
      ${this.claimCard()}
      <section class="card" aria-labelledby="data-title"><h2 id="data-title">${escapeHtml(t('profile.your_data'))}</h2>
        <p class="help">${escapeHtml(t('profile.data_help'))}</p>
        <p><button id="export" class="secondary">${escapeHtml(t('profile.export'))}</button>
        ${this.confirmForget ? '' : `<button id="forget" class="danger">${escapeHtml(t('profile.forget'))}</button>`}</p>
        ${this.confirmForget ? `<p id="forget-why">${escapeHtml(t('profile.forget_sure'))}</p><p><button id="forget-yes" class="danger primary" aria-describedby="forget-why">${escapeHtml(t('profile.forget_yes'))}</button> <button id="forget-no" class="secondary">${escapeHtml(t('profile.forget_no'))}</button></p>` : ''}
      </section>`;
    this.wire();
  }

  boardCard(profile) {
    const rows = this.board.map((p) => `<tr><td>${p.place}</td><th scope="row"><span class="board-name">${avatarSvg(p.avatar, 20)} ${nameHtml(p.name)}</span></th><td>${decimal(p.rating.shown, 1)}</td><td>${p.rating.games}</td></tr>`).join('');
    return `<section class="card" aria-labelledby="board-title"><h2 id="board-title">${escapeHtml(t('profile.leaderboard'))}</h2>
      <p><label class="check"><input type="checkbox" id="board-opt-in" ${profile.leaderboard ? 'checked' : ''}> ${escapeHtml(t('profile.leaderboard_join'))}</label></p>
      <p class="help">${escapeHtml(t('profile.leaderboard_help'))}</p>
      ${rows ? `<div class="table-wrap"><table class="board-table" id="board"><thead><tr><th scope="col">#</th><th scope="col">${escapeHtml(t('profile.name'))}</th><th scope="col">${escapeHtml(t('profile.rating_col'))}</th><th scope="col">${escapeHtml(t('profile.stat.games'))}</th></tr></thead><tbody>${rows}</tbody></table></div>` : `<p>${escapeHtml(t('profile.leaderboard_empty'))}</p>`}
    </section>`;
  }

  transferCard() {
    const made = this.transfer;
    return `<section class="card" aria-labelledby="move-title"><h2 id="move-title">${escapeHtml(t('profile.move'))}</h2>
      <p class="help">${escapeHtml(t('profile.move_help'))}</p>
      ${made ? `<p>${escapeHtml(t('profile.move_code'))} <span class="transfer-code" id="transfer-code">${escapeHtml(made.code)}</span></p>
        <p><a id="transfer-link" href="${escapeHtml(made.link)}">${escapeHtml(t('profile.move_link'))}</a></p>
        <div class="transfer-qr" role="img" aria-label="${escapeHtml(t('profile.move_qr'))}">${made.qr}</div>
        <p class="help">${escapeHtml(t('profile.move_expires', {minutes: 10}))}</p>` : `<button id="make-transfer" class="secondary">${escapeHtml(t('profile.move_make'))}</button>`}
    </section>`;
  }

  claimCard() {
    return `<section class="card" aria-labelledby="claim-title"><h2 id="claim-title">${escapeHtml(t('profile.claim'))}</h2>
      <p class="help">${escapeHtml(t('profile.claim_help'))}</p>
      <form id="claim-form" class="inline-form"><label>${escapeHtml(t('profile.claim_code'))}<input id="claim-code" name="code" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" value="${escapeHtml(this.claimCode)}"></label>
        <button class="primary" type="submit">${escapeHtml(t('profile.claim_go'))}</button></form></section>`;
  }

  wire() {
    const on = (id, event, handler) => { const el = document.getElementById(id); if (el) el.addEventListener(event, handler); };
    on('retry-profile', 'click', () => this.load());
    on('start-new', 'click', () => { dropProfile(); this.unknown = false; this.claimCode = ''; this.load(); });
    on('name-form', 'submit', async (event) => {
      event.preventDefault();
      const name = document.getElementById('profile-name-input').value;
      const answer = await profileCall('/api/profile/edit', {name});
      if (!answer.ok) { toast(errorText(answer.data)); return; }
      this.data.profile = answer.data.profile;
      live.textContent = t('profile.saved');
      this.render();
    });
    on('board-opt-in', 'change', async (event) => {
      const answer = await profileCall('/api/profile/edit', {leaderboard: event.target.checked});
      if (!answer.ok) { toast(errorText(answer.data)); return; }
      live.textContent = t(event.target.checked ? 'profile.leaderboard_joined' : 'profile.leaderboard_left');
      await this.load();
    });
    on('make-transfer', 'click', async () => {
      const answer = await profileCall('/api/profile/transfer', {origin: location.origin});
      if (!answer.ok) { toast(errorText(answer.data)); return; }
      this.transfer = answer.data;
      this.render();
      document.getElementById('transfer-code')?.focus?.();
    });
    on('claim-form', 'submit', async (event) => {
      event.preventDefault();
      const code = document.getElementById('claim-code').value.trim();
      const answer = await claimProfile(code);
      if (!answer.ok) { this.claimCode = code; toast(errorText(answer.data)); return; }
      this.claimCode = '';
      toast(t('profile.claimed', {name: answer.data.profile.name}), 'info');
      this.unknown = false;
      await this.load();
    });
    on('export', 'click', async () => {
      const answer = await profileCall('/api/profile/export');
      if (!answer.ok) { toast(errorText(answer.data)); return; }
      const blob = new Blob([JSON.stringify(answer.data, null, 2)], {type: 'application/json'});
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = `dudo-profile-${answer.data.profile.id}.json`;
      document.body.append(link);
      link.click();
      link.remove();
    });
    on('forget', 'click', () => { this.confirmForget = true; this.render(); document.getElementById('forget-no')?.focus(); });
    on('forget-no', 'click', () => { this.confirmForget = false; this.render(); });
    on('forget-yes', 'click', async () => {
      const answer = await profileCall('/api/profile/forget');
      if (!answer.ok) { toast(errorText(answer.data)); return; }
      dropProfile();
      this.gone = true;
      this.render();
    });
  }
}

async function start() {
  await setLanguage(pickLanguage());
  const select = document.getElementById('lang-select');
  select.value = document.documentElement.lang;
  const page = new ProfilePage();
  window.dudo = {page};
  select.addEventListener('change', async () => { await setLanguage(select.value, true); page.render(); });
  await page.load();
}

start();
