// The game log: every round of the game this browser has seen (bids, the call, the
// reveal, who lost what, who went out), built from the states' events and checked against
// each state (a reload or a late arrival fills in what the state still carries). Kept in
// localStorage by game id, so a reload keeps the whole story.
const PREFIX = 'dudo.log.';
const KEEP = 8; // logs of this many games at most

function emptyLog(id) {
  return {id, rounds: [], outs: [], winners: [], complete: true};
}

export class GameLog {
  constructor() {
    this.data = emptyLog(null);
  }

  get rounds() { return this.data.rounds; }
  get outs() { return this.data.outs; }
  // False when the log starts after round 1 (this browser arrived late).
  get complete() { return this.data.complete && (!this.data.rounds.length || this.data.rounds[0].n === 1); }

  load(id) {
    let data = null;
    try { data = JSON.parse(localStorage.getItem(PREFIX + id)); } catch { data = null; }
    this.data = data && data.id === id && Array.isArray(data.rounds) ? data : emptyLog(id);
  }

  save() {
    if (!this.data.id) return;
    try {
      localStorage.setItem(PREFIX + this.data.id, JSON.stringify(this.data));
      const keys = Object.keys(localStorage).filter((key) => key.startsWith(PREFIX));
      if (keys.length > KEEP) {
        const stamps = keys.map((key) => {
          try { return [key, JSON.parse(localStorage.getItem(key)).at || 0]; } catch { return [key, 0]; }
        }).sort((a, b) => a[1] - b[1]);
        for (const [key] of stamps.slice(0, keys.length - KEEP)) localStorage.removeItem(key);
      }
    } catch {
      // storage full or refused: the log still lives for this page
    }
  }

  round(n, create = true) {
    let found = this.data.rounds.find((round) => round.n === n);
    if (!found && create) {
      found = {n, opener: null, palifico: false, wild: true, dice: null, bids: [], reveal: null, outs: []};
      this.data.rounds.push(found);
      this.data.rounds.sort((a, b) => a.n - b.n);
    }
    return found;
  }

  // The round a reveal in this state belongs to: after a call the game already counts
  // the next round (waiting to be rolled), except when the call ended the game.
  static revealedRound(game) {
    return game.phase === 'over' ? game.round : game.round - 1;
  }

  static mergeBids(logged, actual) {
    // The state's list is the truth; marks (timer, stand-in) come from the events seen.
    // A bid is [q, f], or a poker hand {hand, faces} (kept as `hand`, q and f null).
    return actual.map(([seat, bid], index) => {
      const hand = Array.isArray(bid) ? null : {hand: bid.hand, faces: bid.faces || []};
      const [q, f] = hand ? [null, null] : bid;
      const seen = logged[index];
      const same = seen && seen.seat === seat && seen.q === q && seen.f === f
        && JSON.stringify(seen.hand || null) === JSON.stringify(hand);
      return {seat, q, f, hand, by: same ? seen.by : null};
    });
  }

  observe(state) {
    const game = state.game;
    const id = state.fair?.game_id;
    if (!game || !id) return;
    if (this.data.id !== id) this.load(id);
    this.data.at = Date.now();
    let current = this.data.rounds.length ? this.data.rounds[this.data.rounds.length - 1] : null;
    for (const event of state.events || []) {
      if (event.event === 'round') {
        current = this.round(event.number);
        Object.assign(current, {opener: event.opener, palifico: event.palifico, wild: event.wild,
          dice: event.dice_counts});
      } else if (event.event === 'bid') {
        const n = game.phase === 'bidding' ? game.round : GameLog.revealedRound(game);
        current = this.round(n);
        const hand = event.hand ? {hand: event.hand, faces: event.faces || []} : null;
        current.bids.push({seat: event.seat, q: hand ? null : event.quantity, f: hand ? null : event.face, hand, by: event.by || null});
      } else if (event.event === 'reveal') {
        current = this.round(GameLog.revealedRound(game));
        const {event: _, cups, ...reveal} = event;
        current.reveal = {...reveal, cups, by: event.by || null};
      } else if (event.event === 'out') {
        const n = game.phase === 'bidding' ? game.round : GameLog.revealedRound(game);
        const round = this.round(n);
        if (!round.outs.includes(event.seat)) round.outs.push(event.seat);
        if (!this.data.outs.includes(event.seat)) this.data.outs.push(event.seat);
      } else if (event.event === 'game_over') {
        this.data.winners = event.winners;
      }
    }
    // What the state itself says wins over what the events told (a missed state, a reload).
    if (game.phase === 'bidding') {
      const round = this.round(game.round);
      if (round.opener == null) round.opener = game.opener;
      round.palifico = game.palifico;
      round.wild = game.wild;
      if (round.bids.length !== game.bids.length) round.bids = GameLog.mergeBids(round.bids, game.bids);
    }
    const reveal = game.last_reveal;
    if (reveal && game.phase !== 'bidding') {
      const round = this.round(GameLog.revealedRound(game));
      if (reveal.bids && round.bids.length !== reveal.bids.length) round.bids = GameLog.mergeBids(round.bids, reveal.bids);
      if (!round.reveal) {
        const {bids: _, ...rest} = reveal;
        round.reveal = {...rest, by: null};
      }
    }
    if (game.phase === 'over') this.data.winners = game.winners;
    this.save();
  }

  // Numbers per seat: bids made, calls right and wrong, bids called that were lies
  // (caught bluffing), dice (or points) lost.
  stats(players) {
    const rows = Array.from({length: players}, () => ({bids: 0, right: 0, wrong: 0, caught: 0, lost: 0}));
    for (const round of this.data.rounds) {
      for (const bid of round.bids) if (rows[bid.seat]) rows[bid.seat].bids += 1;
      const reveal = round.reveal;
      if (!reveal) continue;
      const caller = rows[reveal.caller];
      const right = reveal.outcome === 'fails' || reveal.outcome === 'exact';
      if (caller) caller[right ? 'right' : 'wrong'] += 1;
      if (reveal.call === 'dudo' && reveal.outcome === 'fails' && rows[reveal.bidder]) rows[reveal.bidder].caught += 1;
      if (reveal.loser != null && rows[reveal.loser]) rows[reveal.loser].lost += reveal.change || 0;
    }
    return rows;
  }
}
