// Common Hand (bids: poker): a bid is a poker hand {hand, faces} where a quantity game's bid
// is [quantity, face]. Nothing here judges legality: the legal hands come from the seat's
// view (game.legal.bids); this only reads, names and draws them.
import {bidWords, has, t} from './i18n.js';
import {die} from './dice.js';

// The categories, lowest first (dudo.hands.CATEGORIES).
export const CATEGORIES = ['pair', 'two_pair', 'three', 'low_straight', 'high_straight', 'full_house', 'four', 'five'];
const OF_A_KIND = {pair: 2, three: 3, four: 4, five: 5};
const STRAIGHTS = {low_straight: [1, 2, 3, 4, 5], high_straight: [2, 3, 4, 5, 6]};
// How many dice of each face a hand names, face by face (a straight names none): the
// picker's rows of faces.
export const HAND_COUNTS = {pair: [2], two_pair: [2, 2], three: [3], full_house: [3, 2], four: [4], five: [5]};

export function isHand(bid) {
  return Boolean(bid) && !Array.isArray(bid) && typeof bid.hand === 'string';
}

// A bid event's bid: {hand, faces} for poker bids, else [quantity, face].
export function eventBid(event) {
  return event.hand ? {hand: event.hand, faces: event.faces || []} : [event.quantity, event.face];
}

export function handKey(hand) {
  return `${hand.hand}:${(hand.faces || []).join(',')}`;
}

export function sameBid(a, b) {
  if (isHand(a) || isHand(b)) return isHand(a) && isHand(b) && handKey(a) === handKey(b);
  return a[0] === b[0] && a[1] === b[1];
}

// The dice a hand names, to draw it: full house 4s over 2s is 4 4 4 2 2.
export function handDice(hand) {
  const [a, b] = hand.faces || [];
  if (STRAIGHTS[hand.hand]) return STRAIGHTS[hand.hand];
  if (OF_A_KIND[hand.hand]) return Array(OF_A_KIND[hand.hand]).fill(a);
  if (hand.hand === 'two_pair') return [a, a, b, b];
  if (hand.hand === 'full_house') return [a, a, a, b, b];
  return [];
}

// Whether a revealed die is one the hand names (lit at the reveal).
export function handUses(hand, face) {
  return handDice(hand).includes(face);
}

// A face in the plural, as hands name them: "3s", "aces" ("Dreier", "treses").
export function facesWord(face) {
  if (face === 1) return t('face.aces');
  const special = `face.many.${face}`;
  return has(special) ? t(special) : t('face.many', {face});
}

// A hand in words: "full house, 4s over 2s".
export function handWords(hand) {
  const [a, b] = hand.faces || [];
  return t(`hand.${hand.hand}`, {f: a ? facesWord(a) : '', f2: b ? facesWord(b) : ''});
}

// Either kind of bid in words.
export function anyBidWords(bid) {
  return isHand(bid) ? handWords(bid) : bidWords(bid[0], bid[1]);
}

// A hand drawn as its dice (each die labelled with its face).
export function handDiceHtml(hand, size) {
  return handDice(hand).map((d) => die(d, {size, label: t('die.face', {face: d})})).join('');
}

// The hand the picker moves to when the player presses a kind (`{kind}`), the hand's first
// face (`{first}`) or its second (`{second}`): of the legal `bids`, the one that keeps
// most of the current pick (its faces, then its first face), else the cheapest of them.
export function chooseHand(bids, pick, {kind, first, second}) {
  const [a, b] = pick.faces || [];
  const same = (hand, faces) => faces.every((face, i) => face === undefined || hand.faces?.[i] === face);
  let options;
  if (kind) options = bids.filter((hand) => hand.hand === kind);
  else if (first) options = bids.filter((hand) => hand.hand === pick.hand && hand.faces?.[0] === first);
  else options = bids.filter((hand) => hand.hand === pick.hand && hand.faces?.[0] === a && hand.faces?.[1] === second);
  const want = kind ? [a, b] : first ? [first, b] : [a, second];
  return options.find((hand) => same(hand, want)) || options.find((hand) => same(hand, [want[0]])) || options[0] || null;
}
