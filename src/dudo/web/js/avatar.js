// A colour and a generated avatar per seat, so players are told apart at a glance: the
// colour by seat (six that read on the felt and on white), the avatar drawn from the
// player's name (a mirrored 5×5 pattern, like an identicon), so the same name always gets
// the same face. Decoration only: hidden from screen readers, which hear the name.
const COLOURS = ['#b45309', '#1d4ed8', '#be123c', '#6d28d9', '#0f766e', '#a16207'];

export function seatColour(seat) {
  return COLOURS[seat % COLOURS.length];
}

// FNV-1a (32 bits) of a text: the same name always gets the same avatar (and, in
// voice.js, the same public moment the same line).
export function hash(text) {
  let h = 2166136261;
  for (const char of String(text)) {
    h ^= char.codePointAt(0);
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h;
}

// The avatar as inline SVG: 15 bits of the name's hash fill the left three columns of a
// 5×5 grid, mirrored to the right; the seat's colour on white.
export function avatar(name, seat, size = 28) {
  const bits = hash(name || `seat ${seat}`);
  const colour = seatColour(seat);
  let cells = '';
  for (let row = 0; row < 5; row += 1) {
    for (let col = 0; col < 3; col += 1) {
      if (!((bits >> (row * 3 + col)) & 1)) continue;
      for (const x of new Set([col, 4 - col])) cells += `<rect x="${10 + x * 16}" y="${10 + row * 16}" width="16" height="16"/>`;
    }
  }
  return `<svg class="avatar" viewBox="0 0 100 100" width="${size}" height="${size}" aria-hidden="true" focusable="false">`
    + `<rect class="avatar-bg" x="0" y="0" width="100" height="100" rx="22"/><g fill="${colour}">${cells}</g></svg>`;
}
