// Results are history: what the table says about a game (who bid, who lost, who won, the
// standings) names the players as they sat when that game started, never the seats as
// they are now. Between games the host may turn a bot's seat into an open one and a
// spectator may sit there: the finished game still belongs to the bot that played it.
// The server sends those names with every state of a game (`names`, as in its record).
import {t} from './i18n.js';

// The name a seat played the current (or just finished) game by.
export function playedName(state, seat) {
  const names = state?.game ? state.names : null;
  const name = names?.[seat];
  if (name) return name;
  return state?.room.seats[seat]?.name || t('seat.number', {n: seat + 1});
}

// The name a seat has now (for what happens now: a reaction, a seat in the lobby).
export function seatName(state, seat) {
  return state?.room.seats[seat]?.name || t('seat.number', {n: seat + 1});
}
