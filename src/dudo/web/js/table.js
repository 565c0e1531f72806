// The table: one WebSocket, and a drawing of whatever state the server last sent.
// Nothing here decides a rule: the legal bids and calls come from the server's view.
// Each state is drawn as markup and morphed into the page (morph.js): only what changed
// is touched, so focus, scroll and animations survive; clicks and changes are handled in
// one place (input.js), by the id or data attribute of what was pressed.
//
// This module holds the table's state and puts the parts together; each job is a module
// of its own: the socket (connection.js), the words and cues (narration.js), the room
// around the game (room.js), the felt (felt.js), the action bar (actions.js), the log and
// standings (results.js), the clocks (clock.js) and the player's input (input.js).
import {announce, errorText, escapeHtml, memory, toast} from './page.js';
import {t} from './i18n.js';
import {Practice} from './practice.js';
import {rememberGame} from './mygames.js';
import {morph} from './morph.js';
import {SeriesPanel} from './series.js';
import {GameLog} from './gamelog.js';
import {playedName, seatName} from './history.js';
import {quickLobby} from './quick.js';
import {CLOSE_LEFT, Leaving} from './leave.js';
import {Keyboard} from './keyboard.js';
import {Voices} from './voice.js';
import {Chat} from './chat.js';
import {loadCatalogue} from './rooms.js';
import {Connection} from './connection.js';
import {refusalText} from './refusal.js';
import {Narrator, outcomeSentence, winnerText} from './narration.js';
import {joinPage, lobbyPanel, nextGame, roomHead, rulesHref, rulesLine, seatList} from './room.js';
import {RevealCount, feltHtml, ownDice} from './felt.js';
import {titleCutNames} from './names.js';
import {actionBar, legal} from './actions.js';
import {gameLog, rolloffPanel, standings} from './results.js';
import {tickClocks} from './clock.js';

// The table's stylesheets (css/table.css, css/room.css), from the versioned folder of
// dudo.css: only a room's page loads them, so the home page stays light
// (tests/browser/test_web_weight.py). app.js waits for them (loaded or failed) before the
// table is first drawn.
function loadRoomStyles() {
  const base = document.querySelector('link[href$="/css/dudo.css"]');
  if (!base) return Promise.resolve();
  let after = base;
  return Promise.all(['table.css', 'room.css'].map((name) => {
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = base.href.replace(/dudo\.css$/, name);
    const loaded = new Promise((resolve) => { link.onload = resolve; link.onerror = resolve; });
    after.after(link);
    after = link;
    return loaded;
  }));
}
export const roomStyles = loadRoomStyles();
import {TableInput} from './input.js';

export {rulesHref};

const EMOTES = ['👍', '😂', '😮', '🤔', '😈', '🎲'];

export function openTable(main, code, params) {
  return new Table(main, code, params);
}

// Steps anyone at the table may take: the next round, the first game, a rematch. When two
// players press the same button at once, or Next round as its countdown runs out, the
// server takes the first and refuses the others as `not_now`; the table has done what the
// player asked, so the refusal is not news to them (no error toast).
const SHARED_STEPS = new Set(['next_round', 'start', 'rematch']);

class Table {
  constructor(main, code, params) {
    this.main = main;
    this.code = code;
    this.series = new SeriesPanel(code, () => this.render());
    this.session = memory.seat(code);
    this.watch = params.get('watch') === '1' && !this.session;
    this.state = null;
    this.closed = false;
    this.pick = null; // [quantity, face] chosen in the picker, or a hand {hand, faces}
    this.pickTurn = null; // the turn the pick was made for (a new turn gets a new default)
    this.sharedSteps = new Set(); // ids of our SHARED_STEPS not yet answered
    this.emotes = new Map(); // seat -> [emote, until]
    this.drawn = null; // what render last drew: 'lobby' or 'table'
    this.drawnOver = null; // the game whose end was drawn (room.game)
    this.showOdds = localStorage.getItem('dudo.odds') === '1';
    this.connection = new Connection(code, {
      token: () => this.session?.token,
      receive: (message) => this.receive(message),
      ended: (closeCode) => this.ended(closeCode),
      changed: () => this.render(),
    });
    this.practice = memory.practice(code) ? new Practice(this) : null;
    this.leaving = new Leaving(this);
    this.keyboard = new Keyboard(this);
    this.voices = new Voices(this, announce);
    this.chat = new Chat(this);
    if (this.practice) this.showOdds = localStorage.getItem('dudo.odds') !== '0';
    this.startSent = false;
    this.narrator = new Narrator(code);
    this.log = new GameLog();
    this.openDetails = new Set();
    this.catalogue = null;
    this.revealing = new RevealCount(this);
    this.joinError = '';
    this.baseTitle = document.title;
    this.tick = setInterval(() => tickClocks(this.main, this.state), 250);
    this.onVisible = () => { if (!document.hidden) document.title = this.title(); };
    document.addEventListener('visibilitychange', this.onVisible);
    // The bots' bubbles are placed, and cut names given a title, from the boxes on the
    // page: again when those change without a new state (the window's size, the table's
    // typeface arriving).
    this.onResize = () => {
      if (this.closed) return;
      titleCutNames(this.main); // names fitted first: the bubbles are placed on the seats
      this.voices.place(this.main);
    };
    window.addEventListener('resize', this.onResize);
    document.fonts?.ready.then(this.onResize);
    this.input = new TableInput(this);
    if (this.session || this.watch) this.connect();
  }

  close() {
    this.closed = true;
    clearInterval(this.tick);
    this.revealing.stop();
    this.leaving.close();
    this.keyboard.close();
    document.removeEventListener('visibilitychange', this.onVisible);
    window.removeEventListener('resize', this.onResize);
    this.input.close();
    this.connection.close();
  }

  // -- the connection -----------------------------------------------------------------

  // The socket now (for the browser tests and the curious: window.dudo.view.socket).
  get socket() {
    return this.connection.socket;
  }

  connect() {
    this.connection.open();
  }

  send(message) {
    return this.connection.send(message);
  }

  act(type, fields = {}) {
    // Practice: a move made with a tip on screen means it was read; the next one comes.
    if (this.practice && (type === 'bid' || type === 'call')) this.practice.moved();
    const id = this.connection.act(type, fields, this.state?.version);
    if (SHARED_STEPS.has(type)) {
      if (this.sharedSteps.size > 20) this.sharedSteps.clear(); // answers lost with a socket
      this.sharedSteps.add(id);
    }
  }

  // The socket closed with a code that says something about the seat: true when that is
  // taken care of here (no reconnect).
  ended(code) {
    if (code === 4401) { // the token is not valid here any more: ask again
      memory.dropSeat(this.code);
      this.session = null;
      this.state = null;
      this.joinError = t('table.seat_lost');
      this.render();
      return true;
    }
    if (code === 4410) { // the host freed this seat: watch from now on
      memory.dropSeat(this.code);
      this.session = null;
      this.watch = true;
      toast(t('err.removed'), 'info');
      announce(t('err.removed'));
      this.connect();
      return true;
    }
    if (code === 4404) { this.missing = true; this.render(); return true; }
    if (code === CLOSE_LEFT) { this.leaving.left(); return true; }
    if (code === 4409) { // another tab took this seat: no tug of war, ask first
      this.replaced = true;
      toast(t('err.replaced'), 'info');
      this.render();
      return true;
    }
    return false;
  }

  receive(message) {
    if (message.type === 'state') {
      this.state = message;
      this.log.observe(message);
      this.connection.seed(message);
      this.narrator.narrate(message, (words) => this.revealing.hold(words));
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
      // Told by the socket's close code (above), once.
      if (message.code === 'removed' || message.code === 'replaced') return;
      // Someone else (or the timer) took the step first: the table moved on as asked.
      if (message.code === 'not_now' && this.sharedSteps.delete(message.id)) return;
      const text = refusalText(message) ?? errorText(message);
      announce(text);
      toast(text, 'error', {announced: true});
    } else if (message.type === 'ack') {
      this.sharedSteps.delete(message.id); // done: its id is no longer ours to wait for
    } else if (message.type === 'chat') {
      this.chat.receive(message);
    } else if (message.type === 'emote') {
      this.emotes.set(message.seat, [message.emote, Date.now() + 3000]);
      announce(`${seatName(this.state, message.seat)}: ${message.emote}`);
      this.render();
      setTimeout(() => this.render(), 3100);
    }
  }

  // -- what the parts share -------------------------------------------------------------

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

  legal() {
    return legal(this.state);
  }

  // The sentences of narration.js for this state (kept here for the browser tests).
  outcomeSentence(reveal) {
    return outcomeSentence(this.state, reveal);
  }

  winnerText(winners) {
    return winnerText(this.state, winners);
  }

  // -- drawing --------------------------------------------------------------------------

  render() {
    if (this.closed) return;
    document.body.dataset.view = 'table';
    if (this.missing) {
      morph(this.main, `<section class="card"><h1>${escapeHtml(t('table.no_room', {code: this.code}))}</h1><p><a href="/">${escapeHtml(t('table.home'))}</a></p></section>`);
      return;
    }
    if (!this.session && !this.watch) { joinPage(this); return; }
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
    this.revealing.follow();
    let html;
    if (room.status === 'lobby') {
      const panel = room.quick ? quickLobby(this.state, seatList(this.state), rulesLine(this)) : lobbyPanel(this);
      html = `<div class="table-page lobby">${roomHead(this)}${panel}
        ${this.practice ? this.practice.panel() : `${you.seat != null ? this.emoteBar() : ''}${this.chat.panel()}`}</div>`;
    } else {
      const side = [actionBar(this), rolloffPanel(this)];
      // Practice: during your turn the tip for this step comes first (on a phone, above the
      // picker: both on the first screen).
      const mine = game && game.phase === 'bidding' && game.turn === you.seat;
      if (this.practice) side.splice(mine ? 0 : 1, 0, this.practice.panel(mine));
      if (game && game.phase === 'over') {
        this.series.follow(room.game);
        side.push(standings(this), this.series.panel(), nextGame(this));
      }
      side.push(gameLog(this));
      // Practice is a lesson against two bots: no table talk, emotes or bot-talk settings.
      if (!this.practice) {
        if (you.seat != null) side.push(this.emoteBar());
        side.push(this.voices.toggle(), this.chat.panel());
      }
      // data-bids: a Common Hand room (poker) lays out its taller picker otherwise (table.css).
      html = `<div class="table-page ${room.status}" data-seats="${room.seats.length}" data-bids="${escapeHtml(room.rules.bids || 'quantity')}">${roomHead(this)}
        <div class="board" data-key="board">${feltHtml(this)}${ownDice(this)}</div>
        <div class="side" data-key="side">${side.join('')}</div></div>`;
    }
    this.keyboard.before();
    const ending = game?.phase === 'over' && this.drawnOver !== room.game;
    const place = window.scrollY;
    morph(this.main, html);
    titleCutNames(this.main); // names fitted first: the bubbles are placed on the seats
    this.voices.place(this.main);
    // From the lobby (scrolled down to Start, on a phone) to the felt: the table starts at
    // the top of the page, the felt and your turn on the first screen.
    const view = room.status === 'lobby' ? 'lobby' : 'table';
    if (this.drawn === 'lobby' && view === 'table') window.scrollTo(0, 0);
    this.drawn = view;
    if (ending) this.keepPlaceAtTheEnd(place);
    this.keyboard.after();
    if (game && game.phase === 'over') {
      const id = this.state.fair?.game_id; // the finished game's page: replay, analysis, dice checked
      if (id) rememberGame({id, room: this.code, names: room.seats.map((_, i) => this.name(i)), seat: you.seat, winners: game.winners.map((s) => this.name(s))});
    }
  }

  // The game's end is drawn where the player was. The side column grows then (standings,
  // the series, the next game, over the log): the browser's scroll anchoring kept the log
  // or the chat a player had scrolled to in place, so the page jumped down by that much
  // (about 700 px on a phone held sideways) and the winner's heading went off the screen.
  // The place is kept as it was; if the player was looking at the felt, the winner's
  // heading is brought in with the least move (none when it is already on the screen).
  // The heading pops in (a growing scale): its box is taken from the layout, untransformed.
  keepPlaceAtTheEnd(place) {
    this.drawnOver = this.state.room.game;
    window.scrollTo(window.scrollX, place);
    const felt = this.main.querySelector('.felt')?.getBoundingClientRect();
    const heading = this.main.querySelector('.centre.over .big');
    const parent = heading?.offsetParent;
    if (!felt || !parent || felt.bottom <= 0 || felt.top >= window.innerHeight) return;
    const top = parent.getBoundingClientRect().top + parent.clientTop + heading.offsetTop;
    const bottom = top + heading.offsetHeight;
    const margin = 8;
    if (top < margin) window.scrollBy(0, top - margin);
    else if (bottom > window.innerHeight - margin) window.scrollBy(0, bottom - window.innerHeight + margin);
  }

  emoteBar() {
    return `<section class="emotes" data-key="emotes" aria-label="${escapeHtml(t('table.reactions'))}">${EMOTES.map((e, i) =>
      `<button class="emote" data-emote="${e}" id="emote-${i}" aria-label="${escapeHtml(t(`emote.${i}`))}">${e}</button>`).join('')}</section>`;
  }
}
