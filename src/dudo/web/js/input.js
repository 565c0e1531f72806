// What the player does at the table: every click, change and form of the table's element
// and the table's keys, handled in one place by the id or data attribute of what was
// pressed, and turned into the table's actions (table.act), its pick, or a switch of this
// browser (sound, the bell, the odds, bot talk). Nothing here is drawn: each handler ends
// with the table drawing itself again.
import {toast} from './page.js';
import {t} from './i18n.js';
import {chooseHand, handKey, isHand} from './hands.js';
import {setSound, soundOn} from './sound.js';
import {toggleNotify} from './narration.js';
import {takeSeat} from './room.js';
import {legal} from './actions.js';
import {chosenRules, optionChanged} from './rooms.js';

const FACE_KEYS = ['1', '2', '3', '4', '5', '6'];

export class TableInput {
  constructor(table) {
    this.table = table;
    this.secondNext = null; // the pick whose second face the next digit sets (handFace)
    const main = table.main;
    this.listeners = [
      [main, 'click', (event) => this.handle(event)],
      [main, 'change', (event) => this.changed(event)],
      [main, 'submit', (event) => this.submitted(event)],
      [main, 'toggle', (event) => this.toggled(event), true],
      [document, 'keydown', (event) => this.key(event)],
    ];
    for (const [target, type, listener, capture] of this.listeners) target.addEventListener(type, listener, capture);
  }

  close() {
    for (const [target, type, listener, capture] of this.listeners) target.removeEventListener(type, listener, capture);
  }

  // An open <details> stays open when the table is drawn again.
  toggled(event) {
    const id = event.target.id;
    if (!id) return;
    if (event.target.open) this.table.openDetails.add(id); else this.table.openDetails.delete(id);
  }

  handle(event) {
    const table = this.table;
    const target = event.target.closest('button, [data-face], [data-emote]');
    if (!target || target.disabled || !table.main.contains(target)) {
      if (event.target.closest('.felt')) table.revealing.skip();
      return;
    }
    const id = target.id;
    const {handKind, handFirst, handSecond} = target.dataset;
    if (handKind || handFirst || handSecond) {
      const bids = legal(table.state).bids.filter(isHand);
      const chosen = isHand(table.pick) && chooseHand(bids, table.pick, {kind: handKind, first: Number(handFirst) || 0, second: Number(handSecond) || 0});
      if (chosen) table.pick = chosen;
      table.render();
      return;
    }
    if (target.dataset.face) {
      table.pick = [table.pick[0], Number(target.dataset.face)];
      table.render();
      return;
    }
    if (target.dataset.mute) { table.chat.toggleMute(Number(target.dataset.mute)); return; }
    if (target.dataset.emote) { table.send({type: 'emote', emote: target.dataset.emote}); return; }
    if (target.dataset.remove) {
      table.act('remove', {seat: Number(target.dataset.remove)});
      return;
    }
    if (target.dataset.link) { this.copy(target.dataset.link); return; }
    switch (id) {
      case 'start': table.act('start'); break;
      case 'quick-now': {
        const seats = table.state.room.seats.map((s) => (s.kind === 'open' ? {kind: 'bot', level: 'normal'} : null));
        table.act('configure', {seats});
        table.act('start');
        break;
      }
      case 'fill-bots': {
        const seats = table.state.room.seats.map((s) => (s.kind === 'open' ? {kind: 'bot', level: 'easy'} : null));
        table.act('configure', {seats});
        break;
      }
      case 'rematch': {
        if (table.state.room.seats.some((s) => s.kind === 'open')) { toast(t('over.fill_first')); break; }
        table.act('rematch');
        break;
      }
      case 'next-round': table.act('next_round'); break;
      case 'bid-go': {
        if (isHand(table.pick)) { table.act('bid', {bid: table.pick}); break; }
        const [q, f] = table.pick; table.act('bid', {quantity: q, face: f}); break;
      }
      case 'call-dudo': table.act('call', {call: 'dudo'}); break;
      case 'call-calza': table.act('call', {call: 'calza'}); break;
      case 'q-down': this.movePick(-1); break;
      case 'q-up': this.movePick(1); break;
      case 'tip-ok': table.practice?.dismiss(table.main.querySelector('#tip')?.dataset.tip); break;
      case 'watch': table.watch = true; table.connect(); table.render(); break;
      case 'play-here': table.replaced = false; table.connect(); table.render(); break;
      case 'keys-help': table.keyboard.showHelp(); break;
      case 'leave': case 'leave-out': table.leaving.ask(target); break;
      case 'leave-new': table.leaving.leave('/'); break;
      case 'sound-toggle': setSound(!soundOn()); table.render(); break;
      case 'notify-toggle': toggleNotify().then(() => table.render()); break;
      default: break;
    }
  }

  copy(link) {
    const done = () => toast(t('table.copied'), 'info');
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(link).then(done, () => {});
    else {
      const input = this.table.main.querySelector('#share-link');
      if (input) { input.select(); document.execCommand('copy'); done(); }
    }
  }

  // + and −: the next quantity with a legal bid, on the same face where it still is one.
  movePick(step) {
    const table = this.table;
    const bids = legal(table.state).bids;
    const quantities = [...new Set(bids.map(([q]) => q))].sort((a, b) => a - b);
    const at = quantities.indexOf(table.pick[0]) + step;
    if (at < 0 || at >= quantities.length) return;
    const q = quantities[at];
    const faces = bids.filter(([bq]) => bq === q).map(([, bf]) => bf);
    table.pick = [q, faces.includes(table.pick[1]) ? table.pick[1] : faces[0]];
    table.render();
  }

  changed(event) {
    const table = this.table;
    const input = event.target;
    if (input.id === 'voice-toggle') { table.voices.set(input.checked); table.render(); return; }
    if (input.dataset.voiceSeat) { table.voices.mute(Number(input.dataset.voiceSeat), !input.checked); table.render(); return; }
    if (input.id === 'odds-toggle') {
      table.showOdds = input.checked;
      localStorage.setItem('dudo.odds', table.showOdds ? '1' : '0');
      table.render();
      return;
    }
    if (!table.state?.you.host) return;
    if (input.dataset.configureSeat) {
      const index = Number(input.dataset.configureSeat);
      const seats = table.state.room.seats.map(() => null);
      seats[index] = input.value ? {kind: 'bot', level: input.value} : {kind: 'open'};
      table.act('configure', {seats});
    } else if (input.id === 'set-preset') {
      table.act('configure', {rules: {preset: input.value}});
    } else if (input.dataset.opt && table.catalogue) {
      const root = table.main.querySelector('#set-options');
      const preset = table.main.querySelector('#set-preset').value;
      optionChanged(table.catalogue, root, preset, input.dataset.opt);
      table.act('configure', {rules: chosenRules(table.catalogue, root, preset)});
    } else if (input.id === 'set-timer') {
      table.act('configure', {timer: Number(input.value)});
    } else if (input.id === 'set-public') {
      table.act('configure', {public: input.checked});
    } else if (input.id === 'lock-room') {
      table.act('configure', {locked: input.checked});
    } else if (input.id === 'chat-on') {
      table.act('configure', {chat: input.checked});
    } else if (input.id === 'set-lost') {
      table.act('configure', {show_lost_dice: input.checked});
    }
  }

  submitted(event) {
    const form = event.target;
    if (form.id === 'chat-form') { event.preventDefault(); this.table.chat.submit(form); return; }
    if (form.id === 'join-form' || form.id === 'take-form') {
      event.preventDefault();
      takeSeat(this.table, form.querySelector('input'));
    }
  }

  // The arrow keys in the hand picker: left and right (Home, End) along a row of choices,
  // up and down to the nearest choice in the row above or below. Enter or Space picks.
  arrow(event) {
    const from = event.target.closest?.('.hand-picker :is([data-hand-kind], [data-hand-first], [data-hand-second])');
    if (!from || !['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End'].includes(event.key)) return false;
    const enabled = (root) => [...root.querySelectorAll('button:not([disabled])')];
    const row = enabled(from.closest('[role="group"]'));
    let to = null;
    if (event.key === 'Home') to = row[0];
    else if (event.key === 'End') to = row.at(-1);
    else if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') to = row[row.indexOf(from) + (event.key === 'ArrowLeft' ? -1 : 1)];
    else {
      const box = from.getBoundingClientRect();
      const x = box.left + box.width / 2;
      const down = event.key === 'ArrowDown';
      let best = Infinity;
      for (const other of enabled(from.closest('.hand-picker'))) {
        if (!other.matches('[data-hand-kind], [data-hand-first], [data-hand-second]')) continue;
        const r = other.getBoundingClientRect();
        const dy = down ? r.top - box.bottom : box.top - r.bottom;
        if (dy < -2) continue; // not in that direction
        const score = Math.max(dy, 0) * 1000 + Math.abs(r.left + r.width / 2 - x);
        if (score < best) { best = score; to = other; }
      }
    }
    event.preventDefault();
    to?.focus();
    return true;
  }

  // 1–6 in the hand picker (Common Hand), as in the quantity picker: the face of the kind
  // of hand chosen, pressed as its die would be (a face the hand cannot have is disabled,
  // and never chosen). A hand of two faces (a full house, two pair) takes a digit for its
  // first face (the three, the higher pair) and the next digit for its second, then the
  // first again; with the focus on a row of faces the digit is that row's. False when
  // there is no hand picker.
  handFace(event, key) {
    const table = this.table;
    const picker = table.main.querySelector('.hand-picker');
    if (!picker || !isHand(table.pick)) return false;
    const twoRows = !!picker.querySelector('#hand-second');
    const inRow = event.target.closest?.('.hand-picker .hand-face-row')?.id; // hand-first, hand-second
    const row = inRow ? inRow.slice('hand-'.length) : twoRows && this.secondNext === this.pickKey() ? 'second' : 'first';
    const button = picker.querySelector(`#hand-${row}-${key}`);
    if (!button || button.disabled) return true;
    event.preventDefault();
    button.click();
    this.secondNext = row === 'first' && twoRows ? this.pickKey() : null;
    return true;
  }

  // The hand picked, and for which turn (the digits' second face follows that pick only).
  pickKey() {
    return `${this.table.pickTurn}/${handKey(this.table.pick)}`;
  }

  key(event) {
    const table = this.table;
    if (!table.state || event.target.matches('input, select, textarea') || event.ctrlKey || event.metaKey || event.altKey) return;
    table.revealing.skip(); // and the key still does what it does
    if (this.arrow(event)) return;
    const key = event.key.toLowerCase();
    const click = (id) => { const el = table.main.querySelector(`#${id}`); if (el && !el.disabled) { event.preventDefault(); el.click(); } };
    if (key === 'l') click('call-dudo');
    else if (key === 'c') click('call-calza');
    else if (key === 'b') click('bid-go');
    else if (key === '+' || key === '=') click('q-up');
    else if (key === '-') click('q-down');
    else if (FACE_KEYS.includes(key)) { if (!this.handFace(event, key)) click(`face-${key}`); }
    else if (key === 'n') click('next-round');
    else if (key === '?') { event.preventDefault(); table.keyboard.showHelp(); }
  }
}
