// Incremental drawing: morph(element, html) makes the element's children look like `html`
// while keeping every node that is still there. So a new state changes only what changed:
// focus, scroll positions, open <details> and running animations survive, and a node that
// is new (a bid in the log, a lifted cup) is the only thing that animates in.
//
// Nodes are matched by position, or by `id` / `data-key` when they have one: give a node a
// key when it must be a *new* node for new content (a new round's dice, so they roll).
//
// A node with a `data-key` whose markup is the same as the last time it was drawn, and in
// which nothing else changed the page since (a MutationObserver watches), is left as it
// is without comparing it node by node: a finished round of the log, the emote bar, the
// chat. That is about a quarter of the page's script per state at a table of four
// (bench/page_draw.py). A node holding a form field is always compared, so a field's
// value still follows what is drawn (see patchElement).

function keyOf(node) {
  if (node.nodeType !== Node.ELEMENT_NODE) return '';
  return node.getAttribute('data-key') || node.id || '';
}

function sameKind(a, b) {
  return a.nodeType === b.nodeType && a.nodeName === b.nodeName && keyOf(a) === keyOf(b);
}

// What the player set stays as they set it: whether a <details> is open.
const PLAYER_OWNED = {DETAILS: 'open'};

function patchAttributes(old, next) {
  const owned = PLAYER_OWNED[old.nodeName];
  for (const {name} of [...old.attributes]) {
    if (name !== owned && !next.hasAttribute(name)) old.removeAttribute(name);
  }
  for (const {name, value} of next.attributes) {
    if (name !== owned && old.getAttribute(name) !== value) old.setAttribute(name, value);
  }
}

function patchElement(old, next) {
  patchAttributes(old, next);
  const tag = old.nodeName;
  if (tag === 'INPUT') {
    // The attribute is the server's value; the property is what the player sees. A field
    // the player is typing in keeps what they typed.
    if (old.type === 'checkbox' || old.type === 'radio') old.checked = next.hasAttribute('checked');
    else if (document.activeElement !== old) old.value = next.getAttribute('value') ?? '';
    return;
  }
  if (tag === 'TEXTAREA') return;
  patchChildren(old, next);
  if (tag === 'SELECT' && document.activeElement !== old) {
    const chosen = [...old.options].find((option) => option.hasAttribute('selected'));
    if (chosen) old.value = chosen.value;
  }
}

function patchChildren(parent, next) {
  const wanted = [...next.childNodes];
  const keyed = new Map();
  for (const child of parent.childNodes) {
    const key = keyOf(child);
    if (key) keyed.set(key, child);
  }
  const wantedKeys = new Set(wanted.map(keyOf).filter(Boolean));
  let index = 0;
  for (const node of wanted) {
    let current = parent.childNodes[index] || null;
    // A keyed node that is not wanted any more goes first, so that the nodes after it
    // stay where they are: a node moved in the document replays its animations and those
    // of everything in it (the whole game log faded in again when the action bar above
    // it changed from the picker to "waiting").
    while (current && keyOf(current) && !wantedKeys.has(keyOf(current))) {
      const gone = current;
      current = current.nextSibling;
      gone.remove();
    }
    const key = keyOf(node);
    const match = key ? keyed.get(key) : null;
    if (match && match !== current && match.nodeName === node.nodeName) {
      parent.insertBefore(match, current);
      current = match;
    }
    if (current && sameKind(current, node)) {
      if (current.nodeType !== Node.ELEMENT_NODE) {
        if (current.nodeValue !== node.nodeValue) current.nodeValue = node.nodeValue;
      } else {
        const markup = settledMarkup(node);
        if (markup === null || drawnMarkup.get(current) !== markup) {
          patchElement(current, node);
          if (markup !== null) drawnMarkup.set(current, markup);
        }
      }
    } else {
      parent.insertBefore(node, current);
      const markup = settledMarkup(node);
      if (markup !== null) drawnMarkup.set(node, markup);
    }
    index += 1;
  }
  while (parent.childNodes.length > wanted.length) parent.lastChild.remove();
}

// The markup each keyed node was last drawn from; forgotten for a node when anything in it
// changes other than by morph (a bubble placed, a name's title, a clock ticking).
const drawnMarkup = new WeakMap();
const watchers = new WeakMap();

// A keyed node's markup, to compare with what it was drawn from; null for a node never
// skipped (no data-key, or a form field in it).
function settledMarkup(node) {
  if (node.nodeType !== Node.ELEMENT_NODE || !node.hasAttribute('data-key')) return null;
  if (node.matches('input, select, textarea') || node.querySelector('input, select, textarea')) return null;
  return node.outerHTML;
}

function forgetChanged(root, records) {
  for (const record of records) {
    for (let node = record.target; node && node !== root; node = node.parentNode) drawnMarkup.delete(node);
  }
}

function watcher(element) {
  let watching = watchers.get(element);
  if (!watching) {
    watching = new MutationObserver((records) => forgetChanged(element, records));
    watching.observe(element, {subtree: true, childList: true, attributes: true, characterData: true});
    watchers.set(element, watching);
  }
  return watching;
}

export function morph(element, html) {
  const watching = watcher(element);
  forgetChanged(element, watching.takeRecords()); // changes by others since the last drawing
  const template = document.createElement('template');
  template.innerHTML = html;
  patchChildren(element, template.content);
  watching.takeRecords(); // morph's own changes: what was drawn is what is recorded
}
