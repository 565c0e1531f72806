// A room's series: the standings across the rematches of an evening, shown beside the
// table between games and after the last one (GET /api/rooms/CODE/series). The table
// asks for it when a game ends; the server enters a game a moment after its game-over
// state goes out, so an answer that does not have the game yet is asked again.
import {decimal, t} from './i18n.js';
import {escapeHtml, nameHtml} from './page.js';

export class SeriesPanel {
  constructor(code, redraw) {
    this.code = code;
    this.redraw = redraw;
    this.data = null;
    this.wanted = 0; // the number of games the room has played
    this.tries = 0;
  }

  // Called on every draw with the room's game number: fetches once per finished game.
  follow(games) {
    if (games <= this.wanted) return;
    this.wanted = games;
    this.tries = 0;
    this.fetch();
  }

  async fetch() {
    const wanted = this.wanted;
    try {
      const response = await fetch(`/api/rooms/${encodeURIComponent(this.code)}/series`);
      if (response.ok) this.data = await response.json();
    } catch {
      // offline for a moment: the next game's end asks again
    }
    if (wanted !== this.wanted) return;
    if ((!this.data || this.data.games < wanted) && this.tries < 8) {
      this.tries += 1;
      setTimeout(() => this.fetch(), 400);
      return;
    }
    this.redraw();
  }

  panel() {
    const data = this.data;
    if (!data?.games) return '';
    const rows = data.rows.map((row, i) => `<tr><td>${i + 1}</td><th scope="row">${nameHtml(row.name)}</th><td>${row.wins}</td><td>${row.games}</td><td>${decimal(row.average_place, 1)}</td></tr>`).join('');
    return `<section class="card series" data-key="series" aria-labelledby="series-title"><h2 id="series-title">${escapeHtml(t('series.title', {n: data.games}))}</h2>
      <div class="table-wrap"><table class="series-table" id="series-table"><thead><tr><th scope="col">#</th><th scope="col">${escapeHtml(t('series.player'))}</th><th scope="col">${escapeHtml(t('series.wins'))}</th><th scope="col">${escapeHtml(t('series.games'))}</th><th scope="col">${escapeHtml(t('series.place'))}</th></tr></thead>
      <tbody>${rows}</tbody></table></div>
      <p class="help"><a href="/me">${escapeHtml(t('series.your_stats'))}</a></p></section>`;
  }
}
