// This device's profile: a random secret made on the first visit (crypto.getRandomValues),
// kept in localStorage and sent only in request bodies (never in a URL); the server keeps
// a hash of it. No sign-up: the profile is registered the first time the player sits
// down (or opens /me), under the name they play with. docs/protocol.md, "Profiles".
const SECRET = 'dudo.profile.secret';
const ID = 'dudo.profile.id';
const JOINS = /^\/api\/(rooms|quick|rooms\/[A-Za-z]{4}\/join)$/;

function randomSecret() {
  const values = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(values, (b) => b.toString(16).padStart(2, '0')).join('');
}

// The secret, made now if this is the first visit.
export function profileSecret() {
  let secret = localStorage.getItem(SECRET);
  if (!/^[0-9a-f]{64}$/.test(secret || '')) {
    secret = randomSecret();
    localStorage.setItem(SECRET, secret);
    localStorage.removeItem(ID);
  }
  return secret;
}

export function profileId() {
  return localStorage.getItem(ID);
}

async function post(path, body) {
  try {
    const response = await fetch(path, {
      method: 'POST', headers: {'Content-Type': 'application/json',
                                'X-Dudo-Client': localStorage.getItem('dudo.client') || ''},
      body: JSON.stringify(body)});
    const data = await response.json().catch(() => ({}));
    return {ok: response.ok, status: response.status, data};
  } catch {
    return {ok: false, status: 0, data: {error: 'network'}};
  }
}

let refusal = null; // the server's answer when it last would not make the profile

// Why the profile could not be made just now (the server's error body), or null.
export function profileRefusal() {
  return refusal;
}

// Registers the profile once; the server answers with it (or with the one it already has).
// Refused (too many new profiles from one address, the network gone), it is null and
// profileRefusal() says why: the game goes on, without counting for a profile.
export async function ensureProfile(name) {
  const secret = profileSecret();
  if (profileId()) return secret;
  const answer = await post('/api/profile', {secret, ...(name ? {name} : {})});
  refusal = answer.ok ? null : answer.data;
  if (!answer.ok) return null;
  localStorage.setItem(ID, answer.data.profile.id);
  return secret;
}

// A join, a new room or a quick game: the body gains this device's profile, so the seat
// counts for it (page.js's api() asks for every request; only these paths change).
export async function withProfile(path, body) {
  if (!body || typeof body !== 'object' || !JOINS.test(path)) return body;
  const secret = await ensureProfile(body.name);
  // A copy either way: api() tells a join (a new object) from any other request.
  return secret ? {...body, profile: secret} : {...body};
}

export function profileCall(path, extra = {}) {
  return post(path, {secret: profileSecret(), ...extra});
}

// Another device's code took this device over: its own new secret is the profile's key.
export async function claimProfile(code) {
  const secret = randomSecret();
  const answer = await post('/api/profile/claim', {secret, code});
  if (answer.ok) {
    localStorage.setItem(SECRET, secret);
    localStorage.setItem(ID, answer.data.profile.id);
  }
  return answer;
}

// After "forget me" (or a server that no longer knows it): a new secret next time.
export function dropProfile() {
  localStorage.removeItem(SECRET);
  localStorage.removeItem(ID);
}

// The avatar: a die in the profile's colour with the profile's face, from its seed.
export function avatarSvg(seed, size = 48) {
  const value = parseInt(String(seed || '0').slice(0, 8), 16) || 0;
  const hue = value % 360;
  const face = (Math.floor(value / 360) % 6) + 1;
  const pips = {1: [[2, 2]], 2: [[1, 1], [3, 3]], 3: [[1, 1], [2, 2], [3, 3]],
    4: [[1, 1], [1, 3], [3, 1], [3, 3]], 5: [[1, 1], [1, 3], [2, 2], [3, 1], [3, 3]],
    6: [[1, 1], [1, 2], [1, 3], [3, 1], [3, 2], [3, 3]]}[face];
  const dots = pips.map(([x, y]) => `<circle cx="${x * 10 + 2}" cy="${y * 10 + 2}" r="3.4" fill="#fff"/>`).join('');
  return `<svg class="avatar" viewBox="0 0 44 44" width="${size}" height="${size}" aria-hidden="true" focusable="false"><rect x="2" y="2" width="40" height="40" rx="9" fill="hsl(${hue} 55% 32%)"/>${dots}</svg>`;
}
