// The table's connection: one WebSocket to the room, its messages out (send, act, the
// fair-dice seeds) and in (handed to the table), a ping against idle proxies, and a
// reconnect with back-off when the socket drops. What a close code means for the seat
// (the token refused, the seat freed or taken elsewhere, the seat left) is the table's to
// decide: `ended(code)` says whether it took care of it; otherwise the socket comes back.
import {clientId, randomHex, toast} from './page.js';
import {t} from './i18n.js';

export class Connection {
  // `handlers`: token() the seat token or null (a spectator), receive(message), ended(code)
  // true when the table handled that close, changed() to draw the table again.
  constructor(code, handlers) {
    this.code = code;
    this.handlers = handlers;
    this.socket = null;
    this.retry = 0;
    this.offline = false;
    this.closed = false;
    this.pinger = null;
    this.seededRound = null;
    // A phone that loses its network keeps a socket that never closes (nothing arrives to
    // close it): the browser's offline event shows "reconnecting" at once, and the socket
    // is opened afresh when the network is back.
    addEventListener('offline', () => {
      if (this.closed || !this.socket) return;
      this.offline = true;
      this.handlers.changed();
    });
    addEventListener('online', () => {
      if (this.closed || !this.socket) return;
      this.retry = 0;
      this.open();
    });
  }

  open() {
    if (this.socket) {
      const old = this.socket;
      this.socket = null;
      old.close();
    }
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    // The seat token goes as a WebSocket subprotocol, so no URL (nor a proxy's log) has it.
    const token = this.handlers.token();
    const protocols = ['dudo.v1', ...(token ? [`token.${token}`] : [])];
    const socket = new WebSocket(
      `${scheme}://${location.host}/ws/${this.code}?client=${clientId()}`, protocols);
    this.socket = socket;
    socket.addEventListener('open', () => { this.retry = 0; this.offline = false; });
    socket.addEventListener('message', (event) => {
      if (socket === this.socket) this.handlers.receive(JSON.parse(event.data));
    });
    socket.addEventListener('close', (event) => {
      if (this.closed || socket !== this.socket) return;
      if (this.handlers.ended(event.code)) {
        // Handled for good (the seat left or taken elsewhere): the network coming back
        // does not reopen it.
        if (socket === this.socket) this.socket = null;
        return;
      }
      this.offline = true;
      this.handlers.changed();
      this.retry = Math.min(this.retry + 1, 6);
      setTimeout(() => { if (socket === this.socket) this.open(); }, 300 * 2 ** (this.retry - 1));
    });
    clearInterval(this.pinger);
    this.pinger = setInterval(() => this.send({type: 'ping'}), 20000);
  }

  close() {
    this.closed = true;
    clearInterval(this.pinger);
    if (this.socket) this.socket.close();
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN && !this.offline) {
      this.socket.send(JSON.stringify(message));
      return true;
    }
    toast(t('table.offline'));
    return false;
  }

  // An action of the seat, with an id for its acknowledgement (returned: an answer names
  // it); a bid or a call names the state it answers (`version`), so a stale click is
  // refused, not misread.
  act(type, fields, version) {
    const message = {type, id: randomHex(8), ...fields};
    if (type === 'bid' || type === 'call') message.version = version;
    this.send(message);
    return message.id;
  }

  // A fresh seed of this seat for every round it has not yet seeded (fair dice).
  // Only the round waiting to be rolled takes seeds; the message names it, so the server
  // uses the seed for that round or refuses it.
  seed(state) {
    const fair = state.fair;
    const game = state.game;
    if (!fair || fair.round == null || state.you.seat == null) return;
    if (game?.phase !== 'roll') return;
    const key = `${fair.game_id}:${fair.round}`;
    if (this.seededRound === key) return;
    this.seededRound = key;
    this.send({type: 'seed', round: fair.round, seed: randomHex(32)});
  }
}
