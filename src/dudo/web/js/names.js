// Names where their place is narrow (a seat on the felt, a bid in the game log): drawn a
// little smaller to be whole, else cut with "…" and titled. From the boxes on the page, so
// after each drawing and after a resize (table.js).

// How small a seat's name may be drawn, against its plate's type, to be shown whole.
const NAME_FIT_FLOOR = 0.85;

// A seat's name a little too wide for its plate is drawn smaller until it fits, down to
// NAME_FIT_FLOOR of its size (a name of eight wide letters, "Mohammed", was cut to "Moham…"
// on phones: it lacked 4 to 14 px); a longer one is cut with "…" (below). The avatar in the
// name scales with it. From the page's natural sizes each time: after a drawing (which
// leaves no inline size) and after a resize.
function fitNames(root) {
  const names = [...root.querySelectorAll('.felt .seat-name')];
  for (const element of names) element.style.removeProperty('font-size');
  const fits = names.map((element) => {
    const {clientWidth: room, scrollWidth: needed} = element;
    if (!(needed > room)) return null; // whole (or not drawn: 0 of 0)
    // 1.5 px to spare: the widths are whole pixels, the text's is not
    const ratio = (room - 1.5) / needed;
    if (!(ratio >= NAME_FIT_FLOOR)) return null;
    return [element, parseFloat(getComputedStyle(element).fontSize) * ratio];
  });
  for (const fit of fits) if (fit) fit[0].style.fontSize = `${fit[1].toFixed(2)}px`;
}

// A name cut with "…" where its place is narrow (a seat on the felt, a bid in the game log)
// has the whole name in a title: a tooltip under the pointer (the page's text, and so a
// screen reader, has it whole anyway). A name shown whole has none. After each drawing,
// once the names too wide by a little are drawn smaller (fitNames).
export function titleCutNames(root) {
  fitNames(root);
  for (const element of root.querySelectorAll('.seat-name, .bids .who')) {
    const name = (element.querySelector('bdi') || element).textContent;
    if (element.scrollWidth > element.clientWidth + 1) {
      if (element.getAttribute('title') !== name) element.setAttribute('title', name);
    } else if (element.hasAttribute('title')) {
      element.removeAttribute('title');
    }
  }
}
