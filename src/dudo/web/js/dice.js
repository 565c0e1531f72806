// Dice as inline SVG: told apart by their pips, never by colour alone. Each die is an
// object: a rounded ivory cube seen from above, its edges shaded darker than its top face,
// a soft shadow on the felt, pips sunk into it (an ace's pip larger and red, the wild one).
// The shading is a few gradients kept once per page (DEFS), which every die's shapes name
// from the stylesheet (dudo.css, "the dice"); without them a die is still flat and readable.
const PIPS = {
  1: [[50, 50]],
  2: [[29, 29], [71, 71]],
  3: [[29, 29], [50, 50], [71, 71]],
  4: [[29, 29], [71, 29], [29, 71], [71, 71]],
  5: [[29, 29], [71, 29], [50, 50], [29, 71], [71, 71]],
  6: [[29, 27], [71, 27], [29, 50], [71, 50], [29, 73], [71, 73]],
};

const DEFS = `<svg id="dice-defs" class="dice-defs" width="0" height="0" aria-hidden="true" focusable="false"><defs>
<linearGradient id="die-edge" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#fffdf7"/><stop offset=".55" stop-color="#ece4d2"/><stop offset="1" stop-color="#cbbf9f"/></linearGradient>
<radialGradient id="die-top" cx=".4" cy=".35" r=".75"><stop offset="0" stop-color="#ffffff"/><stop offset=".7" stop-color="#faf6ec"/><stop offset="1" stop-color="#efe7d4"/></radialGradient>
<linearGradient id="die-gold-edge" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#fff3c4"/><stop offset=".55" stop-color="#fcd34d"/><stop offset="1" stop-color="#d69e1a"/></linearGradient>
<radialGradient id="die-gold-top" cx=".4" cy=".35" r=".75"><stop offset="0" stop-color="#fffbe6"/><stop offset=".7" stop-color="#fde68a"/><stop offset="1" stop-color="#fbd35a"/></radialGradient>
<linearGradient id="die-back-edge" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#f1ede4"/><stop offset="1" stop-color="#b9b2a3"/></linearGradient>
<linearGradient id="die-back-gloss" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#fff" stop-opacity=".55"/><stop offset=".45" stop-color="#fff" stop-opacity="0"/><stop offset="1" stop-color="#000" stop-opacity=".45"/></linearGradient>
<radialGradient id="die-pip" cx=".42" cy=".38" r=".65"><stop offset="0" stop-color="#000"/><stop offset=".75" stop-color="#1b1b1b"/><stop offset="1" stop-color="#4a4a4a"/></radialGradient>
<radialGradient id="die-ace" cx=".42" cy=".38" r=".65"><stop offset="0" stop-color="#5f0a23"/><stop offset=".75" stop-color="#9f1239"/><stop offset="1" stop-color="#be3a5d"/></radialGradient>
</defs></svg>`;

// The gradients once per page, at the end of <body> (outside what morph.js redraws).
function ensureDefs() {
  if (typeof document === 'undefined' || !document.body || document.getElementById('dice-defs')) return;
  document.body.insertAdjacentHTML('beforeend', DEFS);
}

// A hidden die's back: no face at all, the same for every die (the page never holds what is
// under another player's cup), a small cup embossed on it, the die in its seat's colour.
const BACK = '<rect class="gloss" x="2" y="2" width="92" height="92" rx="22"/>' +
  '<path class="mark" d="M38 27 Q48 24 58 27 L65 61 L31 61 Z M26 61 H70 V68 Q48 74 26 68 Z"/>';

// A row of more than five dice (a room may deal up to ten each) is drawn in two rows
// (CSS: room.css, "many dice"), smaller where its place is narrow; five or fewer keep
// their one row: the attribute that marks such a row, with its count.
export function manyDice(n) {
  return n > 5 ? ` data-many="${n}"` : '';
}

// face 0 draws a hidden die (a cup-covered one); options: size, counts, label, cls.
export function die(face, {size = 40, counts = false, label = '', cls = ''} = {}) {
  ensureDefs();
  const classes = ['die', cls, counts ? 'counts' : '', face ? `f${face}` : 'hidden'].filter(Boolean);
  const pips = (PIPS[face] || []).map(([x, y]) =>
    `<circle cx="${x}" cy="${y}" r="${face === 1 ? 13 : 9.5}"/>`).join('');
  const mark = counts ? '<g class="tick"><circle cx="86" cy="13" r="15"/><path d="M78 13 l6 6 l10 -11"/></g>' : '';
  const aria = label ? `role="img" aria-label="${label}"` : 'aria-hidden="true"';
  return `<svg class="${classes.join(' ')}" viewBox="0 0 100 100" width="${size}" height="${size}" ${aria}>` +
    '<rect class="shade" x="6" y="9" width="92" height="90" rx="22"/>' +
    '<rect class="edge" x="2" y="2" width="92" height="92" rx="22"/>' +
    '<rect class="top" x="10" y="9" width="76" height="76" rx="17"/>' +
    `${face ? `<g class="pips" transform="translate(-2 -2)">${pips}</g>` : BACK}${mark}</svg>`;
}
