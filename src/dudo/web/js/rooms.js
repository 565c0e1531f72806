// What the create-a-room form and the host's room settings share: the presets and options
// (the engine's own lists, from /api/presets), one control per house rule, and reading
// the chosen rules back as {preset, ...what differs from it}.
import {api, escapeHtml} from './page.js';
import {t} from './i18n.js';

// House rules start with 3 to 6 dice (the engine takes 1..10, for tests and scenarios).
export const DICE_CHOICES = [3, 4, 5, 6];
export const TIMER_CHOICES = [0, 15, 30, 45, 60, 90, 120];
export const DEFAULT_TIMER = 30; // a room with more than one person gets a turn timer

let catalogue = null;

export async function loadCatalogue() {
  if (!catalogue) {
    const answer = await api('/api/presets');
    if (!answer.ok) return {presets: {perudo: {title: 'Perudo', rules: {}}}, options: {}};
    catalogue = answer.data;
  }
  return catalogue;
}

export function presetTitle(data, key) {
  const translated = t(`preset.${key}`);
  return translated === `preset.${key}` ? (data.presets[key]?.title || key) : translated;
}

// The preset a room's full rules are closest to (fewest options changed).
export function closestPreset(data, rules) {
  let best = 'perudo';
  let fewest = Infinity;
  for (const [key, preset] of Object.entries(data.presets)) {
    const changed = Object.keys(preset.rules).filter((name) => preset.rules[name] !== rules[name]).length;
    if (changed < fewest) { best = key; fewest = changed; }
  }
  return best;
}

// The wild-aces switch: one checkbox for wild_ones that also sets the ones rule that goes
// with it (halving on aces needs wild aces, so `halve` without them is never sent).
// On: the preset's own ones rule if its aces are wild, else halve; off: plain.
export function onesRuleFor(data, preset, wild) {
  const base = data.presets[preset]?.rules || {};
  if (!wild) return 'plain';
  return base.wild_ones && base.ones_bids ? base.ones_bids : 'halve';
}

export function wildAcesHelp(rules) {
  if (rules.bids === 'poker') return t('create.wild_aces_poker');
  if (!rules.wild_ones) return t('create.wild_aces_off');
  return t('create.wild_aces_on', {rule: t(`choice.ones_bids.${rules.ones_bids}`)});
}

// The switch (or what a bid names) changed under `root`: set the ones rule to match and
// say so. Poker hands (Common Hand) have no wild aces (the server refuses wild_ones with
// them), so there the switch is off and disabled, its help line saying why.
export function wildAcesChanged(data, root, preset) {
  const box = root.querySelector('[data-opt="wild_ones"]');
  const ones = root.querySelector('[data-opt="ones_bids"]');
  if (!box || !ones) return;
  const bids = root.querySelector('[data-opt="bids"]')?.value ?? data.presets[preset]?.rules.bids;
  if (bids === 'poker') box.checked = false;
  box.disabled = bids === 'poker';
  ones.value = onesRuleFor(data, preset, box.checked);
  const help = root.querySelector(`#${box.id}-help`);
  if (help) help.textContent = wildAcesHelp({bids, wild_ones: box.checked, ones_bids: ones.value});
}

// A points race has no palifico rounds: the engine turns palifico off when the format is
// points (unless palifico is asked for, which it refuses). So the box is off and disabled
// there, its help line saying why; back in elimination it takes the preset's value.
export function palificoHelp(rules) {
  return t(rules.format === 'points' ? 'create.palifico_points' : 'opt.palifico.help');
}

export function palificoChanged(data, root, preset) {
  const box = root.querySelector('[data-opt="palifico"]');
  if (!box) return;
  const base = data.presets[preset]?.rules || {};
  const format = root.querySelector('[data-opt="format"]')?.value ?? base.format;
  const bids = root.querySelector('[data-opt="bids"]')?.value ?? base.bids;
  const points = format === 'points';
  if (points) box.checked = false;
  else if (box.disabled) box.checked = !!base.palifico && bids !== 'poker'; // Common Hand: none
  box.disabled = points;
  const help = root.querySelector(`#${box.id}-help`);
  if (help) help.textContent = palificoHelp({format});
}

// What Common Hand needs besides no wild aces (docs/rules-spec.md: the engine refuses anything else).
const POKER_NEEDS = {ones_bids: 'plain', calza: 'off', palifico: false, loss_by_difference: false};

// An option changed under `root`. Poker hands picked by hand (on a preset that bids
// quantities) also set what Common Hand needs, so the form does not send rules the server
// refuses; the wild-aces switch follows either way.
// Options that mean something only while another does: the calza's player minimum with
// calza on, palifico's own options with palifico on (never in a points race), the rounds
// of a points race in that format. Otherwise they are disabled (their values kept, and
// sent as they are: the engine ignores them).
const DEPENDS = {
  calza_min_players: (rules) => rules.calza !== 'off',
  palifico_once_per_player: (rules) => !!rules.palifico && rules.format !== 'points',
  palifico_min_players: (rules) => !!rules.palifico && rules.format !== 'points',
  palifico_open_on_ones: (rules) => !!rules.palifico && rules.format !== 'points',
  palifico_one_die_may_change_face: (rules) => !!rules.palifico && rules.format !== 'points',
  points_rounds: (rules) => rules.format === 'points',
};

export function applies(name, rules) {
  return !DEPENDS[name] || DEPENDS[name](rules);
}

// Disable (or enable again) the dependent options under `root` by what it shows now.
export function dependentsChanged(root) {
  const shown = {};
  for (const input of root.querySelectorAll('[data-opt]')) {
    shown[input.dataset.opt] = input.type === 'checkbox' ? input.checked : input.value;
  }
  for (const name of Object.keys(DEPENDS)) {
    const input = root.querySelector(`[data-opt="${name}"]`);
    if (!input) continue;
    input.disabled = !applies(name, shown);
    input.closest('.option')?.classList.toggle('inapplicable', input.disabled);
  }
}

export function optionChanged(data, root, preset, name) {
  if (name === 'bids' && root.querySelector('[data-opt="bids"]')?.value === 'poker') {
    for (const [option, value] of Object.entries(POKER_NEEDS)) {
      const input = root.querySelector(`[data-opt="${option}"]`);
      if (!input) continue;
      if (input.type === 'checkbox') input.checked = value; else input.value = value;
    }
  }
  if (name === 'bids' || name === 'wild_ones') wildAcesChanged(data, root, preset);
  if (name === 'format') palificoChanged(data, root, preset);
  dependentsChanged(root);
}

export function optionControl(name, spec, value, prefix = 'opt', rules = {}) {
  const id = `${prefix}-${name}`;
  if (name === 'wild_ones') {
    const poker = rules.bids === 'poker'; // no wild aces with poker hands: off, and why
    return `<div class="option wild-aces"><label class="check"><input type="checkbox" id="${id}" data-opt="${name}" aria-describedby="${id}-help" ${value && !poker ? 'checked' : ''}${poker ? ' disabled' : ''}> ${escapeHtml(t('create.wild_aces'))}</label>
      <p class="help" id="${id}-help" aria-live="polite">${escapeHtml(wildAcesHelp({...rules, wild_ones: value}))}</p></div>`;
  }
  if (name === 'palifico') {
    const points = rules.format === 'points'; // no palifico in a points race: off, and why
    return `<div class="option"><label class="check"><input type="checkbox" id="${id}" data-opt="${name}" aria-describedby="${id}-help" ${value && !points ? 'checked' : ''}${points ? ' disabled' : ''}> ${escapeHtml(t(`opt.${name}`))}</label>
      <p class="help" id="${id}-help" aria-live="polite">${escapeHtml(palificoHelp(rules))}</p></div>`;
  }
  const help = `<p class="help" id="${id}-help">${escapeHtml(t(`opt.${name}.help`))}</p>`;
  const label = escapeHtml(t(`opt.${name}`));
  const off = !applies(name, rules); // an option its parent option makes meaningless
  const div = `<div class="option${off ? ' inapplicable' : ''}">`;
  const disabled = off ? ' disabled' : '';
  if (spec.type === 'bool') {
    return `${div}<label class="check"><input type="checkbox" id="${id}" data-opt="${name}" aria-describedby="${id}-help" ${value ? 'checked' : ''}${disabled}> ${label}</label>${help}</div>`;
  }
  if (spec.type === 'choice') {
    const options = spec.choices.map((choice) => `<option value="${choice}" ${choice === value ? 'selected' : ''}>${escapeHtml(t(`choice.${name}.${choice}`))}</option>`).join('');
    return `${div.replace('option', 'option inline')}<label for="${id}">${label}</label><select id="${id}" data-opt="${name}" aria-describedby="${id}-help"${disabled}>${options}</select>${help}</div>`;
  }
  if (name === 'starting_dice') {
    const choices = DICE_CHOICES.filter((n) => n >= spec.min && n <= spec.max);
    if (!choices.includes(value)) choices.push(value); // a room made through the API
    const options = choices.sort((a, b) => a - b).map((n) => `<option value="${n}" ${n === value ? 'selected' : ''}>${n}</option>`).join('');
    return `<div class="option inline"><label for="${id}">${label}</label><select id="${id}" data-opt="${name}" data-number="1" aria-describedby="${id}-help">${options}</select>${help}</div>`;
  }
  return `${div.replace('option', 'option inline')}<label for="${id}">${label}</label><input type="number" id="${id}" data-opt="${name}" min="${spec.min}" max="${spec.max}" value="${value}" aria-describedby="${id}-help" inputmode="numeric"${disabled}>${help}</div>`;
}

// The house rules in a few short groups, each under its heading, in the order a host
// thinks of them (the create form sets the groups side by side where there is room). An
// option not named here (a new one from the server) joins the last group.
const RULE_GROUPS = {
  dice: ['starting_dice', 'bids', 'wild_ones', 'ones_bids', 'cap_at_dice_in_play'],
  calls: ['calza', 'calza_min_players', 'loss_by_difference'],
  palifico: ['palifico', 'palifico_once_per_player', 'palifico_min_players', 'palifico_open_on_ones',
    'palifico_one_die_may_change_face'],
  format: ['format', 'points_rounds', 'first_opener'],
};

export function optionControls(data, rules, prefix = 'opt') {
  const named = new Set(Object.values(RULE_GROUPS).flat());
  const groups = Object.entries(RULE_GROUPS).map(([key, names]) => [key, names.filter((name) => name in data.options)]);
  groups.at(-1)[1].push(...Object.keys(data.options).filter((name) => !named.has(name)));
  return groups.filter(([, names]) => names.length).map(([key, names]) => `<fieldset class="rule-group"><legend>${escapeHtml(t(`create.group_${key}`))}</legend>
    ${names.map((name) => optionControl(name, data.options[name], rules[name], prefix, rules)).join('')}</fieldset>`).join('');
}

// {preset, option: value, ...} for the controls under `root`: only what differs from the preset.
export function chosenRules(data, root, preset) {
  const base = data.presets[preset]?.rules || {};
  const rules = {preset};
  for (const input of root.querySelectorAll('[data-opt]')) {
    const option = input.dataset.opt;
    let value = input.type === 'checkbox' ? input.checked : input.value;
    if (input.type === 'number' || input.dataset.number) value = Number(value);
    if (value !== base[option]) rules[option] = value;
  }
  // What the controls show is what is sent: a combination the engine refuses (halve
  // picked by hand with wild aces off) comes back as an error naming the option.
  return rules;
}

export function timerOptions(selected) {
  const choices = TIMER_CHOICES.includes(selected) ? TIMER_CHOICES : [...TIMER_CHOICES, selected].sort((a, b) => a - b);
  return choices.map((s) => `<option value="${s}" ${s === selected ? 'selected' : ''}>${escapeHtml(s ? t('create.seconds', {n: s}) : t('create.no_timer'))}</option>`).join('');
}
