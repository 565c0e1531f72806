// The fair-dice verdict of a finished game's page: what verify.js found, checking every
// round and roll-off attempt in this browser from the record alone, as a verdict, a line
// in the page's head and one line per round. `page` is the GamePage (replay.js).
import {t} from './i18n.js';
import {escapeHtml} from './page.js';

// Draw the verification (page.verification, from verifyRecord) into the #fair card.
export function renderFair(page) {
  const result = page.verification;
  const box = page.main.querySelector('#fair');
  box.dataset.state = result.ok ? 'verified' : 'failed';
  const verdict = page.main.querySelector('#fair-verdict');
  verdict.className = `verdict ${result.ok ? 'ok' : 'bad'}`;
  const rolloff = result.rolloff || [];
  const failed = [...rolloff, ...result.rounds].filter((round) => !round.ok);
  const summary = page.main.querySelector('#fair-summary a');
  summary.textContent = t(result.ok ? 'rp.fair_ok' : 'rp.fair_bad');
  summary.parentElement.className = `fair-summary ${result.ok ? 'ok' : 'bad'}`;
  verdict.textContent = result.ok
    ? t('rp.verdict_ok', {n: result.rounds.length}) + (rolloff.length ? ` ${t('rp.verdict_rolloff', {n: rolloff.length})}` : '')
      + (result.countsStated || result.rounds.length < 2 ? '' : ` ${t('rp.verdict_no_counts')}`)
    : t('rp.verdict_bad', {problem: result.problem || `${failed[0].attempt ? t('rp.rolloff_attempt', {n: failed[0].attempt}) : t('rp.fair_round', {n: failed[0].round})}: ${failed[0].problem}`});
  page.main.querySelector('#fair-rounds').innerHTML = rolloff.map((attempt) => `<li data-round="${attempt.round}" data-ok="${attempt.ok}" class="${attempt.ok ? 'ok' : 'bad'}">
    <strong>${escapeHtml(t('rp.rolloff_attempt', {n: attempt.attempt}))} ${attempt.ok ? '✓' : escapeHtml(t('rp.fair_round_bad'))}</strong>
    ${escapeHtml(attempt.ok ? attempt.checks.join(' · ') : attempt.problem)}</li>`).join('') + result.rounds.map((round) => `<li data-round="${round.round}" data-ok="${round.ok}" class="${round.ok ? 'ok' : 'bad'}">
    <strong>${escapeHtml(t('rp.fair_round', {n: round.round}))} ${round.ok ? '✓' : escapeHtml(t('rp.fair_round_bad'))}</strong>
    ${escapeHtml(round.ok ? round.checks.join(' · ') : round.problem)}</li>`).join('');
}
