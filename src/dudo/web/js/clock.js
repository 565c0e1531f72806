// The turn timer as drawn: seconds left to a deadline, the stopwatch badge, and the tick that
// keeps every drawn clock (and the quick table's countdown) up to date between states.
import {icon} from './icons.js';
import {escapeHtml} from './page.js';
import {t} from './i18n.js';
import {tickQuick} from './quick.js';

export function clockText(deadline) {
  const left = Math.max(0, Math.ceil(Number(deadline) - Date.now() / 1000));
  return {left, text: `${left}s`};
}

export function timerHtml(deadline) {
  if (!deadline) return '';
  const {left, text} = clockText(deadline);
  return `<span class="timer${left <= 5 ? ' low' : ''}" data-deadline="${deadline}">${icon('timer')} <span class="sr-only">${escapeHtml(t('table.time_left'))} </span><span class="left">${text}</span></span>`;
}

// The seconds until the next round is rolled, as the Next round button shows them.
export function rollText(state) {
  const at = Number(state.roll_at);
  return at ? `(${Math.max(0, Math.ceil(at - Date.now() / 1000))})` : '';
}

// One tick (every 250 ms): the clocks in `main` count down; `state` gives the roll time.
export function tickClocks(main, state) {
  tickQuick(main);
  for (const element of main.querySelectorAll('[data-deadline]')) {
    const {left, text} = clockText(element.dataset.deadline);
    const span = element.querySelector('.left');
    if (span && span.textContent !== text) span.textContent = text;
    element.classList.toggle('low', left <= 5);
  }
  if (state) {
    for (const element of main.querySelectorAll('[data-roll-at]')) {
      const text = rollText(state);
      if (element.textContent !== text) element.textContent = text;
    }
  }
}
