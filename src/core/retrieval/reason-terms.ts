/**
 * The words a reason may quote: only meaningful phrases in the analyst's own words. Matching runs
 * on stems, character bigrams and concepts; a reason shows none of those as they are ("imageri",
 * "景影", "how"), only whole words the analyst typed, whole Chinese dictionary words, and the
 * names of concepts.
 */
import { CJK_DICTIONARY } from '../embed/cjk-dictionary';
import { expandConcepts } from '../embed/lexicon';
import { glossaryTokens, tokenize, tokenizeDetailed, wordToken } from '../embed/tokenize';

const HAN = /\p{Script=Han}/u;
const CONCEPT = 'c:';

/** Words that match across many tools and say nothing about why this one fits. */
const SAY_NOTHING = new Set(('how what which where when why many much more most less per each every before after between ' +
  'over under into about within across show see look give find get want need use using used one two three first last ' +
  'new old same other area map maps image images data file files result results value values make made ' +
  'take took taken put keep kept know think tell say said go going come came lot lots bit thing things way').split(' '));

const DICTIONARY_WORDS = Object.keys(CJK_DICTIONARY).sort((a, b) => [...b].length - [...a].length);
const conceptsOf = new Map<string, string[]>();

/**
 * The Chinese dictionary word of `text` that evokes `concept` (longest first), so a Chinese task's
 * reason quotes "统计" where it would otherwise name the concept in English ("statistics").
 */
function evokingWord(text: string, concept: string): string | undefined {
  for (const w of DICTIONARY_WORDS) {
    if (!text.includes(w)) continue;
    let cs = conceptsOf.get(w);
    if (!cs) conceptsOf.set(w, (cs = expandConcepts(tokenize(w))));
    if (cs.includes(concept)) return w;
  }
  return undefined;
}

/** Readable forms of matched terms (stems, bigrams, "c:" concepts) for `text`, in order, without repeats. */
export function readableTerms(text: string, terms: string[]): string[] {
  const surface = new Map<string, string>();
  const raw = tokenizeDetailed(text).rawWords;
  for (const w of raw) if (!surface.has(wordToken(w))) surface.set(wordToken(w), w);
  // A glossary word quotes itself for its English tokens ("inundación" where "flood" matched).
  for (const w of raw) for (const t of glossaryTokens(w)) if (!surface.has(t)) surface.set(t, w);
  const han = HAN.test(text);
  const out: string[] = [];
  for (const t of terms) {
    let r: string | undefined;
    if (t.startsWith(CONCEPT)) {
      const concept = t.slice(CONCEPT.length);
      r = (han ? evokingWord(text, concept) : undefined) ?? concept.replace(/_/g, ' ');
    }
    else if (HAN.test(t)) r = [...t].length >= 2 && CJK_DICTIONARY[t] !== undefined && text.includes(t) ? t : undefined;
    else {
      const w = surface.get(t);
      r = w && !SAY_NOTHING.has(w) && !/^\d+([.,]\d+)?$/.test(w) && w.length > 1 ? w : undefined;
    }
    if (r && !out.includes(r)) out.push(r);
  }
  return out;
}
