/**
 * Spanish, Portuguese, French, German and Italian domain words read as English. Manifests are
 * written in English, so "inundación" or "Überschwemmungsgebiet" met no tool's words and every
 * learned part saw them as strangers to the English tasks of the same pipeline. The tokenizer keeps
 * the word and adds the English tokens of its glossary entry (euro-dictionary.ts), as it does for
 * Chinese.
 *
 * Lookups are forgiving where typing is: accents are optional ("inundacion"), Romance plurals and
 * German inflections are tried against the singular, German compounds are split into glossary
 * words ("Hochwassergefahrenkarte" = hochwasser + gefahr + karte), and fixed phrases ("uso del
 * suelo", "modelo digital de elevación") win over their words.
 */
import { EURO_AGRICULTURE } from './euro-agriculture';
import { EURO_DICTIONARY } from './euro-dictionary';

/** The glossary read: the agricultural words beside the first dictionary, whose entries win. */
const GLOSSARY: Readonly<Record<string, string>> = { ...EURO_AGRICULTURE, ...EURO_DICTIONARY };

const LATIN_WORD = /^[\p{Script=Latin}\p{M}\p{N}]+$/u;
const MARKS = /\p{M}+/gu;
const ASCII = /^[\x00-\x7f]*$/;
const LIGATURES: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ł: 'l' };

/** A Latin-script word without its accents ("inundación" → "inundacion", "Fläche" → "flache"); other scripts unchanged. */
export function foldAccents(word: string): string {
  if (ASCII.test(word) || !LATIN_WORD.test(word)) return word;
  return word.normalize('NFD').replace(MARKS, '').replace(/[ßæœøđł]/g, (c) => LIGATURES[c]).normalize('NFC');
}

/** Longest phrase key, in words, and the words phrases start with (only those are tried as a phrase). */
let maxPhrase = 1;
const PHRASE_HEADS = new Set<string>();
for (const k of Object.keys(GLOSSARY)) {
  const words = k.split(' ');
  maxPhrase = Math.max(maxPhrase, words.length);
  if (words.length > 1) PHRASE_HEADS.add(words[0]);
}

const has = (k: string): boolean => Object.hasOwn(GLOSSARY, k);

/** Dictionary forms to try for an inflected word: Romance plurals (-s, -es, -i, -e) and feminines (-a, -as), German endings (-en, -n, -e, -er, -s). */
function inflections(w: string): string[] {
  const out: string[] = [];
  const cut = (n: number, add = ''): void => {
    if (w.length - n >= 3) out.push(w.slice(0, w.length - n) + add);
  };
  if (w.endsWith('es')) cut(2);
  if (w.endsWith('s')) cut(1);
  if (w.endsWith('en')) cut(2);
  if (w.endsWith('n')) cut(1);
  if (w.endsWith('er')) cut(2);
  if (w.endsWith('e')) cut(1, 'a'), cut(1), cut(1, 'o');
  if (w.endsWith('i')) cut(1, 'o'), cut(1, 'e');
  // the feminine of an adjective or participle for the masculine the glossary lists (inundada, inundadas, nuvolose → -o)
  if (w.endsWith('a')) cut(1, 'o');
  if (w.endsWith('as')) cut(2, 'o');
  // -ões / -ães / -ais (Portuguese), -aux (French): inundações → inundacao, canais → canal, réseaux → reseau
  if (w.endsWith('oes') || w.endsWith('aes')) cut(3, 'ao');
  if (w.endsWith('ais')) cut(3, 'al');
  if (w.endsWith('aux')) cut(3, 'al'), cut(1);
  return out;
}

/** The glossary key a single (folded, lowercased) word stands for, if any. */
function wordKey(w: string): string | undefined {
  if (w.length < 3) return undefined;
  if (has(w)) return w;
  for (const s of inflections(w)) if (has(s)) return s;
  return undefined;
}

/** German linking elements between compound parts (Gefahr-en-karte, Überschwemmung-s-gebiet). */
const LINKS = ['', 's', 'n', 'en', 'e', 'es', 'er'];
/** Shortest compound part: three-letter parts split English words ("scenario" = scena + rio, "playable" = playa + blé). */
const MIN_PART = 4;
/** Longest word tried as a compound ("Grundstücksentwässerungsanlagenverordnung" has 40 letters). */
const MAX_COMPOUND = 48;

/**
 * A compound as glossary words that cover it whole, left to right (with linking elements and an
 * inflected last part), fewest parts first; undefined when no such split exists. Only whole
 * covers count: "Landnutzungskarte" splits, "Landesamt" without "amt" in the glossary does not.
 */
export function splitCompound(w: string): string[] | undefined {
  // The split is quadratic in the word's length: a pasted hash or a 4 MB "word" is no compound.
  if (w.length < 2 * MIN_PART || w.length > MAX_COMPOUND) return undefined;
  const best: (string[] | undefined)[] = new Array(w.length + 1);
  best[0] = [];
  for (let i = 0; i < w.length; i++) {
    const here = best[i];
    if (!here) continue;
    for (let j = w.length; j >= i + MIN_PART; j--) {
      const part = w.slice(i, j);
      const found = j === w.length ? wordKey(part) : has(part) ? part : undefined;
      // an inflected last part stands for a glossary word of MIN_PART letters too ("scenarios" is no scena + rio)
      const key = found && found.length >= MIN_PART ? found : undefined;
      if (!key) continue;
      for (const link of j === w.length ? [''] : LINKS) {
        if (!w.startsWith(link, j)) continue;
        const end = j + link.length;
        const next = [...here, key];
        if (!best[end] || best[end]!.length > next.length) best[end] = next;
      }
    }
  }
  const out = best[w.length];
  return out && out.length >= 2 ? out : undefined;
}

/**
 * Function words of the five languages that English does not write (no "a", "in", "die", "per",
 * "con", "come", "den", "e", "no", "do", "dos", "dove", "um", "im", "uber": a task in English may
 * have them too).
 */
const FOREIGN_FUNCTION_WORDS = new Set(
  ('de del la las el los por para una uno que y sobre entre desde hasta como cual cuanto cuantos donde ' +
    'da das em na nas uma pelo pela pelos pelas qual quanto onde ' +
    'le les des du et pour dans sur avec une au aux quel quelle combien ou ' +
    'der dem des und mit fur von auf aus bei zum zur ein eine einer einem nach wie welche wieviel ' +
    'il gli della delle dei degli di nel nella sul sulla quale quanti').split(' '),
);

/** Whether a (folded) word starts a glossary phrase. */
export function isPhraseHead(folded: string): boolean {
  return PHRASE_HEADS.has(folded);
}

/** The glossary entries a phrase starting at `i` of `folded` stands for: its length in words and its English, or undefined. */
export function phraseAt(folded: string[], i: number): { n: number; english: string } | undefined {
  if (!PHRASE_HEADS.has(folded[i])) return undefined;
  // Longest first; the last word may be inflected ("zonas de inundaciones"), the others are as listed.
  for (let n = Math.min(maxPhrase, folded.length - i); n >= 2; n--) {
    const head = folded.slice(i, i + n - 1).join(' ');
    const last = folded[i + n - 1];
    for (const cand of [last, ...inflections(last)]) {
      const key = `${head} ${cand}`;
      if (has(key)) return { n, english: GLOSSARY[key] };
    }
  }
  return undefined;
}

/**
 * The English of one word on its own (`folded` from `typed`), or undefined. Accented words and
 * German compounds (listed or split) are read in any text; a plain unaccented word only in a text
 * that `foreign` says is not English: "table", "scene" or "climate" are English words that the
 * plural rules would otherwise take for Spanish "tabla", Italian "scena" or Spanish "clima".
 * Function words are not read (Portuguese "onde" is no Italian "onda").
 */
export function wordReading(folded: string, typed: string, foreign: boolean): string | undefined {
  if (FOREIGN_FUNCTION_WORDS.has(folded)) return undefined;
  const key = foreign || folded !== typed ? wordKey(folded) : folded.length >= 8 && has(folded) ? folded : undefined;
  if (key) return GLOSSARY[key];
  const parts = folded.length >= 8 ? splitCompound(folded) : undefined;
  return parts?.map((p) => GLOSSARY[p]).join(' ');
}

/**
 * Whether a (folded) word is a function word of the five languages that English does not write: a
 * text reads as foreign when it has more of them than English stop words.
 */
export function isForeignFunctionWord(folded: string): boolean {
  return FOREIGN_FUNCTION_WORDS.has(folded);
}
