// The table: one WebSocket, and a drawing of whatever state the server last sent.
// Nothing here decides a rule: the legal bids and calls come from the server's view.
// Each state is drawn as markup and morphed into the page (morph.js): only what changed
// is touched, so focus, scroll and animations survive; clicks and changes are handled in
// one place (handle()), by the id or data attribute of what was pressed.
import {announce, api, clientId, cutName, errorText, escapeHtml, listNames, memory, nameHtml,
  randomHex, toast} from './page.js';
import {die} from './dice.js';
import {bidWords, has, lang, t} from './i18n.js';
import {bidOdds} from './odds.js';
import {Practice} from './practice.js';
import {rememberGame} from './mygames.js';
import {morph} from './morph.js';
import {SeriesPanel} from './series.js';
import {GameLog} from './gamelog.js';
import {CATEGORIES, anyBidWords, eventBid, facesPart, handDice, handKey, handUses, handWords, isHand} from './hands.js';
import {playedName, seatName} from './history.js';
import {quickLobby, tickQuick} from './quick.js';
import {CLOSE_LEFT, Leaving, leaveButton, outChoices} from './leave.js';
import {Keyboard, keysButton} from './keyboard.js';
import {avatar, seatColour} from './avatar.js';
import {Voices} from './voice.js';
import {Chat} from './chat.js';
import {play, setSound, soundOn} from './sound.js';
import {chosenRules, closestPreset, loadCatalogue, optionControls, presetTitle, timerOptions,
  wildAcesChanged} from './rooms.js';

const EMOTES = ['👍', '😂', '😮', '🤔', '😈', '🎲'];

// Where the seats sit on the felt, clockwise from your own seat at the bottom, as percent
// of the seats' area (the felt inside its rim). A seat is shifted by its own size in
// proportion (CSS: translate(--x, --y)), so a seat at 0% starts at the left edge and one at
// 100% ends at the right edge: no seat ever hangs over the rim.
const LAYOUTS = {
  1: [[50, 100]],
  2: [[50, 100], [50, 0]],
  3: [[50, 100], [16, 4], [84, 4]],
  4: [[50, 100], [0, 48], [50, 0], [100, 48]],
  5: [[50, 100], [0, 62], [22, 0], [78, 0], [100, 62]],
  6: [[50, 100], [0, 70], [0, 24], [50, 0], [100, 24], [100, 70]],
};

const FACE_KEYS = ['1', '2', '3', '4', '5', '6'];

// At a reveal the cups lift one by one (dudo.css: the cup of the seat drawn --i-th lifts at
// --i × .3 s + .15 s, its counting dice light up at --i × .3 s + .6 s). The count in the
// middle goes up in the same steps, so the table counts before your eyes.
const CUP_STEP_MS = 300;
const CUP_COUNTED_MS = 600;

function reducedMotion() {
  return matchMedia('(prefers-reduced-motion: reduce)').matches;
}

// Whether a revealed die counts for the bid: its face, or an ace when aces are wild (with
// poker bids: a die the hand names).
function dieCounts(reveal, face) {
  if (isHand(reveal.bid)) return handUses(reveal.bid, face);
  const bidFace = reveal.bid[1];
  return face === bidFace || (reveal.wild && face === 1 && bidFace !== 1);
}

export function openTable(main, code, params) {
  return new Table(main, code, params);
}

function clockText(deadline) {
  const left = Math.max(0, Math.ceil(Number(deadline) - Date.now() / 1000));
  return {left, text: `${left}s`};
}

function timerHtml(deadline) {
  if (!deadline) return '';
  const {left, text} = clockText(deadline);
  return `<span class="timer${left <= 5 ? ' low' : ''}" data-deadline="${deadline}"><span aria-hidden="true">⏱ </span><span class="sr-only">${escapeHtml(t('table.time_left'))} </span><span class="left">${text}</span></span>`;
}

class Table {
  constructor(main, code, params) {
    this.main = main;
    this.code = code;
    this.series = new SeriesPanel(code, () => this.render());
    this.session = memory.seat(code);
    this.watch = params.get('watch') === '1' && !this.session;
    this.state = null;
    this.socket = null;
    this.retry = 0;
    this.closed = false;
    this.seededRound = null;
    this.pick = null; // [quantity, face] chosen in the picker, or a hand {hand, faces}
    this.pickTurn = null; // the turn the pick was made for (a new turn gets a new default)
    this.emotes = new Map(); // seat -> [emote, until]
    this.showOdds = localStorage.getItem('dudo.odds') === '1';
    this.practice = memory.practice(code) ? new Practice(this) : null;
    this.leaving = new Leaving(this);
    this.keyboard = new Keyboard(this);
    this.voices = new Voices(this, announce);
    this.chat = new Chat(this);
    if (this.practice) this.showOdds = localStorage.getItem('dudo.odds') !== '0';
    this.startSent = false;
    this.lastTurnAnnounced = null;
    this.log = new GameLog();
    this.openDetails = new Set();
    this.catalogue = null;
    this.stillReveal = null; // the reveal whose animation the player skipped
    this.countUp = null; // the reveal being counted up: {key, cups counted so far, timers}
    this.joinError = '';
    this.baseTitle = document.title;
    this.tick = setInterval(() => this.updateClocks(), 250);
    this.onVisible = () => { if (!document.hidden) document.title = this.title(); };
    document.addEventListener('visibilitychange', this.onVisible);
    this.main.addEventListener('click', (this.onClick = (event) => this.handle(event)));
    this.main.addEventListener('change', (this.onChange = (event) => this.changed(event)));
    this.main.addEventListener('submit', (this.onSubmit = (event) => this.submitted(event)));
    this.main.addEventListener('toggle', (this.onToggle = (event) => {
      const id = event.target.id;
      if (!id) return;
      if (event.target.open) this.openDetails.add(id); else this.openDetails.delete(id);
    }), true);
    this.keys = (event) => this.key(event);
    document.addEventListener('keydown', this.keys);
    if (this.session || this.watch) this.connect();
  }

  close() {
    this.closed = true;
    clearInterval(this.tick);
    clearInterval(this.pinger);
    this.stopCountUp();
    this.leaving.close();
    this.keyboard.close();
    document.removeEventListener('visibilitychange', this.onVisible);
    document.removeEventListener('keydown', this.keys);
    this.main.removeEventListener('click', this.onClick);
    this.main.removeEventListener('change', this.onChange);
    this.main.removeEventListener('submit', this.onSubmit);
    this.main.removeEventListener('toggle', this.onToggle, true);
    if (this.socket) this.socket.close();
  }

  // -- the connection -----------------------------------------------------------------

  connect() {
    if (this.socket) {
      const old = this.socket;
      this.socket = null;
      old.close();
    }
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    // The seat token goes as a WebSocket subprotocol, so no URL (nor a proxy's log) has it.
    const protocols = ['dudo.v1', ...(this.session ? [`token.${this.session.token}`] : [])];
    const socket = new WebSocket(
      `${scheme}://${location.host}/ws/${this.code}?client=${clientId()}`, protocols);
    this.socket = socket;
    socket.addEventListener('open', () => { this.retry = 0; this.offline = false; });
    socket.addEventListener('message', (event) => {
      if (socket === this.socket) this.receive(JSON.parse(event.data));
    });
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
      if (event.code === 4410) { // the host freed this seat: watch from now on
        memory.dropSeat(this.code);
        this.session = null;
        this.watch = true;
        toast(t('err.removed'), 'info');
        announce(t('err.removed'));
        this.connect();
        return;
      }
      if (event.code === 4404) { this.missing = true; this.render(); return; }
      if (event.code === CLOSE_LEFT) { this.leaving.left(); return; }
      if (event.code === 4409) { // another tab took this seat: no tug of war, ask first
        this.replaced = true;
        toast(t('err.replaced'), 'info');
        this.render();
        return;
      }
      this.offline = true;
      this.render();
      this.retry = Math.min(this.retry + 1, 6);
      setTimeout(() => { if (socket === this.socket) this.connect(); }, 300 * 2 ** (this.retry - 1));
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
      this.log.observe(message);
      this.sendSeed();
      this.narrate(before, message);
      this.voices.observe(message, (seat) => this.name(seat));
      if (this.practice && message.you.host && message.room.status === 'lobby' && !this.startSent
          && !message.room.seats.some((seat) => seat.kind === 'open')) {
        this.startSent = true;
        this.act('start');
      }
      this.render();
    } else if (message.type === 'error') {
      if (message.code === 'no_room') { this.missing = true; this.render(); return; }
      // A seed that came too late for its round is not news to the player: the server
      // deals that round with its own bound seed (and the reveal shows which was used);
      // nor is a second seed for a round (the first one counts).
      if (message.code === 'wrong_round' || message.code === 'seeded') return;
      // Told by the socket's close code (below), once.
      if (message.code === 'removed' || message.code === 'replaced') return;
      const text = errorText(message);
      toast(text);
      announce(text);
    } else if (message.type === 'chat') {
      this.chat.receive(message);
    } else if (message.type === 'emote') {
      this.emotes.set(message.seat, [message.emote, Date.now() + 3000]);
      announce(`${seatName(this.state, message.seat)}: ${message.emote}`);
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

  // The name of a seat in this game (history.js: as it was when the game started).
  name(seat) {
    return playedName(this.state, seat);
  }

  title() {
    return this.state ? `dudo · ${t('table.room')} ${this.code}` : this.baseTitle;
  }

  points() {
    return this.state?.room.rules.format === 'points';
  }

  byWords(by) {
    return by === 'timer' ? t('log.by_timer') : by === 'stand_in' ? t('log.by_stand_in') : '';
  }

  narrate(before, state) {
    const me = state.you.seat;
    for (const event of state.events || []) {
      const by = event.by ? ` ${this.byWords(event.by)}` : '';
      if (event.event === 'bid') {
        announce(t('say.bid', {name: this.name(event.seat), bid: anyBidWords(eventBid(event))}) + by);
        play('bid');
      } else if (event.event === 'reveal') {
        announce(this.revealSentence(event) + by);
        play('call');
        const lost = event.loser === me && me != null;
        setTimeout(() => play(lost ? 'lose' : 'reveal'), 450);
      } else if (event.event === 'out') {
        announce(t('say.out', {name: this.name(event.seat)}));
      } else if (event.event === 'game_over') {
        const names = event.winners.map((s) => this.name(s));
        announce(t('say.winner', {names: listNames(names), n: names.length}));
        if (event.winners.includes(me)) setTimeout(() => play('win'), 700);
      } else if (event.event === 'rolloff') {
        announce(this.rolloffSentence(event));
        if (me != null && event.seats.includes(me)) play('roll');
      } else if (event.event === 'round') {
        announce(t('say.round', {n: event.number, name: this.name(event.opener)}));
        if (me != null && event.dice_counts[me]) play('roll');
      }
    }
    const game = state.game;
    const diceKey = game && game.dice.length ? `${state.fair?.game_id}:${game.round}` : null;
    if (diceKey && diceKey !== this.announcedDice) announce(t('say.your_dice', {dice: game.dice.join(', ')}));
    if (diceKey) this.announcedDice = diceKey;
    const mine = game && game.phase === 'bidding' && game.turn === me && me != null;
    const turnKey = mine ? `${state.fair?.game_id}:${game.round}:${game.bids.length}` : null;
    if (mine && turnKey !== this.lastTurnAnnounced) {
      announce(t('say.your_turn'));
      play('turn');
      this.cueTurn();
    }
    this.lastTurnAnnounced = turnKey;
  }

  // Your turn while the tab is in the background: the title says so, and a notification
  // (if the player allowed them) and a vibration (phones) call you back.
  cueTurn() {
    if (!document.hidden) return;
    document.title = `▶ ${t('title.your_turn')} · dudo`;
    this.notifyTurn();
    this.vibrateTurn();
  }

  notifyTurn() {
    if (!this.notifyOn()) return;
    try {
      const note = new Notification(t('title.your_turn'), {body: t('notify.body', {code: this.code}), tag: `dudo-${this.code}`});
      note.addEventListener('click', () => { window.focus(); note.close(); });
    } catch {
      // Chrome on Android has no page notifications (the constructor throws): the
      // vibration and the title still call the player back.
    }
  }

  // Where allowed: a browser without the API, or one that refuses (Chrome before the
  // player has touched the page, iOS), simply does not buzz.
  vibrateTurn() {
    if (typeof navigator.vibrate !== 'function') return;
    try {
      navigator.vibrate([120, 80, 120]);
    } catch {
      // a refused vibration is no error for the game
    }
  }

  notifyOn() {
    return 'Notification' in window && localStorage.getItem('dudo.notify') === '1'
      && Notification.permission === 'granted';
  }

  outcomeSentence(reveal) {
    if (reveal.loser == null) {
      if (reveal.change) return t('reveal.wins_die', {name: this.name(reveal.caller)});
      // An exact calza gives a die back only to someone below the starting number.
      return t('reveal.exact_no_change', {name: this.name(reveal.caller), n: this.state?.room.rules.starting_dice ?? 5});
    }
    if (this.points()) return t('reveal.takes_points', {name: this.name(reveal.loser), n: reveal.change});
    return t('reveal.loses', {name: this.name(reveal.loser), n: reveal.change});
  }

  revealSentence(reveal) {
    const call = reveal.call === 'calza' ? t('call.calza') : t('call.dudo');
    if (isHand(reveal.bid)) {
      const bid = handWords(reveal.bid);
      const there = t(reveal.outcome === 'holds' ? 'reveal.hand_there' : 'reveal.hand_missing', {bid});
      return `${t('reveal.sentence_hand', {caller: this.name(reveal.caller), call, bid})} ${there} ${this.outcomeSentence(reveal)}`;
    }
    const [q, f] = reveal.bid;
    return `${t('reveal.sentence', {caller: this.name(reveal.caller), call, bid: bidWords(q, f),
      count: reveal.count})} ${this.outcomeSentence(reveal)}`;
  }

  // One roll-off attempt in words: who tied (they roll again), or who opens.
  rolloffSentence(attempt) {
    const totals = attempt.rolls.map(([a, b]) => a + b);
    const total = Math.max(...totals);
    if (attempt.tied.length > 1) return t('rolloff.tied', {total, names: listNames(attempt.tied.map((s) => this.name(s)))});
    const opener = attempt.tied[0];
    return opener === this.state?.you.seat ? t('rolloff.you_open', {total}) : t('rolloff.opens', {name: this.name(opener), total});
  }

  // Whether the roll-off is shown: while it runs, and in round 1 until its first reveal.
  showingRolloff() {
    const {rolloff, game} = this.state;
    if (!rolloff || !game) return false;
    return rolloff.opener == null || (game.round === 1 && !game.last_reveal && game.phase !== 'over');
  }

  // The roll-off before round 1: each attempt's dice per seat, who tied, who opens.
  rolloffPanel() {
    if (!this.showingRolloff()) return '';
    const {rolloff} = this.state;
    const attempts = rolloff.attempts.map((attempt, i) => {
      const best = Math.max(...attempt.rolls.map(([a, b]) => a + b));
      const rows = attempt.seats.map((seat, j) => {
        const [a, b] = attempt.rolls[j];
        const top = a + b === best;
        const words = t('rolloff.roll_of', {name: this.name(seat), a, b, total: a + b});
        return `<li class="rolloff-roll${top ? ' top' : ''}" data-seat="${seat}"><span class="who">${nameHtml(this.name(seat))}</span>
          <span class="pair" aria-hidden="true">${die(a, {size: 20})}${die(b, {size: 20})}</span>
          <span class="total" aria-hidden="true">${escapeHtml(t('rolloff.total', {total: a + b}))}</span><span class="sr-only">${escapeHtml(words)}</span></li>`;
      }).join('');
      return `<li class="rolloff-attempt" data-attempt="${i + 1}" data-tied="${attempt.tied.join(',')}"><h3>${escapeHtml(t('rolloff.attempt', {n: i + 1}))}</h3>
        <ol class="rolloff-rolls">${rows}</ol><p class="rolloff-result">${escapeHtml(this.rolloffSentence(attempt))}</p></li>`;
    }).join('');
    const waiting = rolloff.opener == null ? `<p class="help">${escapeHtml(t('rolloff.rolling'))}</p>` : '';
    return `<section class="card rolloff" id="rolloff" data-key="rolloff-${this.state.fair?.game_id}" aria-labelledby="rolloff-title">
      <h2 id="rolloff-title">${escapeHtml(t('rolloff.title'))}</h2>
      ${attempts ? `<ol class="rolloff-attempts">${attempts}</ol>` : ''}${waiting}
      <p class="help">${escapeHtml(t('rolloff.help'))} ${escapeHtml(t('rolloff.verified'))}</p></section>`;
  }

  winnerText(winners) {
    const names = winners.map((s) => this.name(s));
    return t('table.winner', {names: listNames(names), n: names.length});
  }

  // -- joining ------------------------------------------------------------------------

  async renderJoin() {
    const info = await api(`/api/rooms/${this.code}`);
    if (this.closed || this.session || this.watch) return;
    if (!info.ok) {
      morph(this.main, `<section class="card"><h1>${escapeHtml(t('table.no_room', {code: this.code}))}</h1><p><a href="/">${escapeHtml(t('table.home'))}</a></p></section>`);
      return;
    }
    const room = info.data;
    const open = room.status !== 'playing' && room.seats.some((s) => s.kind === 'open');
    const seats = room.seats.map((s, i) => `<li>${s.kind === 'open' ? `<em>${escapeHtml(t('seat.open'))}</em>` : nameHtml(s.name)}${s.kind === 'bot' ? ` <span class="badge bot">${escapeHtml(t(`seat.bot_${s.level}`))}</span>` : ''}${i === room.host ? ` <span class="badge">${escapeHtml(t('seat.host'))}</span>` : ''}</li>`).join('');
    const why = room.status === 'lobby' ? 'join.full' : room.status === 'over' ? 'join.over_full' : 'join.started';
    document.title = `dudo · ${t('join.title')} ${this.code}`;
    morph(this.main, `
      <section class="card join">
        <h1>${escapeHtml(t('join.title'))} <span class="code">${this.code}</span></h1>
        <p class="lead">${escapeHtml(t('join.invite', {name: room.seats[0]?.name || ''}))}</p>
        ${this.joinError ? `<p class="notice">${escapeHtml(this.joinError)}</p>` : ''}
        ${room.status === 'over' && open ? `<p class="notice">${escapeHtml(t('join.between_games'))}</p>` : ''}
        <ol class="seat-list">${seats}</ol>
        ${open ? `<form id="join-form">
          <label for="name" class="big-label">${escapeHtml(t('home.name'))}</label>
          <input id="name" maxlength="64" dir="auto" autocomplete="nickname" value="${escapeHtml(memory.name)}" required>
          <button class="primary" id="take-seat" type="submit">${escapeHtml(t('join.take_seat'))}</button>
        </form>` : `<p>${escapeHtml(t(why))}</p>`}
        <p><button class="secondary" id="watch">${escapeHtml(t('join.watch'))}</button>
        <a href="${rulesHref(room.rules)}" target="_blank">${escapeHtml(t('table.rules'))}</a></p>
      </section>`);
  }

  async takeSeat(nameInput) {
    const name = cutName(nameInput.value);
    if (!name) { toast(t('home.need_name')); nameInput.focus(); return; }
    memory.name = name;
    const invite = new URLSearchParams(location.search).get('invite');
    const answer = await api(`/api/rooms/${this.code}/join`, invite ? {name, invite} : {name});
    if (!answer.ok) { toast(errorText(answer.data)); return; }
    memory.keepSeat(this.code, answer.data);
    this.session = memory.seat(this.code);
    this.watch = false;
    this.joinError = '';
    this.connect();
    this.render();
  }

  // -- drawing --------------------------------------------------------------------------

  render() {
    if (this.closed) return;
    document.body.dataset.view = 'table';
    if (this.missing) {
      morph(this.main, `<section class="card"><h1>${escapeHtml(t('table.no_room', {code: this.code}))}</h1><p><a href="/">${escapeHtml(t('table.home'))}</a></p></section>`);
      return;
    }
    if (!this.session && !this.watch) { this.renderJoin(); return; }
    if (!this.state) {
      morph(this.main, `<h1 class="sr-only">${escapeHtml(t('table.room'))} ${this.code}</h1><p class="loading">${escapeHtml(t('table.connecting'))}</p>`);
      return;
    }
    const {room, game, you} = this.state;
    if (!this.catalogue && !this.catalogueAsked && room.status !== 'playing') {
      this.catalogueAsked = true;
      loadCatalogue().then((data) => { this.catalogue = data; this.render(); });
    }
    document.getElementById('rules-link').href = rulesHref(room.rules);
    if (!document.hidden) document.title = this.title();
    document.body.dataset.status = room.status;
    document.body.dataset.phase = game ? game.phase : 'lobby';
    document.body.dataset.version = String(this.state.version);
    document.body.dataset.legal = JSON.stringify(this.legal());
    this.followReveal();
    let html;
    if (room.status === 'lobby') {
      const panel = room.quick ? quickLobby(this.state, this.seatList(), this.rulesLine()) : this.lobbyPanel();
      html = `<div class="table-page lobby">${this.head()}${panel}
        ${this.practice ? this.practice.panel() : ''}${you.seat != null ? this.emoteBar() : ''}${this.chat.panel()}</div>`;
    } else {
      const side = [this.actions(), this.rolloffPanel()];
      // Practice: during your turn the tip for this step comes first (on a phone, above the
      // picker: both on the first screen).
      const mine = game && game.phase === 'bidding' && game.turn === you.seat;
      if (this.practice) side.splice(mine ? 0 : 1, 0, this.practice.panel(mine));
      if (game && game.phase === 'over') {
        this.series.follow(room.game);
        side.push(this.standings(), this.series.panel(), this.nextGame());
      }
      side.push(this.history());
      if (you.seat != null) side.push(this.emoteBar());
      side.push(this.voices.toggle(), this.chat.panel());
      html = `<div class="table-page ${room.status}" data-seats="${room.seats.length}">${this.head()}
        <div class="board" data-key="board">${this.tableDrawing()}${this.ownDice()}</div>
        <div class="side" data-key="side">${side.join('')}</div></div>`;
    }
    this.keyboard.before();
    morph(this.main, html);
    this.keyboard.after();
    if (game && game.phase === 'over') {
      const id = this.state.fair?.game_id; // the finished game's page: replay, analysis, dice checked
      if (id) rememberGame({id, room: this.code, names: room.seats.map((_, i) => this.name(i)), seat: you.seat, winners: game.winners.map((s) => this.name(s))});
    }
  }

  head() {
    const {room, you} = this.state;
    const link = this.shareLink();
    const title = `${escapeHtml(t('table.room'))} <span class="code">${this.code}</span>`;
    const heading = room.status === 'lobby' ? `<p class="room-title">${title}</p>` : `<h1 class="room-title">${title}</h1>`;
    const sound = soundOn();
    const notify = 'Notification' in window
      ? `<button id="notify-toggle" class="icon small secondary" aria-pressed="${this.notifyOn()}" title="${escapeHtml(t('table.notify'))}"><span aria-hidden="true">${this.notifyOn() ? '🔔' : '🔕'}</span><span class="sr-only">${escapeHtml(t('table.notify'))}</span></button>` : '';
    return `<section class="room-head" data-key="head" aria-label="${escapeHtml(t('table.room'))}">
      ${heading}
      <div class="head-buttons">
        ${you.role === 'spectator' ? `<span class="badge">${escapeHtml(t('table.watching'))}</span>` : ''}
        ${room.spectators ? `<span class="badge watchers"><span aria-hidden="true">👀 </span>${escapeHtml(t('table.spectators', {n: room.spectators}))}</span>` : ''}
        ${this.offline && !this.replaced ? `<span class="badge warn">${escapeHtml(t('table.reconnecting'))}</span>` : ''}
        ${this.replaced ? `<button id="play-here" class="small primary">${escapeHtml(t('table.play_here'))}</button>` : ''}
        <button id="sound-toggle" class="icon small secondary" aria-pressed="${sound}" title="${escapeHtml(t('table.sound'))}"><span aria-hidden="true">${sound ? '🔊' : '🔇'}</span><span class="sr-only">${escapeHtml(t('table.sound'))}</span></button>
        ${notify}
        ${keysButton()}
        ${leaveButton(this.state)}
        <button id="copy-link" class="small secondary" data-link="${escapeHtml(link)}"><span aria-hidden="true">🔗</span> <span class="wide-only">${escapeHtml(t('table.copy_link'))}</span><span class="sr-only narrow-only">${escapeHtml(t('table.copy_link'))}</span></button>
        <a class="small button-link" href="${rulesHref(room.rules)}" target="_blank"><span aria-hidden="true">📖</span> <span class="wide-only">${escapeHtml(t('table.rules'))}</span><span class="sr-only narrow-only">${escapeHtml(t('table.rules'))}</span></a>
      </div></section>`;
  }

  roundInfo() {
    const {game, room} = this.state;
    if (this.points()) {
      const rounds = room.rules.points_rounds;
      const shown = game.phase === 'over' ? game.round : Math.min(game.round, rounds);
      return t('table.round_of', {n: shown, total: rounds});
    }
    return t('table.round_n', {n: game.round});
  }

  // The host's link carries the room's invite key: it lets friends in even when the
  // room is locked, which the code alone never does.
  shareLink() {
    const {you} = this.state;
    const invite = you.host && you.invite ? `?invite=${encodeURIComponent(you.invite)}` : '';
    return `${location.origin}/r/${this.code}${invite}`;
  }

  // The share link as a QR code, drawn by the server (dudo.server.share) from the same
  // parts as shareLink(): this page's origin, the code, the host's invite key.
  shareQr() {
    const {you} = this.state;
    const query = new URLSearchParams({origin: location.origin});
    if (you.host && you.invite) query.set('invite', you.invite);
    return `/r/${this.code}/qr.svg?${query}`;
  }

  // The seats of a room not playing now (its lobby, or between games): the host sets
  // bots and open seats and removes players.
  seatList() {
    const {room, you} = this.state;
    const host = you.host && room.status !== 'playing' && !(room.quick && room.status === 'lobby');
    const rows = room.seats.map((seat, index) => {
      let who;
      if (seat.kind === 'human') who = `${nameHtml(seat.name)}${seat.connected ? '' : ` <span class="badge">${escapeHtml(t('seat.away'))}</span>`}`;
      else if (seat.kind === 'bot') who = `${nameHtml(seat.name)} <span class="badge">${escapeHtml(t(`seat.bot_${seat.level}`))}</span>`;
      else who = `<em>${escapeHtml(t('seat.open'))}</em>`;
      let control = '';
      if (host && seat.kind !== 'human') {
        const value = seat.kind === 'bot' ? seat.level : '';
        control = `<label class="sr-only" for="seat-kind-${index}">${escapeHtml(t('create.seat', {n: index + 1}))}</label>
          <select id="seat-kind-${index}" data-configure-seat="${index}">
          ${['', 'easy', 'normal', 'hard'].map((v) => `<option value="${v}" ${v === value ? 'selected' : ''}>${escapeHtml(v ? t(`seat.bot_${v}`) : t('seat.open'))}</option>`).join('')}
          </select>`;
      } else if (host && index !== 0) {
        control = `<button class="small secondary" id="remove-${index}" data-remove="${index}">${escapeHtml(t('lobby.remove'))}<span class="sr-only"> ${escapeHtml(seat.name)}</span></button>`;
      }
      const badges = `${index === room.host ? ` <span class="badge">${escapeHtml(t('seat.host'))}</span>` : ''}${index === you.seat ? ` <span class="badge you">${escapeHtml(t('seat.you'))}</span>` : ''}`;
      return `<li><span class="seat-no">${index + 1}</span> <span class="who">${who}${badges}</span> ${control}</li>`;
    }).join('');
    return `<ol class="seat-list">${rows}</ol>`;
  }

  // The host's settings for the room: house rules, timer, who may join, lost dice shown.
  settings() {
    const {room, you} = this.state;
    if (!you.host || room.status === 'playing' || !this.catalogue) return '';
    const data = this.catalogue;
    const preset = closestPreset(data, room.rules);
    const presets = Object.keys(data.presets).map((key) =>
      `<option value="${key}" ${key === preset ? 'selected' : ''}>${escapeHtml(presetTitle(data, key))}</option>`).join('');
    const openHouse = this.openDetails.has('set-house') ? 'open' : '';
    return `<div class="settings" id="room-settings-form">
      <div class="option"><label for="set-preset">${escapeHtml(t('create.preset'))}</label>
        <select id="set-preset">${presets}</select></div>
      <details id="set-house" ${openHouse}><summary>${escapeHtml(t('create.house_rules'))}</summary>
        <div id="set-options">${optionControls(data, room.rules, 'set')}</div></details>
      <div class="option"><label for="set-timer">${escapeHtml(t('create.timer'))}</label>
        <select id="set-timer">${timerOptions(room.timer)}</select>
        <p class="help">${escapeHtml(t('create.timer_help'))}</p></div>
      <div class="option"><label class="check"><input type="checkbox" id="set-public" ${room.public ? 'checked' : ''}> ${escapeHtml(t('create.public'))}</label></div>
      <div class="option"><label class="check"><input type="checkbox" id="lock-room" ${room.locked ? 'checked' : ''}> ${escapeHtml(t('lobby.lock'))}</label></div>
      <div class="option"><label class="check"><input type="checkbox" id="set-lost" ${room.show_lost_dice ? 'checked' : ''}> ${escapeHtml(t('create.show_lost'))}</label></div>
    </div>`;
  }

  rulesLine() {
    const {room} = this.state;
    const data = this.catalogue;
    const preset = data ? presetTitle(data, closestPreset(data, room.rules)) : '';
    const parts = [];
    if (preset) parts.push(preset);
    parts.push(t('seat.dice', {n: room.rules.starting_dice}));
    parts.push(room.timer ? t('create.seconds', {n: room.timer}) : t('create.no_timer'));
    return `<p class="help">${escapeHtml(t('lobby.rules_summary'))} ${escapeHtml(parts.join(' · '))} · <a href="${rulesHref(room.rules)}" target="_blank">${escapeHtml(t('table.rules'))}</a></p>`;
  }

  lobbyPanel() {
    const {room, you} = this.state;
    const link = this.shareLink();
    return `<section class="card lobby">
      <h1>${escapeHtml(t('lobby.title'))}</h1>
      <p>${escapeHtml(t('lobby.share'))}</p>
      <div class="share-code">${this.code}</div>
      <p class="share-link"><input id="share-link" readonly value="${escapeHtml(link)}" aria-label="${escapeHtml(t('lobby.link'))}"> <button id="copy-link-2" class="secondary" data-link="${escapeHtml(link)}">${escapeHtml(t('table.copy_link'))}</button></p>
      <figure class="share-qr"><img id="share-qr" src="${escapeHtml(this.shareQr())}" width="240" height="240" alt="${escapeHtml(t('lobby.qr_alt'))}">
        <figcaption class="help">${escapeHtml(t('lobby.qr_help'))}</figcaption></figure>
      <h2>${escapeHtml(t('lobby.seats'))}</h2>
      ${this.seatList()}
      ${this.takeSeatForm('join.take_seat')}
      ${this.rulesLine()}
      ${!you.host && room.locked ? `<p class="help">${escapeHtml(t('lobby.locked'))}</p>` : ''}
      ${you.host ? `<div class="buttons">${room.seats.some((s) => s.kind === 'open') ? `<button id="fill-bots" class="secondary">${escapeHtml(t('lobby.fill_bots'))}</button>` : ''}
        <button id="start" class="primary">${escapeHtml(t('lobby.start'))}</button></div>`
        : `<p class="notice">${escapeHtml(t('lobby.wait_host'))}</p>`}
      ${you.host ? `<h2>${escapeHtml(t('lobby.settings'))}</h2>${this.settings()}` : ''}
    </section>`;
  }

  // A spectator's way to an open seat (in the lobby, or between games for the rematch).
  takeSeatForm(label) {
    const {room, you} = this.state;
    if (you.seat != null || !room.seats.some((s) => s.kind === 'open')) return '';
    return `<form id="take-form" class="take-seat">
        <label for="take-name">${escapeHtml(t('home.name'))}</label>
        <input id="take-name" maxlength="64" dir="auto" autocomplete="nickname" value="${escapeHtml(memory.name)}" required>
        <button class="primary" id="take-seat" type="submit">${escapeHtml(t(label))}</button></form>`;
  }

  // Between games: who sits where for the rematch. Spectators can take an open seat; the
  // host can change the rules, the seats and the timer, and remove a player.
  nextGame() {
    const {room, you} = this.state;
    const open = room.seats.filter((s) => s.kind === 'open').length;
    const take = this.takeSeatForm('over.take_seat');
    const openHouse = this.openDetails.has('room-settings') ? 'open' : '';
    return `<section class="card next-game" data-key="next-game" aria-labelledby="next-title">
      <h2 id="next-title">${escapeHtml(t('over.next_game'))}</h2>
      ${this.seatList()}
      ${open ? `<p class="help">${escapeHtml(t('over.open_seats', {n: open}))}</p>` : ''}
      ${take}
      ${you.host && open ? `<p><button id="fill-bots" class="secondary small">${escapeHtml(t('lobby.fill_bots'))}</button></p>` : ''}
      ${this.rulesLine()}
      ${you.host && this.catalogue ? `<details id="room-settings" ${openHouse}><summary>${escapeHtml(t('over.change_rules'))}</summary>${this.settings()}</details>` : ''}
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

  revealKey() {
    const game = this.state.game;
    return `${this.state.fair?.game_id}:${GameLog.revealedRound(game)}`;
  }

  // A reveal drawn for the first time is counted up, one step per cup in drawing order,
  // each step when that cup's counting dice light up. Not under reduced motion, and not
  // once the player skipped it: then the count is whole at once. (Only between rounds:
  // the last reveal of a game shows the winner, not the count.)
  followReveal() {
    const key = this.state.game?.phase === 'roll' && this.showingReveal() ? this.revealKey() : null;
    if (this.countUp && this.countUp.key === key) return;
    this.stopCountUp();
    if (!key || key === this.stillReveal || reducedMotion()) return;
    const countUp = {key, cups: 0, timers: []};
    this.countUp = countUp;
    countUp.timers = this.ordered().map((_, i) => setTimeout(() => {
      countUp.cups = i + 1;
      this.render();
    }, i * CUP_STEP_MS + CUP_COUNTED_MS));
  }

  stopCountUp() {
    if (this.countUp) this.countUp.timers.forEach(clearTimeout);
    this.countUp = null;
  }

  // The count in the middle of a reveal: the counting dice of the cups lifted so far.
  shownCount(reveal) {
    const countUp = this.countUp;
    if (!countUp || countUp.key !== this.revealKey()) return reveal.count;
    return this.ordered().slice(0, countUp.cups)
      .reduce((sum, seat) => sum + (reveal.cups[seat] || []).filter((d) => dieCounts(reveal, d)).length, 0);
  }

  // A click on the felt or any key: the reveal jumps to its end (cups up, count whole).
  skipReveal() {
    if (!this.showingReveal() || this.stillReveal === this.revealKey()) return;
    this.stillReveal = this.revealKey();
    this.stopCountUp();
    this.render();
  }

  // Where a player finished: 1 for the winners, else by when they went out.
  placeOf(seat) {
    const {game} = this.state;
    if (!game) return null;
    if (game.winners.includes(seat)) return 1;
    const outs = this.log.outs;
    const at = outs.indexOf(seat);
    if (at < 0) return null;
    return this.state.room.seats.length - at;
  }

  seatCard(index, order) {
    const {room, game, you} = this.state;
    const seat = room.seats[index];
    const count = game.dice_counts[index];
    const lost = room.show_lost_dice === false ? 0 : Math.max(0, room.rules.starting_dice - count);
    const reveal = this.showingReveal() ? game.last_reveal : null;
    const turn = game.phase === 'bidding' && game.turn === index;
    const out = !count && !this.points();
    const classes = ['seat'];
    if (turn) classes.push('turn');
    if (out) classes.push('out');
    if (index === you.seat) classes.push('me');
    if (game.phase === 'bidding' && game.bidder === index) classes.push('bidder');
    if (game.phase === 'over' && game.winners.includes(index)) classes.push('winner');
    let dice;
    let diceKey;
    if (reveal && reveal.cups[index] && reveal.cups[index].length) {
      diceKey = `cup-${this.revealKey()}-${index}`;
      dice = reveal.cups[index].map((d) => {
        const counts = dieCounts(reveal, d);
        return die(d, {size: 24, counts, label: counts ? t('die.counts', {face: d}) : t('die.face', {face: d})});
      }).join('');
    } else {
      diceKey = `hidden-${index}`;
      dice = Array.from({length: count}, () => die(0, {size: 18})).join('')
        + Array.from({length: lost}, () => die(0, {size: 18, cls: 'lost'})).join('');
    }
    const status = [];
    if (seat.kind === 'bot') status.push(t(`seat.bot_${seat.level}`));
    if (seat.kind === 'human' && !seat.connected) status.push(seat.bot_playing ? t('seat.bot_playing') : t('seat.away'));
    if (seat.kind === 'open') status.push(t('seat.open'));
    if (out) {
      const place = this.placeOf(index);
      status.push(place ? t('seat.out_place', {place: this.ordinal(place)}) : t('seat.out'));
    }
    const emote = this.emotes.get(index);
    const bubble = emote && emote[1] > Date.now() ? `<span class="bubble" aria-hidden="true">${emote[0]}</span>` : '';
    const points = this.points() ? `<span class="points">${escapeHtml(t('seat.points', {n: game.points[index]}))}</span>` : '';
    const changed = reveal && reveal.change && (reveal.loser === index || (reveal.loser == null && reveal.caller === index));
    const plus = reveal && (reveal.loser !== index || this.points());
    const changeMark = changed ? `<span class="change ${reveal.loser === index ? 'minus' : 'plus'}" data-key="change-${this.revealKey()}" aria-hidden="true">${plus ? '+' : '−'}${reveal.change}</span>` : '';
    const [x, y] = (LAYOUTS[order.length] || LAYOUTS[6])[order.indexOf(index)] || [50, 50];
    const place = `left:${x}%;top:${y}%;--x:-${x}%;--y:-${y}%;--i:${order.indexOf(index)};--seat-colour:${seatColour(index)}`;
    const diceWords = `${t('seat.dice', {n: count})}${lost ? `, ${t('seat.lost', {n: lost})}` : ''}`;
    return `<li class="${classes.join(' ')}" data-seat="${index}" style="${place}">
      <span class="seat-name">${avatar(this.name(index), index)}${turn ? '<span aria-hidden="true">▶ </span>' : ''}${nameHtml(this.name(index))}${index === you.seat ? ` <span class="you-tag">(${escapeHtml(t('seat.you'))})</span>` : ''}</span>
      <span class="seat-status">${escapeHtml(status.join(' · '))}</span>
      ${reveal && reveal.cups[index]?.length
        ? `<span class="seat-dice revealed" data-key="${diceKey}" role="group" aria-label="${escapeHtml(t('table.cup_of', {name: this.name(index)}))}">${dice}</span>`
        : `<span class="seat-dice" data-key="${diceKey}" aria-hidden="true">${dice}</span><span class="sr-only">${escapeHtml(diceWords)}</span>`}
      ${points}${changeMark}${bubble}${this.voices.bubble(index)}</li>`;
  }

  ordinal(place) {
    const key = `ordinal.${place}`;
    return has(key) ? t(key) : String(place);
  }

  turnLine(words = null) {
    const {game, you} = this.state;
    if (game.phase !== 'bidding') return '';
    const mine = game.turn === you.seat;
    words = words || (mine ? t('table.your_turn') : t('table.turn_of', {name: this.name(game.turn)}));
    return `<p class="turn-line${mine ? ' mine' : ''}"><span class="who-now">${escapeHtml(words)}</span> ${timerHtml(this.state.deadline)}</p>`;
  }

  centre() {
    const {game, room, you} = this.state;
    const badges = [];
    const total = game.dice_counts.reduce((a, b) => a + b, 0);
    if (game.palifico) badges.push(`<span class="badge pal">${escapeHtml(t('table.palifico'))}</span>`);
    if (room.rules.wild_ones && game.phase === 'bidding') badges.push(`<span class="badge">${escapeHtml(t(game.wild ? 'table.ones_wild' : 'table.ones_not_wild'))}</span>`);
    const info = `<p class="table-info"><span class="round-info">${escapeHtml(this.roundInfo())}</span> · <span class="in-play">${escapeHtml(t('table.in_play', {n: total}))}</span> ${badges.join(' ')}</p>`;
    if (game.phase === 'over') {
      const last = game.last_reveal;
      const summary = last ? `<p class="result">${escapeHtml(this.revealSentence(last))}</p>` : '';
      const id = this.state.fair?.game_id;
      const open = room.seats.some((s) => s.kind === 'open');
      return `<div class="centre over" data-key="over-${id}">${info}<h2 class="big"><span aria-hidden="true">🏆 </span>${escapeHtml(this.winnerText(game.winners))}</h2>${summary}
        ${you.seat != null ? `<button id="rematch" class="primary" ${open ? 'aria-describedby="rematch-why"' : ''}>${escapeHtml(t('table.rematch'))}</button>
          ${open ? `<p class="help" id="rematch-why">${escapeHtml(t('over.fill_first'))}</p>` : ''}` : ''}
        <a href="/" class="button-link small">${escapeHtml(t('table.new_room'))}</a>
        ${id ? `<a href="/g/${id}" class="button-link small" id="game-page">${escapeHtml(has('table.game_page') ? t('table.game_page') : 'Replay and analysis')}</a>` : ''}</div>`;
    }
    if (game.phase === 'roll') {
      const reveal = game.last_reveal;
      if (!reveal) {
        const rolloff = this.state.rolloff;
        if (rolloff && rolloff.opener == null) {
          const last = rolloff.attempts[rolloff.attempts.length - 1];
          return `<div class="centre rolloff-centre" id="rolloff-centre"><p class="table-info">${escapeHtml(t('rolloff.title'))}</p>
            <p>${escapeHtml(last ? this.rolloffSentence(last) : t('rolloff.rolling'))}</p></div>`;
        }
        return `<div class="centre">${info}<p>${escapeHtml(t('table.rolling'))}</p></div>`;
      }
      if (isHand(reveal.bid)) return this.handRevealCentre(reveal);
      const [q, f] = reveal.bid;
      const verdict = reveal.outcome === 'holds' ? t('reveal.holds') : reveal.outcome === 'fails' ? t('reveal.fails')
        : reveal.outcome === 'exact' ? t('reveal.exact') : t('reveal.not_exact');
      const by = this.log.round(GameLog.revealedRound(game), false)?.reveal?.by;
      return `<div class="centre reveal" id="reveal" data-key="reveal-${this.revealKey()}" style="--seats:${room.seats.length}">
        <p class="call-name">${escapeHtml(t('reveal.caller', {name: this.name(reveal.caller), call: reveal.call === 'calza' ? t('call.calza') : t('call.dudo_shout')}))}${by ? ` <span class="by">${escapeHtml(this.byWords(by))}</span>` : ''}</p>
        <p class="count-line">${this.countHtml(reveal)} × ${die(f, {size: 30, label: t('die.face', {face: f})})} <span class="vs">${escapeHtml(t('reveal.vs', {bid: bidWords(q, f)}))}</span></p>
        <p class="verdict">${escapeHtml(verdict)}</p>
        <p class="result">${escapeHtml(this.outcomeSentence(reveal))}</p>
        ${you.seat != null ? `<button id="next-round" class="primary small" aria-keyshortcuts="N">${escapeHtml(t('table.next_round'))} <span data-roll-at="${this.state.roll_at || ''}">${this.rollText()}</span></button>` : ''}
      </div>`;
    }
    const standing = game.standing;
    if (!standing) {
      const opener = game.turn === you.seat ? t('table.you_open') : t('table.opens', {name: this.name(game.turn)});
      const rolled = this.showingRolloff() && this.state.rolloff.attempts.length
        ? `<p class="help rolloff-line">${escapeHtml(this.rolloffSentence(this.state.rolloff.attempts[this.state.rolloff.attempts.length - 1]))}</p>` : '';
      return `<div class="centre">${info}${this.turnLine(opener)}${rolled}</div>`;
    }
    if (isHand(standing)) {
      return `<div class="centre" id="standing">${info}
        <p class="label">${escapeHtml(t('table.standing', {name: this.name(game.bidder)}))}</p>
        <div class="standing-bid hand" data-key="bid-${game.round}-${game.bids.length}" aria-hidden="true">${this.handDiceHtml(standing, 26)}</div>
        <p class="words">${escapeHtml(handWords(standing))}</p>
        ${this.turnLine()}</div>`;
    }
    const [q, f] = standing;
    const lastBid = game.bids.length ? game.bids[game.bids.length - 1] : null;
    const round = this.log.round(game.round, false);
    const by = round && round.bids.length === game.bids.length ? round.bids[round.bids.length - 1]?.by : null;
    return `<div class="centre" id="standing">${info}
      <p class="label">${escapeHtml(t('table.standing', {name: this.name(game.bidder)}))}${by && lastBid ? ` <span class="by">${escapeHtml(this.byWords(by))}</span>` : ''}</p>
      <div class="standing-bid" data-key="bid-${game.round}-${game.bids.length}"><span class="q">${q}</span> <span aria-hidden="true">×</span> ${die(f, {size: 40, label: t('die.face', {face: f})})}</div>
      <p class="words">${escapeHtml(bidWords(q, f))}</p>
      ${this.turnLine()}</div>`;
  }

  handDiceHtml(hand, size) {
    return handDice(hand).map((d) => die(d, {size, label: t('die.face', {face: d})})).join('');
  }

  // A poker bid's reveal: the hand called, whether all the dice together show it.
  handRevealCentre(reveal) {
    const {room, you} = this.state;
    const bid = handWords(reveal.bid);
    const by = this.log.round(GameLog.revealedRound(this.state.game), false)?.reveal?.by;
    const verdict = reveal.outcome === 'holds' ? t('reveal.holds') : t('reveal.fails');
    return `<div class="centre reveal" id="reveal" data-key="reveal-${this.revealKey()}" style="--seats:${room.seats.length}">
        <p class="call-name">${escapeHtml(t('reveal.caller', {name: this.name(reveal.caller), call: t('call.dudo_shout')}))}${by ? ` <span class="by">${escapeHtml(this.byWords(by))}</span>` : ''}</p>
        <p class="count-line hand"><span aria-hidden="true">${this.handDiceHtml(reveal.bid, 22)}</span> <span class="vs">${escapeHtml(t(reveal.outcome === 'holds' ? 'reveal.hand_there' : 'reveal.hand_missing', {bid}))}</span></p>
        <p class="verdict">${escapeHtml(verdict)}</p>
        <p class="result">${escapeHtml(this.outcomeSentence(reveal))}</p>
        ${you.seat != null ? `<button id="next-round" class="primary small">${escapeHtml(t('table.next_round'))} <span data-roll-at="${this.state.roll_at || ''}">${this.rollText()}</span></button>` : ''}
      </div>`;
  }

  // The count as it goes up (a new node per number, so each one pops in); a screen reader
  // hears the final count only, never the steps.
  countHtml(reveal) {
    const shown = this.shownCount(reveal);
    return `<span class="count" data-key="count-${shown}" aria-hidden="true">${shown}</span><span class="sr-only">${reveal.count}</span>`;
  }

  rollText() {
    const at = Number(this.state.roll_at);
    return at ? `(${Math.max(0, Math.ceil(at - Date.now() / 1000))})` : '';
  }

  tableDrawing() {
    const order = this.ordered();
    const seats = order.map((index) => this.seatCard(index, order)).join('');
    const still = this.stillReveal && this.stillReveal === (this.showingReveal() ? this.revealKey() : null);
    return `<section class="felt${still ? ' still' : ''}" aria-label="${escapeHtml(t('table.table'))}" data-count="${order.length}">
      <ol class="seats">${seats}</ol>${this.centre()}</section>`;
  }

  ownDice() {
    const {game, you} = this.state;
    if (you.seat == null || !game) return '';
    let body;
    if (game.dice.length) {
      const key = `${this.state.fair?.game_id}:${game.round}`;
      body = `<div class="my-dice" data-key="dice-${key}" data-dice="${game.dice.join('')}" role="list" aria-label="${escapeHtml(t('table.your_dice'))}">${game.dice.map((d, i) => `<span role="listitem" style="--i:${i}">${die(d, {size: 52, label: t('die.face', {face: d})})}</span>`).join('')}</div>`;
    } else if (game.phase === 'over') {
      return '';
    } else if (game.dice_counts[you.seat] === 0 && !this.points()) {
      body = `<p class="notice">${escapeHtml(t('table.you_are_out'))}</p>${outChoices(this.state)}`;
    } else {
      body = `<p class="help">${escapeHtml(t(game.last_reveal && game.phase === 'roll' ? 'table.dice_at_seat' : 'table.dice_hidden'))}</p>`;
    }
    let odds = '';
    if (game.phase === 'bidding' && game.standing && !isHand(game.standing) && game.dice.length && this.showOdds) {
      const [q, f] = game.standing;
      const o = bidOdds(game, q, f);
      odds = `<p class="odds" id="odds">${escapeHtml(t('odds.line', {n: q,
        chance: Math.round(o.chance * 100), bid: bidWords(q, f), own: o.own, unseen: o.unseen,
        expected: o.expected.toFixed(1), p: o.p > 0.2 ? '1/3' : '1/6'}))}</p>`;
    }
    return `<section class="mine" data-key="mine" aria-labelledby="mine-title"><h2 class="sr-only" id="mine-title">${escapeHtml(t('table.your_dice'))}</h2>${body}${odds}</section>`;
  }

  legal() {
    const game = this.state.game;
    if (!game || game.phase !== 'bidding') return {bids: [], calls: []};
    return game.legal;
  }

  // The bid the picker starts at: the cheapest legal raise on the face you hold most of
  // (wild ones counted for other faces); when you open, about as many as you can expect.
  defaultPick() {
    const game = this.state.game;
    const bids = game.legal.bids;
    const faces = new Set(bids.map(([, f]) => f));
    if (faces.size <= 1 || !game.dice.length) return bids[0];
    const ones = game.dice.filter((d) => d === 1).length;
    let best = null;
    let bestScore = -1;
    for (const face of [2, 3, 4, 5, 6, 1]) {
      if (!faces.has(face)) continue;
      const own = game.dice.filter((d) => d === face).length + (game.wild && face !== 1 ? ones : 0);
      const score = face === 1 ? own * 2 - 0.5 : own + face / 10; // higher faces win ties
      if (score > bestScore) { best = face; bestScore = score; }
    }
    const onFace = bids.filter(([, f]) => f === best);
    if (!onFace.length) return bids[0];
    let pick = onFace[0];
    if (!game.standing) {
      const o = bidOdds(game, 1, best);
      const want = Math.max(pick[0], Math.floor(o.expected));
      pick = onFace.find(([q]) => q === want) || pick;
    }
    return pick;
  }

  oddsToggle() {
    const {game} = this.state;
    if (!game.dice.length || this.state.room.rules.bids === 'poker') return '';
    return `<label class="check small odds-toggle"><input type="checkbox" id="odds-toggle" ${this.showOdds ? 'checked' : ''}> ${escapeHtml(t('odds.toggle'))}</label>`;
  }

  actions() {
    const {game, you} = this.state;
    if (you.seat == null || !game || game.phase !== 'bidding') return '';
    const legal = this.legal();
    const calls = legal.calls.map((call) => `<button id="call-${call}" class="call ${call}" aria-keyshortcuts="${call === 'dudo' ? 'L' : 'C'}"><span>${escapeHtml(t(`call.${call}_main`))}</span> <small>${escapeHtml(t(`call.${call}_sub`))}</small></button>`).join('');
    if (!legal.bids.length) {
      if (!game.dice_counts[you.seat] && !this.points()) return ''; // out: the table says so
      const waiting = game.turn !== you.seat ? t('table.waiting_for', {name: this.name(game.turn)}) : '';
      return `<section class="actions waiting" data-key="actions-waiting" tabindex="-1" aria-label="${escapeHtml(t('table.actions'))}">${waiting ? `<p class="help">${escapeHtml(waiting)} ${timerHtml(this.state.deadline)}</p>` : ''}${calls ? `<div class="calls">${calls}</div>` : ''}${this.oddsToggle()}</section>`;
    }
    const bids = legal.bids;
    if (isHand(bids[0])) return this.handPicker(bids, calls);
    const has = (q, f) => bids.some(([bq, bf]) => bq === q && bf === f);
    const turnKey = `${this.state.fair?.game_id}:${game.round}:${game.bids.length}`;
    if (this.pickTurn !== turnKey || !this.pick || !has(...this.pick)) {
      this.pick = this.defaultPick();
      this.pickTurn = turnKey;
    }
    const [q, f] = this.pick;
    const quantities = [...new Set(bids.map(([bq]) => bq))].sort((a, b) => a - b);
    const qi = quantities.indexOf(q);
    const faces = [1, 2, 3, 4, 5, 6].map((face) => {
      const ok = has(q, face);
      return `<button type="button" class="face" id="face-${face}" data-face="${face}" aria-pressed="${face === f}" ${ok ? '' : 'disabled'} aria-label="${escapeHtml(t(face === 1 ? 'face.aces' : 'face.many', {face}))}">${die(face, {size: 34})}</button>`;
    }).join('');
    const locked = game.palifico && new Set(bids.map(([, bf]) => bf)).size === 1;
    const calza = this.state.room.rules.calza !== 'off';
    return `<section class="actions picker" data-key="actions-picker" tabindex="-1" aria-label="${escapeHtml(t('table.actions'))}">
      <p class="your-turn">${escapeHtml(t('table.your_turn'))} ${timerHtml(this.state.deadline)}</p>
      <div class="pick-row">
        <div class="stepper" role="group" aria-label="${escapeHtml(t('picker.quantity'))}">
          <button type="button" id="q-down" aria-label="${escapeHtml(t('picker.less'))}" ${qi <= 0 ? 'disabled' : ''}>−</button>
          <output id="q-value" aria-live="off">${q}</output>
          <button type="button" id="q-up" aria-label="${escapeHtml(t('picker.more'))}" ${qi >= quantities.length - 1 ? 'disabled' : ''}>+</button>
        </div>
        <div class="faces" role="group" aria-label="${escapeHtml(t('picker.face'))}">${faces}</div>
      </div>
      <div class="calls">
        <button id="bid-go" class="primary bid" aria-keyshortcuts="B">${escapeHtml(t('picker.bid', {bid: bidWords(q, f)}))}</button>
        ${calls}
      </div>
      ${this.showOdds && game.dice.length ? `<p class="help" id="pick-odds">${escapeHtml(t('odds.pick', {n: q, bid: bidWords(q, f), chance: Math.round(bidOdds(game, q, f).chance * 100)}))}</p>` : ''}
      ${locked ? `<p class="help">${escapeHtml(t('picker.locked', {face: bids[0][1]}))}</p>` : ''}
      <div class="picker-foot">${this.oddsToggle()}<p class="help keys">${escapeHtml(t(calza ? 'picker.keys' : 'picker.keys_no_calza'))}</p></div></section>`;
  }

  // The hand picker (Common Hand): a hand kind and its faces, both offering only what the
  // seat's legal bids hold, in one row so the picker fits a phone's first screen.
  defaultHand(bids) {
    const game = this.state.game;
    if (!game.dice.length) return bids[0];
    const held = [1, 2, 3, 4, 5, 6].map((f) => game.dice.filter((d) => d === f).length);
    const best = held.indexOf(Math.max(...held)) + 1;
    return bids.find((hand) => hand.hand === 'pair' && hand.faces[0] === best) || bids[0];
  }

  handPicker(bids, calls) {
    const game = this.state.game;
    const turnKey = `${this.state.fair?.game_id}:${game.round}:${game.bids.length}`;
    const legalKeys = new Set(bids.map(handKey));
    if (this.pickTurn !== turnKey || !isHand(this.pick) || !legalKeys.has(handKey(this.pick))) {
      this.pick = this.defaultHand(bids);
      this.pickTurn = turnKey;
    }
    const pick = this.pick;
    const kinds = CATEGORIES.filter((kind) => bids.some((hand) => hand.hand === kind));
    const sameKind = bids.filter((hand) => hand.hand === pick.hand);
    const kindOptions = kinds.map((kind) => `<option value="${kind}" ${kind === pick.hand ? 'selected' : ''}>${escapeHtml(t(`hand.kind.${kind}`))}</option>`).join('');
    const faceOptions = sameKind.map((hand) => `<option value="${handKey(hand)}" ${handKey(hand) === handKey(pick) ? 'selected' : ''}>${escapeHtml(facesPart(hand))}</option>`).join('');
    const words = handWords(pick);
    return `<section class="actions picker hand-picker" data-key="actions-hand-picker" aria-label="${escapeHtml(t('table.actions'))}">
      <p class="your-turn">${escapeHtml(t('table.your_turn'))} ${timerHtml(this.state.deadline)}</p>
      <div class="pick-row hand-row">
        <div class="hand-choice"><label for="hand-kind">${escapeHtml(t('hand.kind'))}</label>
          <select id="hand-kind" data-hand-kind="1">${kindOptions}</select></div>
        ${sameKind[0].faces?.length ? `<div class="hand-choice"><label for="hand-faces">${escapeHtml(t('hand.faces'))}</label>
          <select id="hand-faces" data-hand-faces="1">${faceOptions}</select></div>` : ''}
        <span class="hand-dice" aria-hidden="true">${this.handDiceHtml(pick, 20)}</span>
      </div>
      <div class="calls">
        <button id="bid-go" class="primary bid" aria-keyshortcuts="B">${escapeHtml(t('picker.bid', {bid: words}))}</button>
        ${calls}
      </div>
      <div class="picker-foot"><p class="help keys">${escapeHtml(t('picker.keys_hand'))}</p></div></section>`;
  }

  bidHtml(q, f, hand = null) {
    if (hand) return `<span class="what hand" aria-hidden="true">${this.handDiceHtml(hand, 14)}</span><span class="sr-only">${escapeHtml(handWords(hand))}</span><span class="hand-words" aria-hidden="true"> ${escapeHtml(handWords(hand))}</span>`;
    return `<span class="what" aria-hidden="true">${q} × ${die(f, {size: 18})}</span><span class="sr-only">${escapeHtml(bidWords(q, f))}</span>`;
  }

  // The game log: every round seen, newest first; within a round, in the order played.
  history() {
    const {game} = this.state;
    if (!game) return '';
    const rounds = this.log.rounds.filter((round) => round.bids.length || round.reveal).slice().reverse();
    if (!rounds.length) return '';
    const items = rounds.map((round) => {
      const bids = round.bids.map((bid, i) => `<li data-key="b${round.n}-${i}"><span class="who">${nameHtml(this.name(bid.seat))}</span> ${this.bidHtml(bid.q, bid.f, bid.hand)}${bid.by ? ` <span class="by">${escapeHtml(this.byWords(bid.by))}</span>` : ''}</li>`).join('');
      const reveal = round.reveal;
      const result = reveal ? `<p class="log-reveal">${escapeHtml(this.revealSentence(reveal))}${reveal.by ? ` <span class="by">${escapeHtml(this.byWords(reveal.by))}</span>` : ''}</p>` : '';
      const outs = round.outs.map((seat) => `<p class="log-out">${escapeHtml(t('say.out', {name: this.name(seat)}))}</p>`).join('');
      const head = `${escapeHtml(t('log.round', {n: round.n}))}${round.palifico ? ` · ${escapeHtml(t('log.palifico'))}` : ''}`;
      return `<li class="log-round" data-key="round-${round.n}"><h3>${head}</h3>${bids ? `<ol class="bids">${bids}</ol>` : ''}${result}${outs}</li>`;
    }).join('');
    const note = this.log.complete ? '' : `<p class="help">${escapeHtml(t('log.partial'))}</p>`;
    return `<section class="history" data-key="log" aria-labelledby="log-title" tabindex="0"><h2 id="log-title">${escapeHtml(t('log.title'))}</h2>${note}<ol class="log-rounds">${items}</ol></section>`;
  }

  // Game over: everyone's place, with a few numbers from the log.
  standings() {
    const {game, room} = this.state;
    const seats = room.seats.map((_, i) => i);
    const stats = this.log.stats(seats.length);
    const points = this.points();
    const order = seats.slice().sort((a, b) => {
      if (points) return game.points[a] - game.points[b] || a - b;
      const pa = this.placeOf(a) ?? (game.dice_counts[a] ? 1.5 : 99);
      const pb = this.placeOf(b) ?? (game.dice_counts[b] ? 1.5 : 99);
      return pa - pb || game.dice_counts[b] - game.dice_counts[a] || a - b;
    });
    let place = 0;
    let previous = null;
    const rows = order.map((seat, i) => {
      const key = points ? game.points[seat] : this.placeOf(seat) ?? `x${seat}`;
      if (key !== previous) place = i + 1;
      previous = key;
      const shown = points || this.placeOf(seat) != null || game.winners.includes(seat) ? this.ordinal(place) : '–';
      const s = stats[seat];
      const facts = [
        points ? t('seat.points', {n: game.points[seat]}) : t('over.dice_left_n', {n: game.dice_counts[seat]}),
        t('over.bids_n', {n: s.bids}),
        t('over.calls_n', {right: s.right, wrong: s.wrong}),
        t('over.caught_n', {n: s.caught}),
      ];
      return `<li${game.winners.includes(seat) ? ' class="winner"' : ''}><span class="place">${escapeHtml(shown)}</span>
        <span class="who">${game.winners.includes(seat) ? '<span aria-hidden="true">🏆 </span>' : ''}${nameHtml(this.name(seat))}</span>
        <span class="facts">${escapeHtml(facts.join(' · '))}</span></li>`;
    }).join('');
    return `<section class="card standings" data-key="standings" aria-labelledby="standings-title"><h2 id="standings-title">${escapeHtml(t('over.standings'))}</h2>
      <ol class="standings-list">${rows}</ol>
      ${this.log.complete ? '' : `<p class="help">${escapeHtml(t('log.partial'))}</p>`}</section>`;
  }

  emoteBar() {
    return `<section class="emotes" data-key="emotes" aria-label="${escapeHtml(t('table.reactions'))}">${EMOTES.map((e, i) =>
      `<button class="emote" data-emote="${e}" id="emote-${i}" aria-label="${escapeHtml(t(`emote.${i}`))}">${e}</button>`).join('')}</section>`;
  }

  updateClocks() {
    tickQuick(this.main);
    for (const element of this.main.querySelectorAll('[data-deadline]')) {
      const {left, text} = clockText(element.dataset.deadline);
      const span = element.querySelector('.left');
      if (span && span.textContent !== text) span.textContent = text;
      element.classList.toggle('low', left <= 5);
    }
    if (this.state) {
      for (const element of this.main.querySelectorAll('[data-roll-at]')) {
        const text = this.rollText();
        if (element.textContent !== text) element.textContent = text;
      }
    }
  }

  // -- what the player does -------------------------------------------------------------

  handle(event) {
    const target = event.target.closest('button, [data-face], [data-emote]');
    if (!target || target.disabled || !this.main.contains(target)) {
      if (event.target.closest('.felt')) this.skipReveal();
      return;
    }
    const id = target.id;
    if (target.dataset.face) {
      this.pick = [this.pick[0], Number(target.dataset.face)];
      this.render();
      return;
    }
    if (target.dataset.mute) { this.chat.toggleMute(Number(target.dataset.mute)); return; }
    if (target.dataset.emote) { this.send({type: 'emote', emote: target.dataset.emote}); return; }
    if (target.dataset.remove) {
      this.act('remove', {seat: Number(target.dataset.remove)});
      return;
    }
    if (target.dataset.link) { this.copy(target.dataset.link); return; }
    switch (id) {
      case 'start': this.act('start'); break;
      case 'quick-now': {
        const seats = this.state.room.seats.map((s) => (s.kind === 'open' ? {kind: 'bot', level: 'normal'} : null));
        this.act('configure', {seats});
        this.act('start');
        break;
      }
      case 'fill-bots': {
        const seats = this.state.room.seats.map((s) => (s.kind === 'open' ? {kind: 'bot', level: 'easy'} : null));
        this.act('configure', {seats});
        break;
      }
      case 'rematch': {
        if (this.state.room.seats.some((s) => s.kind === 'open')) { toast(t('over.fill_first')); break; }
        this.act('rematch');
        break;
      }
      case 'next-round': this.act('next_round'); break;
      case 'bid-go': {
        if (isHand(this.pick)) { this.act('bid', {bid: this.pick}); break; }
        const [q, f] = this.pick; this.act('bid', {quantity: q, face: f}); break;
      }
      case 'call-dudo': this.act('call', {call: 'dudo'}); break;
      case 'call-calza': this.act('call', {call: 'calza'}); break;
      case 'q-down': this.movePick(-1); break;
      case 'q-up': this.movePick(1); break;
      case 'tip-ok': this.practice?.dismiss(this.main.querySelector('#tip')?.dataset.tip); break;
      case 'watch': this.watch = true; this.connect(); this.render(); break;
      case 'play-here': this.replaced = false; this.connect(); this.render(); break;
      case 'keys-help': this.keyboard.showHelp(); break;
      case 'leave': case 'leave-out': this.leaving.ask(target); break;
      case 'leave-new': this.leaving.leave('/'); break;
      case 'sound-toggle': setSound(!soundOn()); this.render(); break;
      case 'notify-toggle': this.toggleNotify(); break;
      default: break;
    }
  }

  async toggleNotify() {
    if (this.notifyOn()) {
      localStorage.setItem('dudo.notify', '0');
    } else {
      let permission = Notification.permission;
      if (permission === 'default') permission = await Notification.requestPermission();
      if (permission === 'granted') localStorage.setItem('dudo.notify', '1');
      else toast(t('table.notify_denied'), 'info');
    }
    this.render();
  }

  copy(link) {
    const done = () => toast(t('table.copied'), 'info');
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(link).then(done, () => {});
    else {
      const input = this.main.querySelector('#share-link');
      if (input) { input.select(); document.execCommand('copy'); done(); }
    }
  }

  movePick(step) {
    const bids = this.legal().bids;
    const quantities = [...new Set(bids.map(([q]) => q))].sort((a, b) => a - b);
    const at = quantities.indexOf(this.pick[0]) + step;
    if (at < 0 || at >= quantities.length) return;
    const q = quantities[at];
    const faces = bids.filter(([bq]) => bq === q).map(([, bf]) => bf);
    this.pick = [q, faces.includes(this.pick[1]) ? this.pick[1] : faces[0]];
    this.render();
  }

  changed(event) {
    const input = event.target;
    if (input.id === 'voice-toggle') { this.voices.set(input.checked); this.render(); return; }
    if (input.dataset.handKind || input.dataset.handFaces) {
      const bids = this.legal().bids.filter(isHand);
      const chosen = input.dataset.handKind
        ? bids.find((hand) => hand.hand === input.value)
        : bids.find((hand) => handKey(hand) === input.value);
      if (chosen) this.pick = chosen;
      this.render();
      this.main.querySelector(`#${input.id}`)?.focus();
      return;
    }
    if (input.id === 'odds-toggle') {
      this.showOdds = input.checked;
      localStorage.setItem('dudo.odds', this.showOdds ? '1' : '0');
      this.render();
      return;
    }
    if (!this.state || !this.state.you.host) return;
    if (input.dataset.configureSeat) {
      const index = Number(input.dataset.configureSeat);
      const seats = this.state.room.seats.map(() => null);
      seats[index] = input.value ? {kind: 'bot', level: input.value} : {kind: 'open'};
      this.act('configure', {seats});
    } else if (input.id === 'set-preset') {
      this.act('configure', {rules: {preset: input.value}});
    } else if (input.dataset.opt && this.catalogue) {
      const root = this.main.querySelector('#set-options');
      const preset = this.main.querySelector('#set-preset').value;
      if (input.dataset.opt === 'wild_ones') wildAcesChanged(this.catalogue, root, preset);
      this.act('configure', {rules: chosenRules(this.catalogue, root, preset)});
    } else if (input.id === 'set-timer') {
      this.act('configure', {timer: Number(input.value)});
    } else if (input.id === 'set-public') {
      this.act('configure', {public: input.checked});
    } else if (input.id === 'lock-room') {
      this.act('configure', {locked: input.checked});
    } else if (input.id === 'chat-on') {
      this.act('configure', {chat: input.checked});
    } else if (input.id === 'set-lost') {
      this.act('configure', {show_lost_dice: input.checked});
    }
  }

  submitted(event) {
    const form = event.target;
    if (form.id === 'chat-form') { event.preventDefault(); this.chat.submit(form); return; }
    if (form.id === 'join-form' || form.id === 'take-form') {
      event.preventDefault();
      this.takeSeat(form.querySelector('input'));
    }
  }

  key(event) {
    if (!this.state || event.target.matches('input, select, textarea') || event.ctrlKey || event.metaKey || event.altKey) return;
    this.skipReveal(); // and the key still does what it does
    const key = event.key.toLowerCase();
    const click = (id) => { const el = this.main.querySelector(`#${id}`); if (el && !el.disabled) { event.preventDefault(); el.click(); } };
    if (key === 'l') click('call-dudo');
    else if (key === 'c') click('call-calza');
    else if (key === 'b') click('bid-go');
    else if (key === '+' || key === '=') click('q-up');
    else if (key === '-') click('q-down');
    else if (FACE_KEYS.includes(key)) click(`face-${key}`);
    else if (key === 'n') click('next-round');
    else if (key === '?') { event.preventDefault(); this.keyboard.showHelp(); }
  }
}

export function rulesHref(rules) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(rules.overrides || rules)) query.set(key, String(value));
  query.set('lang', lang);
  return `/rules?${query}`;
}
