// A bid or call the rules refused, in the page's language: the server's error names the
// cause in `detail` (dudo.refusals: a key and its params), said here as why.<key> with its
// bids and faces in words. Null when the error has no detail or the page no sentence for
// it (an older server, a newer cause): then the general err.<code> is said instead.
import {has, t} from './i18n.js';
import {anyBidWords, facesWord} from './hands.js';

const BIDS = ['bid', 'least'];

export function refusalText(message) {
  const detail = message?.detail;
  if (!detail || typeof detail.key !== 'string' || !has(`why.${detail.key}`)) return null;
  const params = {...(detail.params || {})};
  for (const name of BIDS) {
    if (params[name] != null) params[name] = anyBidWords(params[name]);
  }
  if (params.face != null) params.face = facesWord(params.face);
  return t(`why.${detail.key}`, params);
}
