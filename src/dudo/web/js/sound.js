// Sound effects made on the spot with the Web Audio API: nothing is downloaded. A mute
// switch is remembered (localStorage "dudo.sound"). Browsers let a page make sound only
// after the player has touched it, so the audio starts with the first click or key.
let context = null;
let muted = localStorage.getItem('dudo.sound') === '0';

export function soundOn() {
  return !muted;
}

export function setSound(on) {
  muted = !on;
  localStorage.setItem('dudo.sound', on ? '1' : '0');
  if (on) wake();
}

function wake() {
  if (muted) return;
  try {
    if (!context) {
      const Audio = window.AudioContext || window.webkitAudioContext;
      if (!Audio) return;
      context = new Audio();
    }
    if (context.state === 'suspended') context.resume();
  } catch {
    context = null;
  }
}

for (const kind of ['pointerdown', 'keydown']) addEventListener(kind, wake, {capture: true});

function tone(at, frequency, duration, {type = 'sine', gain = 0.18, slide = 0} = {}) {
  const osc = context.createOscillator();
  const amp = context.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(frequency, at);
  if (slide) osc.frequency.exponentialRampToValueAtTime(Math.max(40, frequency + slide), at + duration);
  amp.gain.setValueAtTime(0.0001, at);
  amp.gain.exponentialRampToValueAtTime(gain, at + 0.01);
  amp.gain.exponentialRampToValueAtTime(0.0001, at + duration);
  osc.connect(amp).connect(context.destination);
  osc.start(at);
  osc.stop(at + duration + 0.02);
}

function rattle(at, duration, gain = 0.25) {
  // Dice in a cup: short bursts of filtered noise.
  const length = Math.ceil(context.sampleRate * duration);
  const buffer = context.createBuffer(1, length, context.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < length; i += 1) data[i] = (Math.random() * 2 - 1) * (1 - i / length);
  const source = context.createBufferSource();
  source.buffer = buffer;
  const filter = context.createBiquadFilter();
  filter.type = 'bandpass';
  filter.frequency.value = 1800 + Math.random() * 1400;
  const amp = context.createGain();
  amp.gain.value = gain;
  source.connect(filter).connect(amp).connect(context.destination);
  source.start(at);
}

const SOUNDS = {
  roll(now) { for (let i = 0; i < 6; i += 1) rattle(now + i * 0.055 + Math.random() * 0.03, 0.05); },
  bid(now) { tone(now, 700, 0.09, {type: 'triangle', slide: -250}); },
  call(now) { tone(now, 240, 0.28, {type: 'sawtooth', gain: 0.12, slide: -90}); },
  reveal(now) { tone(now, 523, 0.16); tone(now + 0.14, 784, 0.24); },
  lose(now) { tone(now, 392, 0.18, {type: 'triangle'}); tone(now + 0.16, 294, 0.3, {type: 'triangle'}); },
  turn(now) { tone(now, 880, 0.12, {gain: 0.14}); tone(now + 0.13, 1175, 0.2, {gain: 0.14}); },
  win(now) { [523, 659, 784, 1047].forEach((f, i) => { tone(now + i * 0.11, f, 0.22); }); },
};

export function play(name) {
  document.body.dataset.sound = name; // the last effect asked for (the browser tests look)
  if (muted || !context || context.state !== 'running' || !SOUNDS[name]) return;
  try {
    SOUNDS[name](context.currentTime + 0.01);
    document.body.dataset.sounded = name; // the last effect actually made (muted: none)
  } catch {
    // no sound this time; the game goes on
  }
}
