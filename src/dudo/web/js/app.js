// The entry point: picks the language, then shows the home page or a room's table. Each
// view is its own module graph, imported only when it is shown: the home page never loads
// the table's code (docs/web.md, "What a page loads").
import {pickLanguage, setLanguage} from './i18n.js';
import {showNextPageNote} from './page.js';

const main = document.getElementById('main');
let current = null; // the view on screen: {render()} so a language switch can redraw it

function show(view) {
  if (current && current !== view && current.close) current.close();
  current = view;
  window.dudo = {view}; // for the curious and for the browser tests
  view.render();
}

async function start() {
  const match = location.pathname.match(/^\/r\/([A-Za-z]{4})\/?$/);
  // The view's modules (and with the table's, a room's stylesheet) load while the strings do.
  const module = match ? import('./table.js') : import('./lobby.js');
  await setLanguage(pickLanguage());
  const select = document.getElementById('lang-select');
  select.value = document.documentElement.lang;
  select.addEventListener('change', async () => {
    await setLanguage(select.value, true);
    if (current) current.render();
  });
  const params = new URLSearchParams(location.search);
  if (match) {
    const {openTable, roomStyles} = await module;
    await roomStyles;
    document.body.classList.add('display-type'); // the table's type (dudo.css), not the home page's
    show(openTable(main, match[1].toUpperCase(), params));
    showNextPageNote();
  } else {
    const {renderHome} = await module;
    show(renderHome(main));
  }
}

start();
