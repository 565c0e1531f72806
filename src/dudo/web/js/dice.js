// Dice as inline SVG: told apart by their pips, never by colour alone.
const PIPS = {
  1: [[50, 50]],
  2: [[28, 28], [72, 72]],
  3: [[28, 28], [50, 50], [72, 72]],
  4: [[28, 28], [72, 28], [28, 72], [72, 72]],
  5: [[28, 28], [72, 28], [50, 50], [28, 72], [72, 72]],
  6: [[28, 25], [72, 25], [28, 50], [72, 50], [28, 75], [72, 75]],
};

// face 0 draws a hidden die (a cup-covered one); options: size, counts, label, cls.
export function die(face, {size = 40, counts = false, label = '', cls = ''} = {}) {
  const classes = ['die', cls, counts ? 'counts' : '', face ? '' : 'hidden'].filter(Boolean);
  const pips = (PIPS[face] || []).map(([x, y]) =>
    `<circle cx="${x}" cy="${y}" r="${face === 1 ? 12 : 9}"/>`).join('');
  const mark = counts ? '<path class="tick" d="M66 22 l8 8 l16 -16" />' : '';
  const aria = label ? `role="img" aria-label="${label}"` : 'aria-hidden="true"';
  return `<svg class="${classes.join(' ')}" viewBox="0 0 100 100" width="${size}" height="${size}" ${aria}>` +
    `<rect x="4" y="4" width="92" height="92" rx="18"/>${face ? pips : '<text x="50" y="64">?</text>'}${mark}</svg>`;
}
