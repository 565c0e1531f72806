// Where a bot's speech bubble goes (voice.js draws it inside its seat; this places it after
// each drawing, from the boxes on the page). A bubble is docked to its seat, a tail pointing
// at it: above, below or beside the seat, at the first place where it stays on the felt
// and covers nothing a player reads: no other seat (its name, its dice, its −1), nothing in
// the middle (the standing bid, whose turn, the call, the bid called and the count, the
// verdict, Next round, the winner and Rematch), no bubble placed before it. A bubble keeps
// its place while it still fits there, so the felt's redrawing (the count going up) does
// not move it. Where no such place is (a phone's rows at six seats, the middle right under
// them), the bubble sits on its own seat: over the name and the status when the seat's
// dice are revealed (the dice are what everyone is counting then), else over the status
// and the hidden dice, never over another seat.

const GAP = 8; // between a bubble and its seat: room for the tail (table.css)
const CLEAR = 3; // at least this much felt between a bubble and what it keeps off

function box(left, top, width, height) {
  return {left, top, right: left + width, bottom: top + height, width, height};
}

function meets(a, b, clear = 0) {
  return a.left < b.right + clear && b.left < a.right + clear && a.top < b.bottom + clear && b.top < a.bottom + clear;
}

// What an element shows: a paragraph's text, not the whole line it stands on; a button,
// a link or a box whole.
function drawn(element) {
  if (element.matches('button, a, .tally, .standing-bid')) return element.getBoundingClientRect();
  const range = document.createRange();
  range.selectNodeContents(element);
  return range.getBoundingClientRect();
}

// Everything on the felt a bubble must not cover: the seats' plates (a bubble beside its
// own seat is off its plate by its place; on its seat it covers nothing of another), the
// marks that stand out of a plate (the −1, a reaction), the middle's parts.
function obstacles(felt) {
  const found = [];
  for (const seat of felt.querySelectorAll('.seat')) {
    found.push({plate: seat, box: seat.getBoundingClientRect()});
    for (const mark of seat.querySelectorAll('.change, .bubble')) found.push({plate: null, box: mark.getBoundingClientRect()});
  }
  for (const part of felt.querySelectorAll('.centre > *, .centre .tally')) {
    if (part.matches('.tallies')) continue; // its tallies, each
    const shown = drawn(part);
    if (shown.width > 0 && shown.height > 0) found.push({plate: null, box: shown});
  }
  return found;
}

// The felt inside its rim, a few pixels in, with its rounded corners.
function feltArea(felt) {
  const outer = felt.getBoundingClientRect();
  const inset = 3;
  const area = box(outer.left + felt.clientLeft + inset, outer.top + felt.clientTop + inset,
    felt.clientWidth - 2 * inset, felt.clientHeight - 2 * inset);
  area.radius = Math.max(0, parseFloat(getComputedStyle(felt).borderTopLeftRadius) - felt.clientLeft - inset);
  return area;
}

function inside(area, b) {
  if (b.left < area.left || b.top < area.top || b.right > area.right || b.bottom > area.bottom) return false;
  const r = area.radius;
  for (const [x, y] of [[b.left, b.top], [b.right, b.top], [b.left, b.bottom], [b.right, b.bottom]]) {
    const cx = Math.min(Math.max(x, area.left + r), area.right - r);
    const cy = Math.min(Math.max(y, area.top + r), area.bottom - r);
    if ((x - cx) ** 2 + (y - cy) ** 2 > r * r) return false;
  }
  return true;
}

// The places beside a seat, best first: above, below, then the side towards the middle of
// the felt, then the other; each centred on the seat, then flush with either of its edges.
function places(seat, width, height, area) {
  const middleX = (seat.left + seat.right) / 2;
  const middleY = (seat.top + seat.bottom) / 2;
  const xs = [['c', middleX - width / 2], ['l', seat.left], ['r', seat.right - width]];
  const ys = [['c', middleY - height / 2], ['t', seat.top], ['b', seat.bottom - height]];
  const towards = middleX < (area.left + area.right) / 2 ? 'right' : 'left';
  const sides = {
    above: xs.map(([k, x]) => [`above-${k}`, x, seat.top - GAP - height]),
    below: xs.map(([k, x]) => [`below-${k}`, x, seat.bottom + GAP]),
    right: ys.map(([k, y]) => [`right-${k}`, seat.right + GAP, y]),
    left: ys.map(([k, y]) => [`left-${k}`, seat.left - GAP - width, y]),
  };
  const order = ['above', 'below', towards, towards === 'right' ? 'left' : 'right'];
  return order.flatMap((side) => sides[side]).map(([key, x, y]) => ({key, box: box(x, y, width, height)}));
}

// Place one bubble (its seat's element and the boxes taken so far); returns its box.
function placeOne(say, seat, area, taken, before) {
  const seatBox = seat.getBoundingClientRect();
  const originX = seatBox.left + seat.clientLeft;
  const originY = seatBox.top + seat.clientTop;
  say.style.left = '0px';
  say.style.top = '0px';
  say.style.maxWidth = `${Math.round(Math.min(area.width, Math.max(seatBox.width * 1.3, 170)))}px`;
  const natural = say.getBoundingClientRect();
  const free = (b) => inside(area, b) && !taken.some((other) => other.plate !== seat && meets(b, other.box, CLEAR));
  const all = places(seatBox, natural.width, natural.height, area);
  const kept = all.find((place) => place.key === before);
  const chosen = (kept && free(kept.box) ? kept : null) || all.find((place) => free(place.box));
  if (chosen) {
    const side = chosen.key.split('-')[0];
    say.dataset.side = side;
    const b = chosen.box;
    const tail = side === 'above' || side === 'below'
      ? Math.min(Math.max((seatBox.left + seatBox.right) / 2 - b.left, 14), b.width - 14)
      : Math.min(Math.max((seatBox.top + seatBox.bottom) / 2 - b.top, 12), b.height - 12);
    say.style.setProperty('--tail', `${Math.round(tail)}px`);
    say.style.left = `${b.left - originX}px`;
    say.style.top = `${b.top - originY}px`;
    return {key: chosen.key, box: b};
  }
  // On its own seat, as wide as the seat inside its edge.
  say.dataset.side = 'on';
  const width = seat.clientWidth - 4;
  say.style.maxWidth = `${width}px`;
  say.style.width = `${width}px`;
  say.style.maxHeight = `${seat.clientHeight - 2}px`;
  // What it covers, whole (no half name or die peeping out under it): from the seat's top
  // to its dice when they are revealed, else from under the name to the seat's foot; the
  // whole seat if the line needs more room.
  const revealed = seat.querySelector('.seat-dice.revealed');
  const name = seat.querySelector('.seat-name').getBoundingClientRect();
  const whole = seat.clientHeight - 2;
  const cover = revealed ? revealed.getBoundingClientRect().top - originY - 2 : whole - (name.bottom - originY);
  const needs = say.getBoundingClientRect().height;
  say.style.minHeight = `${Math.max(0, needs > cover ? whole : Math.min(cover, whole))}px`;
  const height = say.getBoundingClientRect().height;
  const top = revealed ? 1 : Math.max(1, seat.clientHeight - 1 - height);
  say.style.left = '2px';
  say.style.top = `${top}px`;
  fitOnSeat(say);
  return {key: 'on', box: box(originX + 2, originY + top, width, height)};
}

// A line too long for the seat it sits on (a phone's small plates, six seats) is set
// smaller, down to 70% of its size, then, if it still does not fit, cut after the lines
// that do, with "…" (a screen reader hears it whole: voice.js): never a line cut through
// its middle at the bubble's edge.
function fitOnSeat(say) {
  const fits = () => say.scrollHeight <= say.clientHeight + 1;
  if (fits()) return;
  const base = parseFloat(getComputedStyle(say).fontSize);
  for (const scale of [0.9, 0.8, 0.7]) {
    say.style.fontSize = `${base * scale}px`;
    if (fits()) return;
  }
  const style = getComputedStyle(say);
  const room = say.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
  say.style.setProperty('--lines', String(Math.max(1, Math.floor(room / parseFloat(style.lineHeight)))));
  say.dataset.clamp = '';
}

// Place every bubble on the felt in `root`, the oldest first; `spots` keeps each seat's
// place (seat -> [line, key]) from one drawing to the next.
export function placeBubbles(root, spots) {
  const felt = root.querySelector('.felt');
  const bubbles = felt ? [...felt.querySelectorAll('.seat .say')] : [];
  if (!bubbles.length) {
    spots.clear();
    return;
  }
  for (const say of bubbles) {
    say.removeAttribute('style');
    delete say.dataset.side;
    delete say.dataset.clamp;
  }
  const area = feltArea(felt);
  const taken = obstacles(felt);
  const order = bubbles.map((say) => ({say, seat: say.closest('.seat')}))
    .sort((a, b) => Number(a.say.dataset.since) - Number(b.say.dataset.since));
  const seen = new Set();
  for (const {say, seat} of order) {
    const index = Number(seat.dataset.seat);
    const line = say.textContent;
    const before = spots.get(index);
    const placed = placeOne(say, seat, area, taken, before?.[0] === line ? before[1] : null);
    spots.set(index, [line, placed.key]);
    taken.push({plate: null, box: placed.box});
    seen.add(index);
  }
  for (const index of [...spots.keys()]) if (!seen.has(index)) spots.delete(index);
}
