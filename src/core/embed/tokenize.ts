import { CJK_DICTIONARY } from './cjk-dictionary';
import { TRADITIONAL_PAIRS } from './han-traditional';
import { foldAccents, isForeignFunctionWord, isPhraseHead, phraseAt, wordReading } from './euro-words';

/** English words dropped everywhere. Words used inside lexicon phrases ("how", "per", "before") stay. */
export const STOPWORDS: ReadonlySet<string> = new Set(
  ('a an the of in on at to for from with and or by as is are be been being was were it its this that ' +
    'these those i me my we our us you your he she they them their please can could would should will ' +
    'shall do does did done into onto via than then so if some any there here which who whom whose what ' +
    'when where why also just only very too but not no yes all both each other such own same again ' +
    'want need like get got make let lets give tell am has have had having about down out off s t')
    .split(' '),
);

/** Chinese function characters dropped as unigrams (and bigrams containing them). */
const CJK_STOP = new Set('的了和与及是我你他她它们把将这那个吗呢吧啊请帮想给并或也都就要一'.split(''));

const IRREGULAR: Record<string, string> = {
  indices: 'index',
  indexes: 'index',
  analyses: 'analysi',
  analysis: 'analysi',
  data: 'data',
  lidar: 'lidar',
  gis: 'gis',
  aois: 'aoi',
  rasters: 'raster',
  news: 'news',
  // a drainage area, not a form of "catch"
  catchment: 'catchment',
  catchments: 'catchment',
};

const VOWEL = /[aeiouy]/;

function undouble(w: string): string {
  const n = w.length;
  if (n >= 3 && w[n - 1] === w[n - 2] && !'aeioulsz'.includes(w[n - 1])) return w.slice(0, -1);
  return w;
}

/** Light English stemmer: plurals, -ing, -ed, -ation family; maps word families to one stem. */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3 || /\d/.test(w)) return w;
  // Own keys only: "constructor" or "tostring" must not find Object.prototype's members.
  if (Object.hasOwn(IRREGULAR, w)) return IRREGULAR[w];
  // plurals
  if (w.endsWith('ies') && w.length > 4) w = w.slice(0, -3) + 'y';
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (/(?:x|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  // derivational / inflectional suffixes; `verb` marks forms whose "-at" stem may be cut (-ate/-ated/-ating)
  let verb = false;
  if (w.endsWith('ification')) w = w.slice(0, -9) + 'ify';
  else if (w.endsWith('ization')) w = w.slice(0, -7) + 'ize';
  else if (w.endsWith('ation') && w.length - 5 >= 3) w = w.slice(0, -5);
  else if (w.endsWith('ction')) w = w.slice(0, -3);
  else if (w.endsWith('ssion')) w = w.slice(0, -3);
  else if (w.endsWith('ing') && w.length - 3 >= 3 && VOWEL.test(w.slice(0, -3))) {
    w = undouble(w.slice(0, -3));
    verb = true;
  } else if (w.endsWith('ied') && w.length > 4) w = w.slice(0, -3) + 'y';
  else if (w.endsWith('ed') && !w.endsWith('eed') && w.length - 2 >= 3 && VOWEL.test(w.slice(0, -2))) {
    w = undouble(w.slice(0, -2));
    verb = true;
  }
  // end normalisation so verb/noun forms meet: classify/classified -> classifi, slope(s) -> slop,
  // calculate/calculated/calculation -> calcul
  if (w.length > 3 && w.endsWith('y') && !VOWEL.test(w[w.length - 2])) w = w.slice(0, -1) + 'i';
  if (w.length > 3 && w.endsWith('e')) {
    w = w.slice(0, -1);
    verb = true;
  }
  if (verb && w.length >= 6 && w.endsWith('at')) w = w.slice(0, -2);
  // noun families that the verb forms above do not reach: distribution/distributed -> distribut,
  // comparison/compared -> compar, measurement/measured -> measur (short words such as "segment" stay)
  if (w.length >= 8 && w.endsWith('ution')) w = w.slice(0, -3);
  else if (w.length >= 8 && w.endsWith('ison')) w = w.slice(0, -4);
  else if (w.length >= 9 && w.endsWith('ment')) w = stem(w.slice(0, -4));
  return w;
}

const HAN = /\p{Script=Han}/u;
/**
 * A word: a letter or digit, then letters, digits and the combining marks that belong to them.
 * Devanagari, Bengali, Tamil and other Indic scripts write most vowels as marks ("बाढ़", flood): a
 * word of letters alone fell apart into its consonants.
 */
const WORD_RE = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu;
const HAN_RUN_RE = /(\p{Script=Han}+)/gu;
/**
 * Scripts written without spaces between words besides Chinese: Japanese kana, Thai, Lao, Khmer,
 * Myanmar. A run of them was one token ("洪水範囲をSentinel-1で" gave "をsentinel"); each run is read
 * apart from the Latin words beside it, in bigrams as Chinese is (the prolonged-sound mark "ー" is
 * in no script of its own).
 */
const UNSPACED = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u30fc]/u;
const UNSPACED_RUN_RE = /([\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u30fc]+)/gu;

let maxCjkWord = 0;
for (const k of Object.keys(CJK_DICTIONARY)) maxCjkWord = Math.max(maxCjkWord, [...k].length);

/** Result of the detailed tokenizer: stemmed tokens plus the raw (unstemmed) Latin words for n-grams. */
export interface TokenizedText {
  tokens: string[];
  rawWords: string[];
}

const translationCache = new Map<string, string[]>();

/** The English tokens of a glossary entry: of the Chinese word `key`, or (`english`) of the English words themselves. */
function translate(key: string, english = false): string[] {
  const k = english ? '\u0000' + key : key;
  let t = translationCache.get(k);
  if (t === undefined) {
    t = [];
    for (const m of (english ? key : CJK_DICTIONARY[key] ?? '').matchAll(WORD_RE)) {
      if (!STOPWORDS.has(m[0])) t.push(stem(m[0]));
    }
    // Bounded: compound readings are made of the text's words, and hostile text has many.
    if (translationCache.size >= 50_000) translationCache.clear();
    translationCache.set(k, t);
  }
  return t;
}

/** Traditional character → Simplified (han-traditional.ts). */
const SIMPLIFIED = new Map<string, string>();
{
  const cps = [...TRADITIONAL_PAIRS];
  for (let i = 0; i + 1 < cps.length; i += 2) SIMPLIFIED.set(cps[i], cps[i + 1]);
}

/**
 * `text` with its Traditional Chinese characters in Simplified form (every other character as it
 * is; the tokenizer passes a run of Chinese characters, the task patterns a whole task): Traditional
 * text (Taiwan, Hong Kong) is then read with the same dictionaries and meets past tasks and
 * manifests written in Simplified characters.
 */
export function simplifiedHan(text: string): string {
  let out: string | undefined;
  let i = 0;
  for (const ch of text) {
    const s = SIMPLIFIED.get(ch);
    if (s !== undefined && out === undefined) out = text.slice(0, i);
    if (out !== undefined) out += s ?? ch;
    i += ch.length;
  }
  return out ?? text;
}

function tokenizeHan(run: string, out: string[]): void {
  const chars = [...run];
  const n = chars.length;
  for (let i = 0; i < n; i++) if (!CJK_STOP.has(chars[i])) out.push(chars[i]);
  for (let i = 0; i + 1 < n; i++) {
    if (!CJK_STOP.has(chars[i]) && !CJK_STOP.has(chars[i + 1])) out.push(chars[i] + chars[i + 1]);
  }
  // every dictionary word found in the run: the word itself (if longer than a bigram) and its translation
  for (let i = 0; i < n; i++) {
    let w = '';
    for (let len = 1; len <= maxCjkWord && i + len <= n; len++) {
      w += chars[i + len - 1];
      if (CJK_DICTIONARY[w] !== undefined) {
        if (len > 2) out.push(w);
        for (const t of translate(w)) out.push(t);
      }
    }
  }
}

/**
 * A run of an unspaced script: its bigrams of characters (a character with the marks that follow
 * it), or the one character of a run of one. No dictionary here reads these scripts, so unigrams
 * (particles such as "を" and "で", single Thai consonants) would say little; bigrams still meet the
 * same word in another task or a manifest.
 */
function tokenizeUnspaced(run: string, out: string[]): void {
  const units = run.match(/\P{M}\p{M}*/gu) ?? [];
  if (units.length === 1) out.push(units[0]);
  for (let i = 0; i + 1 < units.length; i++) out.push(units[i] + units[i + 1]);
}

/** The token of one Latin-script word as typed: accents folded ("inundación" and "inundacion" are one word), then stemmed. */
export function wordToken(word: string): string {
  return latinWord(word).token;
}

/** The English tokens a Latin-script word (lowercased) adds as a Spanish, Portuguese, French, German or Italian glossary word ([] for none). */
export function glossaryTokens(word: string): string[] {
  return latinWord(word).foreignReading;
}

/** What the tokenizer needs of one Latin-script word (lowercased), computed once per word. */
interface LatinWord {
  folded: string;
  token: string;
  stop: boolean;
  functionWord: boolean;
  phraseHead: boolean;
  /** English tokens of the word read on its own, in a text that reads as English / as foreign. */
  plainReading: string[];
  foreignReading: string[];
}

/**
 * Scripts whose marks are optional, left out as often as written: Greek accents, Arabic vowel
 * signs, hamza and madda (أ, إ, آ read as ا) and the tatweel that stretches a word, Hebrew points.
 * A word is read without them, as Latin words are read without accents. Indic and Thai marks are
 * vowels, not accents, and stay.
 */
const OPTIONAL_MARKS = /[\p{Script=Greek}\p{Script=Arabic}\p{Script=Hebrew}]/u;

function foldOptionalMarks(w: string): string {
  if (!OPTIONAL_MARKS.test(w)) return w;
  return w.normalize('NFD').replace(/[\p{M}\u0640]+/gu, '').normalize('NFC');
}

/** Words seen before (a task's vocabulary repeats across a fit's thousands of parses); cleared when full, so hostile text cannot grow it. */
const latinWords = new Map<string, LatinWord>();
const MAX_CACHED_WORDS = 50_000;

function latinWord(w: string): LatinWord {
  let info = latinWords.get(w);
  if (info) return info;
  const folded = foldAccents(foldOptionalMarks(w));
  const plain = wordReading(folded, w, false);
  const foreign = wordReading(folded, w, true);
  info = {
    folded,
    token: stem(folded),
    stop: STOPWORDS.has(w),
    functionWord: isForeignFunctionWord(folded),
    phraseHead: isPhraseHead(folded),
    plainReading: plain ? translate(plain, true) : [],
    foreignReading: foreign ? translate(foreign, true) : [],
  };
  if (latinWords.size >= MAX_CACHED_WORDS) latinWords.clear();
  latinWords.set(w, info);
  return info;
}

/** Tokenizer shared by the builtin embedder and BM25; also returns raw Latin words. */
export function tokenizeDetailed(text: string): TokenizedText {
  const tokens: string[] = [];
  const rawWords: string[] = [];
  const norm = text.normalize('NFKC').toLowerCase();
  const hanSpaced = HAN.test(norm) ? norm.replace(HAN_RUN_RE, ' $1 ') : norm;
  const spaced = UNSPACED.test(hanSpaced) ? hanSpaced.replace(UNSPACED_RUN_RE, ' $1 ') : hanSpaced;
  // Latin words are read in runs (between Chinese text), so a glossary phrase can span stop words
  // ("uso del suelo"); whether the text reads as English or not is voted over all of them.
  const items = [...spaced.matchAll(WORD_RE)].map((m) => m[0]);
  let fn = 0;
  let en = 0;
  for (const w of items) {
    if (HAN.test(w[0]) || UNSPACED.test(w[0])) continue;
    const info = latinWord(w);
    if (info.functionWord) fn++;
    else if (info.stop) en++;
  }
  const foreign = fn > en;
  let run: string[] = [];
  const flush = (): void => {
    if (!run.length) return;
    const infos = run.map(latinWord);
    const folded = infos.map((x) => x.folded);
    // English tokens that the word ending at index i adds.
    let pending: { at: number; tokens: string[] } | undefined;
    for (let i = 0; i < run.length; i++) {
      const info = infos[i];
      if (!pending || pending.at < i) {
        const phrase = info.phraseHead ? phraseAt(folded, i) : undefined;
        pending = phrase ? { at: i + phrase.n - 1, tokens: translate(phrase.english, true) } : { at: i, tokens: foreign ? info.foreignReading : info.plainReading };
      }
      if (!info.stop) {
        rawWords.push(run[i]);
        tokens.push(info.token);
      }
      // A glossary word that is the English word's own stem ("satellit") is not counted twice.
      if (pending.at === i) for (const t of pending.tokens) if (t !== info.token) tokens.push(t);
    }
    run = [];
  };
  for (const w of items) {
    if (HAN.test(w[0])) {
      flush();
      tokenizeHan(simplifiedHan(w), tokens);
      continue;
    }
    if (UNSPACED.test(w[0])) {
      flush();
      tokenizeUnspaced(w, tokens);
      continue;
    }
    run.push(w);
  }
  flush();
  return { tokens, rawWords };
}

/**
 * Lowercased, stemmed word tokens in text order. English: split on non-alphanumerics, stopwords
 * dropped, accents folded, light stemming; Spanish, Portuguese, French, German and Italian domain
 * words and phrases add the English tokens of their glossary entry (euro-words.ts). Chinese:
 * character unigrams + bigrams, plus dictionary words longer than two characters and the English
 * (stemmed) tokens of their translations.
 */
export function tokenize(text: string): string[] {
  return tokenizeDetailed(text).tokens;
}
