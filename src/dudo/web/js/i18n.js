// Strings come from ../locales/<lang>.json next to this module (under the same versioned
// /static/<version>/ prefix, so they are cached as long as the code); the language is the browser's unless the
// player picked one (remembered in localStorage).
export const LANGUAGES = ['en', 'de', 'es'];
let strings = {};
let fallback = {};
export let lang = 'en';

export function pickLanguage() {
  const saved = localStorage.getItem('dudo.lang');
  if (saved && LANGUAGES.includes(saved)) return saved;
  for (const wanted of navigator.languages || [navigator.language || 'en']) {
    const base = String(wanted).slice(0, 2).toLowerCase();
    if (LANGUAGES.includes(base)) return base;
  }
  return 'en';
}

async function load(code) {
  const response = await fetch(new URL(`../locales/${code}.json`, import.meta.url));
  return response.ok ? response.json() : {};
}

export async function setLanguage(code, remember = false) {
  if (!LANGUAGES.includes(code)) code = 'en';
  if (remember) localStorage.setItem('dudo.lang', code);
  if (!Object.keys(fallback).length) fallback = await load('en');
  strings = code === 'en' ? fallback : await load(code);
  lang = code;
  document.documentElement.lang = code;
  for (const element of document.querySelectorAll('[data-i18n]')) {
    element.textContent = t(element.dataset.i18n);
  }
}

// t('bid.words', {q: 4, face: 5}) -> "four 5s"; {name} placeholders are filled in.
export function t(key, params = {}) {
  let text = strings[key] ?? fallback[key] ?? key;
  if (typeof text === 'object') {
    const count = params.n ?? params.q ?? 0;
    text = text[count === 1 ? 'one' : 'other'] ?? text.other;
  }
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
}

// A bid in words: "four 5s", "three aces".
export function bidWords(quantity, face) {
  const form = quantity === 1 ? 'one' : 'many';
  const special = `face.${form}.${face}`;
  let faceName;
  if (face === 1) faceName = t(quantity === 1 ? 'face.ace' : 'face.aces');
  else if (has(special)) faceName = t(special);
  else faceName = t(`face.${form}`, {face});
  const number = has(`num.${quantity}`) ? t(`num.${quantity}`) : String(quantity);
  return t('bid.words', {q: number, face: faceName});
}

// A number with `digits` decimals as the page's language writes it: 8.4, 8,4.
export function decimal(x, digits) {
  return x.toLocaleString(lang, {minimumFractionDigits: digits, maximumFractionDigits: digits});
}

export function has(key) {
  return key in strings || key in fallback;
}

// A preset's short title in the page's language (its title without the note in brackets),
// or null for a name that is no preset.
export function presetShortTitle(preset) {
  return preset && has(`preset.${preset}`) ? t(`preset.${preset}`).split(' (')[0] : null;
}
