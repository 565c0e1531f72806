// The games played (or opened) on this device, kept in localStorage: no account, nothing
// sent anywhere. Each entry: {id, room, names, seat, winners, when} (seat: ours, or null).
const KEY = 'dudo.games';
const LIMIT = 200;

export function myGames() {
  try {
    const list = JSON.parse(localStorage.getItem(KEY) || '[]');
    return Array.isArray(list) ? list.filter((entry) => entry && /^[A-Za-z0-9]{1,40}$/.test(entry.id)) : [];
  } catch {
    return [];
  }
}

// Adds a game once (the first time is kept: when it was played); fills in what an earlier
// entry lacked. Safe to call on every redraw.
export function rememberGame(entry) {
  if (!entry || !/^[A-Za-z0-9]{1,40}$/.test(entry.id || '')) return;
  const list = myGames();
  const found = list.find((game) => game.id === entry.id);
  if (found) {
    let changed = false;
    for (const [key, value] of Object.entries(entry)) {
      if ((found[key] == null || (key === 'seat' && found.seat == null)) && value != null) {
        found[key] = value;
        changed = true;
      }
    }
    if (!changed) return;
  } else {
    list.unshift({when: Date.now(), ...entry});
  }
  try {
    localStorage.setItem(KEY, JSON.stringify(list.slice(0, LIMIT)));
  } catch {
    // storage full or refused (private mode): the list is a convenience, not a record
  }
}

export function forgetGame(id) {
  localStorage.setItem(KEY, JSON.stringify(myGames().filter((game) => game.id !== id)));
}
