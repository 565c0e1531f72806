// The entry point: picks the language, then shows the home page or a room's table.
import {pickLanguage, setLanguage} from './i18n.js';
import {renderHome} from './lobby.js';
import {openTable} from './table.js';

const main = document.getElementById('main');
let current = null; // the view on screen: {render()} so a language switch can redraw it

function show(view) {
  if (current && current !== view && current.close) current.close();
  current = view;
  window.dudo = {view}; // for the curious and for the browser tests
  view.render();
}

async function start() {
  await setLanguage(pickLanguage());
  const select = document.getElementById('lang-select');
  select.value = document.documentElement.lang;
  select.addEventListener('change', async () => {
    await setLanguage(select.value, true);
    if (current) current.render();
  });
  const match = location.pathname.match(/^\/r\/([A-Za-z]{4})\/?$/);
  const params = new URLSearchParams(location.search);
  if (match) {
    show(openTable(main, match[1].toUpperCase(), params));
  } else {
    show(renderHome(main));
  }
}

start();
