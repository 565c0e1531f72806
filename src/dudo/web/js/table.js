// The table: one WebSocket, and a drawing of whatever state the server last sent.
// Nothing here decides a rule: the legal bids and calls come from the server's view.
import {announce, api, clientId, escapeHtml, memory, randomHex, toast} from './page.js';
import {die} from './dice.js';
import {bidWords, lang, t} from './i18n.js';
import {bidOdds} from './odds.js';
import {Practice} from './practice.js';

const EMOTES = ['👍', '😂', '😮', '🤔', '😈', '🎲'];

function seatPositions(count) {
  // Clockwise from the bottom (your own seat) around an ellipse, in percent.
  return Array.from({length: count}, (_, i) => {
    const angle = Math.PI / 2 + (i * 2 * Math.PI) / count;
    return {x: 50 + 41 * Math.cos(angle), y: 50 + 39 * Math.sin(angle)};
  });
}

export function openTable(main, code, params) {
  return new Table(main, code, params);
}

class Table {
  constructor(main, code, params) {
    this.main = main;
    this.code = code;
    this.session = memory.seat(code);
    this.watch = params.get('watch') === '1' && !this.session;
    this.state = null;
    this.socket = null;
    this.retry = 0;
    this.closed = false;
    this.seededRound = null;
    this.pick = null; // [quantity, face] chosen in the picker
    this.emotes = new Map(); // seat -> [emote, until]
    this.showOdds = localStorage.getItem('dudo.odds') === '1';
    this.practice = memory.practice(code) ? new Practice(this) : null;
    if (this.practice) this.showOdds = localStorage.getItem('dudo.odds') !== '0';
    this.startSent = false;
    this.lastTurnAnnounced = null;
    this.tick = setInterval(() => this.updateClocks(), 250);
    this.joinError = '';
    if (this.session || this.watch) this.connect();
  }

  close() {
    this.closed = true;
    clearInterval(this.tick);
    if (this.socket) this.socket.close();
  }

  // -- the connection -----------------------------------------------------------------

  connect() {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    // The seat token goes as a WebSocket subprotocol, so no URL (nor a proxy's log) has it.
    const protocols = ['dudo.v1', ...(this.session ? [`token.${this.session.token}`] : [])];
    const socket = new WebSocket(
      `${scheme}://${location.host}/ws/${this.code}?client=${clientId()}`, protocols);
    this.socket = socket;
    socket.addEventListener('open', () => { this.retry = 0; this.offline = false; });
    socket.addEventListener('message', (event) => this.receive(JSON.parse(event.data)));
    socket.addEventListener('close', (event) => {
      if (this.closed || socket !== this.socket) return;
      if (event.code === 4401) { // the token is not valid here any more: ask again
        memory.dropSeat(this.code);
        this.session = null;
        this.state = null;
        this.joinError = t('table.seat_lost');
        this.render();
        return;
      }
      if (event.code === 4404) { this.missing = true; this.render(); return; }
      if (event.code === 4410) { // the host gave the seat away: watch instead
        memory.dropSeat(this.code);
        this.session = null;
        this.watch = true;
        toast(t('table.removed'));
        this.connect();
        return;
      }
      // Opened in another tab (which now has the seat), or from another site: trying
      // again would only take the seat back and forth.
      if (event.code === 4409 || event.code === 4403) {
        this.offline = true;
        toast(t(event.code === 4409 ? 'table.replaced' : 'error.generic'));
        this.render();
        return;
      }
      this.offline = true;
      this.render();
      this.retry = Math.min(this.retry + 1, 6);
      setTimeout(() => this.connect(), 300 * 2 ** (this.retry - 1));
    });
    clearInterval(this.pinger);
    this.pinger = setInterval(() => this.send({type: 'ping'}), 20000);
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
      return true;
    }
    toast(t('table.offline'));
    return false;
  }

  act(type, fields = {}) {
    const message = {type, id: randomHex(8), ...fields};
    if (type === 'bid' || type === 'call') message.version = this.state.version;
    this.send(message);
  }

  receive(message) {
    if (message.type === 'state') {
      const before = this.state;
      this.state = message;
      this.sendSeed();
      this.narrate(before, message);
      if (this.practice && message.you.host && message.room.status === 'lobby' && !this.startSent
          && !message.room.seats.some((seat) => seat.kind === 'open')) {
        this.startSent = true;
        this.act('start');
      }
      this.render();
    } else if (message.type === 'error') {
      if (message.code === 'no_room') { this.missing = true; this.render(); return; }
      // A seed that came too late for its round is not news to the player: the server
      // deals that round with its own bound seed (and the reveal shows which was used).
      if (message.code === 'wrong_round') return;
      toast(message.message);
      announce(message.message);
    } else if (message.type === 'emote') {
      this.emotes.set(message.seat, [message.emote, Date.now() + 3000]);
      const name = this.state?.room.seats[message.seat]?.name ?? '';
      announce(`${name}: ${message.emote}`);
      this.render();
      setTimeout(() => this.render(), 3100);
    }
  }

  // A fresh seed of this seat for every round it has not yet seeded (fair dice).
  // Only the round waiting to be rolled takes seeds; the message names it, so the server
  // uses the seed for that round or refuses it.
  sendSeed() {
    const fair = this.state.fair;
    const game = this.state.game;
    if (!fair || fair.round == null || this.state.you.seat == null) return;
    if (!game || game.phase !== 'roll') return;
    const key = `${fair.game_id}:${fair.round}`;
    if (this.seededRound === key) return;
    this.seededRound = key;
    this.send({type: 'seed', round: fair.round, seed: randomHex(32)});
  }

  name(seat) {
    return this.state?.room.seats[seat]?.name || t('seat.number', {n: seat + 1});
  }

  narrate(before, state) {
    for (const event of state.events || []) {
      if (event.event === 'bid') {
        announce(t('say.bid', {name: this.name(event.seat), bid: bidWords(event.quantity, event.face)}));
      } else if (event.event === 'reveal') {
        announce(this.revealSentence(event));
      } else if (event.event === 'out') {
        announce(t('say.out', {name: this.name(event.seat)}));
      } else if (event.event === 'game_over') {
        announce(t('say.winner', {names: event.winners.map((s) => this.name(s)).join(', ')}));
      } else if (event.event === 'round') {
        announce(t('say.round', {n: event.number, name: this.name(event.opener)}));
      }
    }
    const game = state.game;
    const diceKey = game && game.dice.length ? `${state.fair?.game_id}:${game.round}` : null;
    if (diceKey && diceKey !== this.announcedDice) announce(t('say.your_dice', {dice: game.dice.join(', ')}));
    if (diceKey) this.announcedDice = diceKey;
    const mine = game && game.phase === 'bidding' && game.turn === state.you.seat;
    const turnKey = mine ? `${state.fair?.game_id}:${game.round}:${game.bids.length}` : null;
    if (mine && turnKey !== this.lastTurnAnnounced) announce(t('say.your_turn'));
    this.lastTurnAnnounced = turnKey;
  }

  outcomeSentence(reveal) {
    if (reveal.loser == null) return t(reveal.change ? 'reveal.wins_die' : 'reveal.exact_no_change', {name: this.name(reveal.caller)});
    if (this.state?.room.rules.format === 'points') return t('reveal.takes_points', {name: this.name(reveal.loser), n: reveal.change});
    return t('reveal.loses', {name: this.name(reveal.loser), n: reveal.change});
  }

  revealSentence(reveal) {
    const [q, f] = reveal.bid;
    const call = reveal.call === 'calza' ? t('call.calza') : t('call.dudo');
    return `${t('reveal.sentence', {caller: this.name(reveal.caller), call, bid: bidWords(q, f),
      count: reveal.count})} ${this.outcomeSentence(reveal)}`;
  }

  // -- joining ------------------------------------------------------------------------

  async renderJoin() {
    const info = await api(`/api/rooms/${this.code}`);
    if (!info.ok) {
      this.main.innerHTML = `<section class="card"><h1>${escapeHtml(t('table.no_room', {code: this.code}))}</h1><p><a href="/">${escapeHtml(t('table.home'))}</a></p></section>`;
      return;
    }
    const room = info.data;
    const open = room.status === 'lobby' && room.seats.some((s) => s.kind === 'open');
    const seats = room.seats.map((s, i) => `<li>${escapeHtml(s.kind === 'open' ? t('seat.open') : s.name)}${i === 0 ? ` <span class="badge">${escapeHtml(t('seat.host'))}</span>` : ''}</li>`).join('');
    this.main.innerHTML = `
      <section class="card join">
        <h1>${escapeHtml(t('join.title'))} <span class="code">${this.code}</span></h1>
        <p class="lead">${escapeHtml(t('join.invite', {name: room.seats[0]?.name || ''}))}</p>
        ${this.joinError ? `<p class="notice">${escapeHtml(this.joinError)}</p>` : ''}
        <ol class="seat-list">${seats}</ol>
        ${open ? `<form id="join-form">
          <label for="name" class="big-label">${escapeHtml(t('home.name'))}</label>
          <input id="name" maxlength="24" autocomplete="nickname" value="${escapeHtml(memory.name)}" required>
          <button class="primary" id="take-seat" type="submit">${escapeHtml(t('join.take_seat'))}</button>
        </form>` : `<p>${escapeHtml(t(room.status === 'lobby' ? 'join.full' : 'join.started'))}</p>`}
        <p><button class="secondary" id="watch">${escapeHtml(t('join.watch'))}</button>
        <a href="${rulesHref(room.rules)}" target="_blank">${escapeHtml(t('table.rules'))}</a></p>
      </section>`;
    this.main.querySelector('#watch').addEventListener('click', () => {
      this.watch = true;
      this.connect();
      this.render();
    });
    const form = this.main.querySelector('#join-form');
    if (form) {
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        const name = this.main.querySelector('#name').value.trim();
        if (!name) return;
        memory.name = name;
        const invite = new URLSearchParams(location.search).get('invite');
        const answer = await api(`/api/rooms/${this.code}/join`, invite ? {name, invite} : {name});
        if (!answer.ok) { toast(answer.data.message || t('error.generic')); return; }
        memory.keepSeat(this.code, answer.data);
        this.session = memory.seat(this.code);
        this.connect();
        this.render();
      });
    }
  }

  // -- drawing --------------------------------------------------------------------------

  render() {
    if (this.closed) return;
    if (this.missing) {
      this.main.innerHTML = `<section class="card"><h1>${escapeHtml(t('table.no_room', {code: this.code}))}</h1><p><a href="/">${escapeHtml(t('table.home'))}</a></p></section>`;
      return;
    }
    if (!this.session && !this.watch) { this.renderJoin(); return; }
    if (!this.state) {
      this.main.innerHTML = `<p class="loading">${escapeHtml(t('table.connecting'))}</p>`;
      return;
    }
    const focused = document.activeElement?.id;
    const {room, game, you} = this.state;
    document.getElementById('rules-link').href = rulesHref(room.rules);
    document.body.dataset.status = room.status;
    document.body.dataset.phase = game ? game.phase : 'lobby';
    document.body.dataset.version = String(this.state.version);
    document.body.dataset.legal = JSON.stringify(this.legal());
    const parts = [this.head()];
    if (room.status === 'lobby') parts.push(this.lobbyPanel());
    else {
      parts.push(this.tableDrawing());
      parts.push(this.ownDice());
      if (this.practice) parts.push(this.practice.panel());
      parts.push(this.actions());
      parts.push(this.history());
    }
    if (you.seat != null) parts.push(this.emoteBar());
    if (this.practice && room.status === 'lobby') parts.push(this.practice.panel());
    this.main.innerHTML = `<div class="table-page ${room.status}">${parts.join('')}</div>`;
    this.wire();
    if (focused) document.getElementById(focused)?.focus();
    this.updateClocks();
  }

  head() {
    const {room, you} = this.state;
    const link = this.shareLink();
    return `<section class="room-head">
      <div><span class="label">${escapeHtml(t('table.room'))}</span> <span class="code" aria-label="${escapeHtml(t('table.code_is', {code: this.code.split('').join(' ')}))}">${this.code}</span></div>
      <div class="head-buttons">
        <button id="copy-link" class="small secondary" data-link="${escapeHtml(link)}">${escapeHtml(t('table.copy_link'))}</button>
        <a class="small button-link" href="${rulesHref(room.rules)}" target="_blank">${escapeHtml(t('table.rules'))}</a>
        ${you.role === 'spectator' ? `<span class="badge">${escapeHtml(t('table.watching'))}</span>` : ''}
        ${this.offline ? `<span class="badge warn">${escapeHtml(t('table.reconnecting'))}</span>` : ''}
      </div></section>`;
  }

  // The host's link carries the room's invite key: it lets friends in even when the
  // room is locked, which the code alone never does.
  shareLink() {
    const {you} = this.state;
    const invite = you.host && you.invite ? `?invite=${encodeURIComponent(you.invite)}` : '';
    return `${location.origin}/r/${this.code}${invite}`;
  }

  lobbyPanel() {
    const {room, you} = this.state;
    const link = this.shareLink();
    const seats = room.seats.map((seat, index) => {
      let who;
      if (seat.kind === 'human') who = `${escapeHtml(seat.name)}${seat.connected ? '' : ` <span class="badge">${escapeHtml(t('seat.away'))}</span>`}`;
      else if (seat.kind === 'bot') who = `${escapeHtml(seat.name)} <span class="badge">${escapeHtml(t(`seat.bot_${seat.level}`))}</span>`;
      else who = `<em>${escapeHtml(t('seat.open'))}</em>`;
      let control = '';
      if (you.host && seat.kind !== 'human') {
        const value = seat.kind === 'bot' ? seat.level : '';
        control = `<label class="sr-only" for="seat-kind-${index}">${escapeHtml(t('create.seat', {n: index + 1}))}</label>
          <select id="seat-kind-${index}" data-configure-seat="${index}">
          ${['', 'easy', 'normal', 'hard'].map((v) => `<option value="${v}" ${v === value ? 'selected' : ''}>${escapeHtml(v ? t(`seat.bot_${v}`) : t('seat.open'))}</option>`).join('')}
          </select>`;
      }
      return `<li><span class="seat-no">${index + 1}</span> <span class="who">${who}${index === you.seat ? ` <span class="badge you">${escapeHtml(t('seat.you'))}</span>` : ''}</span> ${control}</li>`;
    }).join('');
    return `<section class="card lobby">
      <h1>${escapeHtml(t('lobby.title'))}</h1>
      <p>${escapeHtml(t('lobby.share'))}</p>
      <p class="share-code" aria-hidden="true">${this.code}</p>
      <p class="share-link"><input id="share-link" readonly value="${escapeHtml(link)}" aria-label="${escapeHtml(t('lobby.link'))}"> <button id="copy-link-2" class="secondary" data-link="${escapeHtml(link)}">${escapeHtml(t('table.copy_link'))}</button></p>
      <h2>${escapeHtml(t('lobby.seats'))}</h2>
      <ol class="seat-list">${seats}</ol>
      <p class="help">${escapeHtml(t('lobby.rules_summary'))} <a href="${rulesHref(room.rules)}" target="_blank">${escapeHtml(t('table.rules'))}</a>${room.timer ? ` · ${escapeHtml(t('create.seconds', {n: room.timer}))}` : ''}</p>
      ${you.host ? `<p><label class="check"><input type="checkbox" id="lock-room" ${room.locked ? 'checked' : ''}> ${escapeHtml(t('lobby.lock'))}</label></p>` : ''}
      ${!you.host && room.locked ? `<p class="help">${escapeHtml(t('lobby.locked'))}</p>` : ''}
      ${you.host ? `<div class="buttons"><button id="fill-bots" class="secondary">${escapeHtml(t('lobby.fill_bots'))}</button>
        <button id="start" class="primary">${escapeHtml(t('lobby.start'))}</button></div>`
        : `<p class="notice">${escapeHtml(t('lobby.wait_host'))}</p>`}
    </section>`;
  }

  ordered() {
    // Seats in drawing order: your own first (at the bottom), then clockwise.
    const count = this.state.room.seats.length;
    const first = this.state.you.seat ?? 0;
    return Array.from({length: count}, (_, i) => (first + i) % count);
  }

  showingReveal() {
    const game = this.state.game;
    return game && game.phase !== 'bidding' && game.last_reveal;
  }

  seatCard(index) {
    const {room, game, you} = this.state;
    const seat = room.seats[index];
    const count = game.dice_counts[index];
    const lost = Math.max(0, room.rules.starting_dice - count);
    const reveal = this.showingReveal() ? game.last_reveal : null;
    const turn = game.phase === 'bidding' && game.turn === index;
    const classes = ['seat'];
    if (turn) classes.push('turn');
    if (!count && room.rules.format !== 'points') classes.push('out');
    if (index === you.seat) classes.push('me');
    let dice;
    if (reveal && reveal.cups[index] && reveal.cups[index].length) {
      const [, face] = reveal.bid;
      dice = reveal.cups[index].map((d) => {
        const counts = d === face || (reveal.wild && d === 1 && face !== 1);
        return die(d, {size: 22, counts, label: counts ? t('die.counts', {face: d}) : t('die.face', {face: d})});
      }).join('');
    } else {
      dice = Array.from({length: count}, () => die(0, {size: 18})).join('')
        + Array.from({length: lost}, () => die(0, {size: 18, cls: 'lost'})).join('');
    }
    const status = [];
    if (seat.kind === 'bot') status.push(t(`seat.bot_${seat.level}`));
    if (seat.kind === 'human' && !seat.connected) status.push(seat.bot_playing ? t('seat.bot_playing') : t('seat.away'));
    if (index === you.seat) status.push(t('seat.you'));
    if (!count && room.rules.format !== 'points') status.push(t('seat.out'));
    const emote = this.emotes.get(index);
    const bubble = emote && emote[1] > Date.now() ? `<span class="bubble" aria-hidden="true">${emote[0]}</span>` : '';
    const points = room.rules.format === 'points' ? `<span class="points">${escapeHtml(t('seat.points', {n: game.points[index]}))}</span>` : '';
    const changed = reveal && reveal.change && (reveal.loser === index || (reveal.loser == null && reveal.caller === index));
    const sign = reveal && (reveal.loser !== index || room.rules.format === 'points') ? '+' : '−';
    const changeMark = changed ? `<span class="change ${reveal.loser === index ? 'minus' : 'plus'}" aria-hidden="true">${sign}${reveal.change}</span>` : '';
    return `<li class="${classes.join(' ')}" data-seat="${index}">
      <span class="seat-name">${turn ? '<span aria-hidden="true">▶ </span>' : ''}${escapeHtml(seat.name)}</span>
      <span class="seat-status">${escapeHtml(status.join(' · '))}</span>
      <span class="seat-dice" ${reveal ? `role="group" aria-label="${escapeHtml(t('table.cup_of', {name: seat.name}))}"` : 'aria-hidden="true"'}>${dice}</span>
      <span class="sr-only">${escapeHtml(t('seat.dice', {n: count}))}${lost ? `, ${escapeHtml(t('seat.lost', {n: lost}))}` : ''}</span>
      ${points}${changeMark}
      ${turn && this.state.deadline ? `<span class="timer" data-deadline="${this.state.deadline}"></span>` : ''}
      ${bubble}</li>`;
  }

  centre() {
    const {game, room} = this.state;
    const badges = [];
    if (game.palifico) badges.push(`<span class="badge pal">${escapeHtml(t('table.palifico'))}</span>`);
    if (room.rules.wild_ones && game.phase === 'bidding') badges.push(`<span class="badge">${escapeHtml(t(game.wild ? 'table.ones_wild' : 'table.ones_not_wild'))}</span>`);
    if (game.phase === 'over') {
      const names = game.winners.map((s) => this.name(s)).join(', ');
      const last = game.last_reveal;
      const summary = last ? `<p class="result">${escapeHtml(this.revealSentence(last))}</p>` : '';
      return `<div class="centre over"><p class="big"><span aria-hidden="true">🏆 </span>${escapeHtml(t('table.winner', {names}))}</p>${summary}
        ${this.state.you.seat != null ? `<button id="rematch" class="primary">${escapeHtml(t('table.rematch'))}</button>` : ''}
        <a href="/" class="button-link small">${escapeHtml(t('table.new_room'))}</a></div>`;
    }
    if (game.phase === 'roll') {
      const reveal = game.last_reveal;
      if (!reveal) return `<div class="centre"><p>${escapeHtml(t('table.rolling'))}</p></div>`;
      const [q, f] = reveal.bid;
      const verdict = reveal.outcome === 'holds' ? t('reveal.holds') : reveal.outcome === 'fails' ? t('reveal.fails')
        : reveal.outcome === 'exact' ? t('reveal.exact') : t('reveal.not_exact');
      return `<div class="centre reveal" id="reveal">
        <p class="call-name">${escapeHtml(t('reveal.caller', {name: this.name(reveal.caller), call: reveal.call === 'calza' ? t('call.calza') : t('call.dudo_shout')}))}</p>
        <p class="count-line"><span class="count">${reveal.count}</span> × ${die(f, {size: 30, label: t('die.face', {face: f})})} <span class="vs">${escapeHtml(t('reveal.vs', {bid: bidWords(q, f)}))}</span></p>
        <p class="verdict">${escapeHtml(verdict)}</p>
        <p class="result">${escapeHtml(this.outcomeSentence(reveal))}</p>
        ${this.state.you.seat != null ? `<button id="next-round" class="primary small">${escapeHtml(t('table.next_round'))} <span data-roll-at="${this.state.roll_at || ''}"></span></button>` : ''}
      </div>`;
    }
    const standing = game.standing;
    const turnName = game.turn === this.state.you.seat ? t('table.you') : this.name(game.turn);
    if (!standing) {
      return `<div class="centre"><p class="hint">${escapeHtml(t('table.opens', {name: turnName}))}</p>${badges.join(' ')}</div>`;
    }
    const [q, f] = standing;
    return `<div class="centre" id="standing">
      <p class="label">${escapeHtml(t('table.standing', {name: this.name(game.bidder)}))}</p>
      <p class="standing-bid"><span class="q">${q}</span> <span aria-hidden="true">×</span> ${die(f, {size: 40, label: t('die.face', {face: f})})}</p>
      <p class="words">${escapeHtml(bidWords(q, f))}</p>
      <p class="hint">${escapeHtml(t('table.must_beat', {name: turnName, bid: bidWords(q, f)}))}</p>
      ${badges.join(' ')}</div>`;
  }

  tableDrawing() {
    const order = this.ordered();
    const positions = seatPositions(order.length);
    const seats = order.map((index, i) => this.seatCard(index).replace('<li ', `<li style="left:${positions[i].x.toFixed(1)}%;top:${positions[i].y.toFixed(1)}%" `)).join('');
    return `<section class="felt" aria-label="${escapeHtml(t('table.table'))}">
      <ol class="seats">${seats}</ol>${this.centre()}</section>`;
  }

  ownDice() {
    const {game, you} = this.state;
    if (you.seat == null || !game) return '';
    let body;
    if (game.dice.length) {
      const key = `${this.state.fair?.game_id}:${game.round}`;
      const fresh = this.rolledKey !== key;
      this.rolledKey = key;
      body = `<div class="my-dice${fresh ? ' fresh' : ''}" data-dice="${game.dice.join('')}" role="list" aria-label="${escapeHtml(t('table.your_dice'))}">${game.dice.map((d) => `<span role="listitem">${die(d, {size: 52, label: t('die.face', {face: d})})}</span>`).join('')}</div>`;
    } else if (game.phase === 'over') {
      return '';
    } else if (game.dice_counts[you.seat] === 0 && this.state.room.rules.format !== 'points') {
      body = `<p>${escapeHtml(t('table.you_are_out'))}</p>`;
    } else {
      body = `<p class="help">${escapeHtml(t(game.last_reveal && game.phase === 'roll' ? 'table.dice_at_seat' : 'table.dice_hidden'))}</p>`;
    }
    let odds = '';
    if (game.phase === 'bidding' && game.standing && game.dice.length && this.showOdds) {
      const [q, f] = game.standing;
      const o = bidOdds(game, q, f);
      odds = `<p class="odds" id="odds">${escapeHtml(t('odds.line', {
        chance: Math.round(o.chance * 100), bid: bidWords(q, f), own: o.own, unseen: o.unseen,
        expected: o.expected.toFixed(1), p: o.p > 0.2 ? '1/3' : '1/6'}))}</p>`;
    }
    return `<section class="mine"><h2 class="sr-only">${escapeHtml(t('table.your_dice'))}</h2>${body}
      ${game.phase === 'bidding' && game.dice.length ? `<label class="check small"><input type="checkbox" id="odds-toggle" ${this.showOdds ? 'checked' : ''}> ${escapeHtml(t('odds.toggle'))}</label>` : ''}${odds}</section>`;
  }

  legal() {
    const game = this.state.game;
    if (!game || game.phase !== 'bidding') return {bids: [], calls: []};
    return game.legal;
  }

  actions() {
    const {game, you} = this.state;
    if (you.seat == null || !game || game.phase !== 'bidding') return '';
    const legal = this.legal();
    const calls = legal.calls.map((call) => `<button id="call-${call}" class="call ${call}" aria-keyshortcuts="${call === 'dudo' ? 'L' : 'C'}">${escapeHtml(t(call === 'dudo' ? 'call.dudo_button' : 'call.calza_button'))}</button>`).join('');
    if (!legal.bids.length) {
      const waiting = game.dice_counts[you.seat] ? t('table.waiting_for', {name: this.name(game.turn)}) : '';
      return `<section class="actions" aria-label="${escapeHtml(t('table.actions'))}">${waiting ? `<p class="help">${escapeHtml(waiting)}</p>` : ''}${calls ? `<div class="calls">${calls}</div>` : ''}</section>`;
    }
    const bids = legal.bids;
    const has = (q, f) => bids.some(([bq, bf]) => bq === q && bf === f);
    if (!this.pick || !has(...this.pick)) this.pick = bids[0];
    const [q, f] = this.pick;
    const quantities = [...new Set(bids.map(([bq]) => bq))].sort((a, b) => a - b);
    const qi = quantities.indexOf(q);
    const faces = [1, 2, 3, 4, 5, 6].map((face) => {
      const ok = has(q, face);
      return `<button type="button" class="face" id="face-${face}" data-face="${face}" aria-pressed="${face === f}" ${ok ? '' : 'disabled'} aria-label="${escapeHtml(t(face === 1 ? 'face.aces' : 'face.many', {face}))}">${die(face, {size: 34})}</button>`;
    }).join('');
    const locked = game.palifico && new Set(bids.map(([, bf]) => bf)).size === 1;
    return `<section class="actions picker" aria-label="${escapeHtml(t('table.actions'))}">
      <p class="your-turn">${escapeHtml(t('table.your_turn'))}${this.state.deadline ? ` <span class="timer" data-deadline="${this.state.deadline}"></span>` : ''}</p>
      <div class="pick-row">
        <div class="stepper" role="group" aria-label="${escapeHtml(t('picker.quantity'))}">
          <button type="button" id="q-down" aria-label="${escapeHtml(t('picker.less'))}" ${qi <= 0 ? 'disabled' : ''}>−</button>
          <output id="q-value" aria-live="off">${q}</output>
          <button type="button" id="q-up" aria-label="${escapeHtml(t('picker.more'))}" ${qi >= quantities.length - 1 ? 'disabled' : ''}>+</button>
        </div>
        <span class="times" aria-hidden="true">×</span>
        <div class="faces" role="group" aria-label="${escapeHtml(t('picker.face'))}">${faces}</div>
      </div>
      ${this.showOdds && game.dice.length ? `<p class="help" id="pick-odds">${escapeHtml(t('odds.pick', {bid: bidWords(q, f), chance: Math.round(bidOdds(game, q, f).chance * 100)}))}</p>` : ''}
      ${locked ? `<p class="help">${escapeHtml(t('picker.locked', {face: bids[0][1]}))}</p>` : ''}
      <div class="calls">
        <button id="bid-go" class="primary bid">${escapeHtml(t('picker.bid', {bid: bidWords(q, f)}))}</button>
        ${calls}
      </div>
      <p class="help keys">${escapeHtml(t('picker.keys'))}</p></section>`;
  }

  history() {
    const {game} = this.state;
    if (!game) return '';
    // Between rounds the view's bids are the next round's (none yet): show the round
    // that was just called, which the reveal carries.
    const revealed = game.phase !== 'bidding' && game.last_reveal;
    const bids = revealed ? (game.last_reveal.bids || []) : game.bids;
    if (!bids.length) return '';
    const round = revealed ? game.round - (game.phase === 'over' ? 0 : 1) : game.round;
    const items = bids.slice().reverse().map(([seat, [q, f]]) =>
      `<li><span class="who">${escapeHtml(this.name(seat))}</span> <span class="what">${q} × ${die(f, {size: 18})}</span> <span class="sr-only">${escapeHtml(bidWords(q, f))}</span></li>`).join('');
    return `<section class="history"><h2>${escapeHtml(t('table.history', {n: round}))}</h2><ol reversed>${items}</ol></section>`;
  }

  emoteBar() {
    return `<section class="emotes" aria-label="${escapeHtml(t('table.reactions'))}">${EMOTES.map((e, i) =>
      `<button class="emote" data-emote="${e}" id="emote-${i}" aria-label="${escapeHtml(t(`emote.${i}`))}">${e}</button>`).join('')}</section>`;
  }

  updateClocks() {
    for (const element of this.main.querySelectorAll('[data-deadline]')) {
      const left = Math.max(0, Math.ceil(Number(element.dataset.deadline) - Date.now() / 1000));
      element.textContent = `⏱ ${left}s`;
      element.classList.toggle('low', left <= 5);
    }
    for (const element of this.main.querySelectorAll('[data-roll-at]')) {
      const at = Number(element.dataset.rollAt);
      element.textContent = at ? `(${Math.max(0, Math.ceil(at - Date.now() / 1000))})` : '';
    }
  }

  wire() {
    const on = (id, handler) => this.main.querySelector(`#${id}`)?.addEventListener('click', handler);
    const copy = (event) => {
      const link = event.currentTarget.dataset.link;
      const done = () => toast(t('table.copied'), 'info');
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(link).then(done, () => {});
      else { const input = this.main.querySelector('#share-link'); if (input) { input.select(); document.execCommand('copy'); done(); } }
    };
    on('copy-link', copy);
    on('copy-link-2', copy);
    on('start', () => this.act('start'));
    const lock = this.main.querySelector('#lock-room');
    if (lock) lock.addEventListener('change', () => this.act('configure', {locked: lock.checked}));
    on('fill-bots', () => {
      const seats = this.state.room.seats.map((s) => (s.kind === 'open' ? {kind: 'bot', level: 'easy'} : null));
      this.act('configure', {seats});
    });
    for (const select of this.main.querySelectorAll('[data-configure-seat]')) {
      select.addEventListener('change', () => {
        const index = Number(select.dataset.configureSeat);
        const seats = this.state.room.seats.map(() => null);
        seats[index] = select.value ? {kind: 'bot', level: select.value} : {kind: 'open'};
        this.act('configure', {seats});
      });
    }
    on('rematch', () => this.act('rematch'));
    on('next-round', () => this.act('next_round'));
    on('bid-go', () => { const [q, f] = this.pick; this.act('bid', {quantity: q, face: f}); });
    on('call-dudo', () => this.act('call', {call: 'dudo'}));
    on('call-calza', () => this.act('call', {call: 'calza'}));
    const bids = this.legal().bids;
    const quantities = [...new Set(bids.map(([q]) => q))].sort((a, b) => a - b);
    const move = (step) => {
      const at = quantities.indexOf(this.pick[0]) + step;
      if (at < 0 || at >= quantities.length) return;
      const q = quantities[at];
      const faces = bids.filter(([bq]) => bq === q).map(([, bf]) => bf);
      this.pick = [q, faces.includes(this.pick[1]) ? this.pick[1] : faces[0]];
      this.render();
    };
    on('q-down', () => move(-1));
    on('q-up', () => move(1));
    for (const button of this.main.querySelectorAll('.face')) {
      button.addEventListener('click', () => { this.pick = [this.pick[0], Number(button.dataset.face)]; this.render(); });
    }
    for (const button of this.main.querySelectorAll('[data-emote]')) {
      button.addEventListener('click', () => this.send({type: 'emote', emote: button.dataset.emote}));
    }
    this.main.querySelector('#odds-toggle')?.addEventListener('change', (event) => {
      this.showOdds = event.target.checked;
      localStorage.setItem('dudo.odds', this.showOdds ? '1' : '0');
      this.render();
    });
    if (this.practice) this.practice.wire(this.main);
    if (!this.keys) {
      this.keys = (event) => {
        if (event.target.matches('input, select, textarea') || event.ctrlKey || event.metaKey || event.altKey) return;
        const key = event.key.toLowerCase();
        const click = (id) => { const el = this.main.querySelector(`#${id}`); if (el && !el.disabled) { event.preventDefault(); el.click(); } };
        if (key === 'l') click('call-dudo');
        else if (key === 'c') click('call-calza');
        else if (key === 'b') click('bid-go');
        else if (key === '+' || key === '=') click('q-up');
        else if (key === '-') click('q-down');
        else if (/^[1-6]$/.test(key)) click(`face-${key}`);
      };
      document.addEventListener('keydown', this.keys);
    }
  }
}

export function rulesHref(rules) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(rules.overrides || rules)) query.set(key, String(value));
  query.set('lang', lang);
  return `/rules?${query}`;
}
