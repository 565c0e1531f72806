// Bots with character: a bot at the table says a line now and then, in its level's voice
// (easy: cheerful, normal: steady, hard: sly; 10 lines a moment, 40 a level, in the
// locales, voice.<level>.<moment>) and, one time in three, in its persona's own manner
// (Grandpa Tito's old port, Uncle Bo's sixes, Viktor's single words: 2 lines a moment,
// voice.persona.<name>.<moment>), at public moments only: someone else's big raise, a
// call, a die it lost, its win (at the game's end that comes before the last reveal).
// Which bot speaks and which line it says follow from what every seat sees (the game, the
// round, the number of bids, who did what), never from a cup: a line is no tell. Each
// player can switch the talk off (remembered in this browser), or silence one bot and keep
// the others (remembered for that room in this tab).
import {escapeHtml, nameHtml} from './page.js';
import {has, t} from './i18n.js';
import {hash} from './avatar.js';
import {placeBubbles} from './bubbles.js';

const SAY_MS = 3500;
const KEY = 'dudo.voices';

// The names a persona has at a German or Spanish table (dudo.bots: Persona.names), by key.
const LOCAL_NAMES = {
  opa_tito: 'grandpa_tito', abuelo_tito: 'grandpa_tito', onkel_bo: 'uncle_bo', tio_bo: 'uncle_bo',
  der_professor: 'the_professor', el_profesor: 'the_professor',
};

// A bot's persona from the name at its seat (public): "Dr. Okafor 4" -> "dr_okafor",
// "Onkel Bo" -> "uncle_bo".
export function personaKey(name) {
  const key = String(name || '').replace(/\s+\d+$/, '').normalize('NFD').replace(/[\u0300-\u036f]/g, '')
    .toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');
  return LOCAL_NAMES[key] || key;
}

// The line a bot of `level` (named `name`) says at `moment`, chosen by public facts alone.
export function chooseLine({level, moment, gameId, round, bids, seat, name}) {
  const facts = `${gameId}|${round}|${bids}|${seat}|${moment}`;
  const own = `voice.persona.${personaKey(name)}.${moment}`;
  const lines = name && has(own) && hash(`${facts}|persona`) % 3 === 0
    ? t(own).split('|') : t(`voice.${level}.${moment}`).split('|');
  return lines[hash(facts) % lines.length];
}

// What the bots say about a state's news: [{seat, line}], at most one. Reads the events,
// the public bids and the seats; not `game.dice` (the receiver's own) nor any cup.
export function reactions(state) {
  const game = state.game;
  const seats = state.room.seats;
  const bots = seats.map((seat, index) => (seat.kind === 'bot' ? index : null)).filter((i) => i != null);
  if (!game || !bots.length) return [];
  const gameId = state.fair?.game_id || '';
  const round = game.round;
  const bids = game.bids.length;
  const speak = (seat, moment) => [{seat, line: chooseLine({level: seats[seat].level, moment, gameId, round, bids, seat, name: seats[seat].name})}];
  const someBot = (not, salt) => {
    const others = bots.filter((seat) => seat !== not);
    return others.length ? others[hash(`${gameId}|${round}|${bids}|${salt}`) % others.length] : null;
  };
  const events = state.events || [];
  // The game's end comes first: its state's events are the last reveal, who went out and
  // the end, in that order, and the reveal always finds a bot to speak, so read in order a
  // bot that won would never say so. A bot among the winners says a winning line; when no
  // bot won, the last reveal is the moment, as any other.
  const over = events.find((event) => event.event === 'game_over');
  const winner = over?.winners.find((seat) => bots.includes(seat));
  if (winner != null) return speak(winner, 'win');
  for (const event of events) {
    if (event.event === 'reveal') {
      if (event.loser != null && bots.includes(event.loser) && event.change) return speak(event.loser, 'lost');
      const who = bots.includes(event.caller) ? event.caller : someBot(null, 'call');
      if (who != null) return speak(who, 'call');
    } else if (event.event === 'bid' && game.phase === 'bidding' && bids >= 2) {
      const previous = game.bids[bids - 2][1];
      const jump = event.quantity - previous[0];
      if (jump >= 2 && hash(`${gameId}|${round}|${bids}|raise`) % 2 === 0) {
        const who = someBot(event.seat, 'raise');
        if (who != null) return speak(who, 'big_raise');
      }
    }
  }
  return [];
}

export class Voices {
  constructor(table, announce) {
    this.table = table;
    this.announce = announce;
    this.said = new Map(); // seat -> [line, until]
    this.game = undefined; // the game the lines are said in (fair.game_id)
    this.muted = new Set(readMuted(this.mutedKey));
    this.spots = new Map(); // seat -> [line, where its bubble is] (bubbles.js)
  }

  get on() {
    return localStorage.getItem(KEY) !== '0';
  }

  get mutedKey() {
    return `${KEY}.muted.${this.table.code}`;
  }

  observe(state, name) {
    // A new game (the rematch) starts with nobody speaking: a line said at the last
    // game's end would hang over the new game's first round.
    const game = state.game ? state.fair?.game_id ?? null : null;
    if (game !== this.game) {
      this.game = game;
      this.said.clear();
    }
    if (!this.on) return;
    // The game's end is the moment: what the bots said just before (the last rounds go
    // fast with few dice) makes way for it, so one bot at most speaks over the result.
    if ((state.events || []).some((event) => event.event === 'game_over')) this.said.clear();
    for (const {seat, line} of reactions(state)) {
      if (this.muted.has(seat)) continue; // that bot keeps its line to itself
      this.said.set(seat, [line, Date.now() + SAY_MS]);
      this.announce(`${name(seat)}: ${line}`);
      setTimeout(() => this.table.render(), SAY_MS + 100);
    }
  }

  bubble(seat) {
    const said = this.said.get(seat);
    if (!this.on || this.muted.has(seat) || !said || said[1] <= Date.now()) return '';
    return `<span class="say" data-since="${said[1] - SAY_MS}" aria-hidden="true"><bdi>${escapeHtml(said[0])}</bdi></span>`;
  }

  // After each drawing (and when the window changes size): each bubble docked to its seat
  // where it covers nothing (bubbles.js).
  place(root) {
    placeBubbles(root, this.spots);
  }

  // The switch, where there are bots at the table; with talk on and two bots or more, a
  // box per bot to silence that one alone.
  toggle() {
    const state = this.table.state;
    const bots = (state?.room.seats || []).flatMap((seat, index) => (seat.kind === 'bot' ? [index] : []));
    if (!bots.length) return '';
    const all = `<label class="check small voice-toggle"><input type="checkbox" id="voice-toggle" ${this.on ? 'checked' : ''}> ${escapeHtml(t('voice.toggle'))}</label>`;
    if (!this.on || bots.length < 2) return `<div class="voices" data-key="voices">${all}</div>`;
    const each = bots.map((seat) => `<label class="check small"><input type="checkbox" data-voice-seat="${seat}" ${this.muted.has(seat) ? '' : 'checked'}> ${nameHtml(state.room.seats[seat].name || '')}</label>`).join('');
    return `<div class="voices" data-key="voices">${all}<fieldset class="voice-each"><legend>${escapeHtml(t('voice.each'))}</legend>${each}</fieldset></div>`;
  }

  set(on) {
    localStorage.setItem(KEY, on ? '1' : '0');
    if (!on) this.said.clear();
  }

  // One bot silenced (or heard again) for this player, whatever the others say.
  mute(seat, muted) {
    if (muted) {
      this.muted.add(seat);
      this.said.delete(seat);
    } else {
      this.muted.delete(seat);
    }
    try {
      sessionStorage.setItem(this.mutedKey, JSON.stringify([...this.muted]));
    } catch {
      // storage refused (private mode): the choice holds for this page
    }
  }
}

function readMuted(key) {
  try {
    const seats = JSON.parse(sessionStorage.getItem(key) || '[]');
    return Array.isArray(seats) ? seats.filter(Number.isInteger) : [];
  } catch {
    return [];
  }
}
