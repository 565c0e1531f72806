// Narration and cues: what the table says in words (the live region, the log, the centre)
// and the sounds and calls back that go with it. The sentences are functions of the state
// alone (a reveal, a roll-off attempt, the winners, in the names of that game); the
// Narrator reads each new state's events aloud once, plays their sounds, and calls the
// player back when the turn comes in a background tab (title, notification, vibration).
import {announce, listNames, toast} from './page.js';
import {bidWords, t} from './i18n.js';
import {anyBidWords, eventBid, handWords, isHand} from './hands.js';
import {playedName} from './history.js';
import {play} from './sound.js';

const isPoints = (state) => state?.room.rules.format === 'points';

// A move the seat's player did not make: by the turn timer, or by a stand-in bot.
export function byWords(by) {
  return by === 'timer' ? t('log.by_timer') : by === 'stand_in' ? t('log.by_stand_in') : '';
}

// Whether the game's last reveal put its loser out (no dice left; never in a points race).
function putOut(state, reveal) {
  return reveal.loser != null && !isPoints(state) && state?.game?.dice_counts[reveal.loser] === 0;
}

// Who lost or won what at a reveal; `out`: the loser lost the last die (and is out).
export function outcomeSentence(state, reveal, out = putOut(state, reveal)) {
  const name = (seat) => playedName(state, seat);
  if (reveal.loser == null) {
    if (reveal.change) return t('reveal.wins_die', {name: name(reveal.caller)});
    // An exact calza gives a die back only to someone below the starting number.
    return t('reveal.exact_no_change', {name: name(reveal.caller), n: state?.room.rules.starting_dice ?? 5});
  }
  if (isPoints(state)) return t('reveal.takes_points', {name: name(reveal.loser), n: reveal.change});
  if (out) return t('reveal.loses_out', {name: name(reveal.loser), n: reveal.change});
  return t('reveal.loses', {name: name(reveal.loser), n: reveal.change});
}

// A whole reveal: who called what on which bid, what the cups showed, the outcome.
export function revealSentence(state, reveal, out = putOut(state, reveal)) {
  const name = (seat) => playedName(state, seat);
  const call = reveal.call === 'calza' ? t('call.calza') : t('call.dudo');
  if (isHand(reveal.bid)) {
    const bid = handWords(reveal.bid);
    const there = t(reveal.outcome === 'holds' ? 'reveal.hand_there' : 'reveal.hand_missing', {bid});
    return `${t('reveal.sentence_hand', {caller: name(reveal.caller), call, bid})} ${there} ${outcomeSentence(state, reveal, out)}`;
  }
  const [q, f] = reveal.bid;
  return `${t('reveal.sentence', {caller: name(reveal.caller), call, bid: bidWords(q, f),
    count: reveal.count})} ${outcomeSentence(state, reveal, out)}`;
}

// One roll-off attempt in words: who tied (they roll again), or who opens.
export function rolloffSentence(state, attempt) {
  const name = (seat) => playedName(state, seat);
  const totals = attempt.rolls.map(([a, b]) => a + b);
  const total = Math.max(...totals);
  if (attempt.tied.length > 1) return t('rolloff.tied', {total, names: listNames(attempt.tied.map(name))});
  const opener = attempt.tied[0];
  return opener === state?.you.seat ? t('rolloff.you_open', {total}) : t('rolloff.opens', {name: name(opener), total});
}

export function winnerText(state, winners) {
  const names = winners.map((s) => playedName(state, s));
  return t('table.winner', {names: listNames(names), n: names.length});
}

// The turn cue's notification: only where the player allowed it (the bell).
export function notifyOn() {
  return 'Notification' in window && localStorage.getItem('dudo.notify') === '1'
    && Notification.permission === 'granted';
}

// The bell: ask the browser's permission the first time; remembered in this browser.
export async function toggleNotify() {
  if (notifyOn()) {
    localStorage.setItem('dudo.notify', '0');
  } else {
    let permission = Notification.permission;
    if (permission === 'default') permission = await Notification.requestPermission();
    if (permission === 'granted') localStorage.setItem('dudo.notify', '1');
    else toast(t('table.notify_denied'), 'info');
  }
}

export class Narrator {
  constructor(code) {
    this.code = code;
    this.announcedDice = null;
    this.lastTurnAnnounced = null;
    this.seatsSeen = null;
  }

  // A player who left the table and a new host, told to the others once, when a state
  // shows the change (not on the first state seen: that is no news).
  tellSeats(state) {
    const room = state.room;
    const before = this.seatsSeen;
    this.seatsSeen = {left: room.seats.map((seat) => !!seat.left), host: room.host};
    if (!before) return;
    const tell = (words) => { announce(words); toast(words, 'info', {announced: true}); };
    room.seats.forEach((seat, index) => {
      if (seat.left && !before.left[index] && index !== state.you.seat) tell(t('say.left', {name: seat.name}));
    });
    if (room.host != null && room.host !== before.host) {
      tell(room.host === state.you.seat ? t('say.you_host') : t('say.new_host', {name: room.seats[room.host].name}));
    }
  }

  // A move the turn timer made, told in words beside the log's "(timer)" mark: to the
  // player whose time ran out above all, who may not have been watching.
  tellTimedOut(state, seat) {
    if (seat == null) return;
    const words = seat === state.you.seat ? t('say.timed_out_you') : t('say.timed_out', {name: playedName(state, seat)});
    toast(words, 'info');
  }

  // Every event of a new state in words (and sound), your new dice once per round, and
  // your turn once per turn. A reveal's result (and who went out at it) is given to
  // `hold`, which keeps it back while the felt counts the reveal up (felt.js,
  // RevealCount.hold); then only the call is said at once, as the felt shows it.
  narrate(state, hold = () => false) {
    this.tellSeats(state);
    const me = state.you.seat;
    const name = (seat) => playedName(state, seat);
    let held = false;
    let toldOut = null; // the seat a reveal's sentence said is out
    for (const event of state.events || []) {
      const by = event.by ? ` ${byWords(event.by)}` : '';
      if (event.by === 'timer') this.tellTimedOut(state, event.event === 'bid' ? event.seat : event.caller);
      if (event.event === 'bid') {
        announce(t('say.bid', {name: name(event.seat), bid: anyBidWords(eventBid(event))}) + by);
        play('bid');
      } else if (event.event === 'reveal') {
        const words = revealSentence(state, event) + by;
        if (putOut(state, event)) toldOut = event.loser;
        held = hold(words);
        if (held) announce(t('reveal.caller', {name: name(event.caller), call: event.call === 'calza' ? t('call.calza') : t('call.dudo_shout')}) + by);
        else announce(words);
        play('call');
        const lost = event.loser === me && me != null;
        setTimeout(() => play(lost ? 'lose' : 'reveal'), 450);
      } else if (event.event === 'out') {
        const words = t('say.out', {name: name(event.seat)});
        if (event.seat !== toldOut && (!held || !hold(words))) announce(words);
      } else if (event.event === 'game_over') {
        const names = event.winners.map(name);
        announce(t('say.winner', {names: listNames(names), n: names.length}));
        if (event.winners.includes(me)) setTimeout(() => play('win'), 700);
      } else if (event.event === 'rolloff') {
        announce(rolloffSentence(state, event));
        if (me != null && event.seats.includes(me)) play('roll');
      } else if (event.event === 'round') {
        announce(t('say.round', {n: event.number, name: name(event.opener)}));
        if (me != null && event.dice_counts[me]) play('roll');
      }
    }
    const game = state.game;
    const diceKey = game?.dice.length ? `${state.fair?.game_id}:${game.round}` : null;
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
    if (!notifyOn()) return;
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
}
