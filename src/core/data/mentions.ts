/** Which data a task talks about without naming the file: "the DEM", "the Landsat 9 scene", "the
 *  post-fire image", "between 2018 and 2024", "城市扩张". Each kind of data has the words analysts use
 *  for it; a file is of that kind by its name, band descriptions, roles or guessed sensor. */
import * as path from 'path';
import type { DataItem } from '../retrieval/types';

interface Kind {
  kind: string;
  /** Words in a task (Latin words whole, Chinese as written) and in file names. */
  words: string[];
}

const KINDS: Kind[] = [
  { kind: 'dem', words: ['dem', 'dtm', 'dsm', 'srtm', 'elevation', 'terrain', 'height', 'altitude', '高程', '地形', '海拔'] },
  { kind: 'landsat', words: ['landsat', 'etm', 'etm+', 'oli', 'tirs', 'qa_pixel', 'st_b10', 'l7', 'l8', 'l9', 'le07', 'lc08', 'lc09'] },
  { kind: 'sentinel2', words: ['sentinel', 'sentinel-2', 's2', 'msi', 'scl', '哨兵'] },
  { kind: 'fire', words: ['fire', 'wildfire', 'burn', 'burned', 'burnt', '火', '烧'] },
  { kind: 'pre', words: ['pre', 'pre-fire', 'prefire', '火前'] },
  { kind: 'post', words: ['post', 'post-fire', 'postfire', '火后'] },
  { kind: 'urban', words: ['urban', 'town', 'city', 'built-up', 'settlement', 'development', 'impervious', '城市', '城镇', '建成区', '建设用地'] },
  { kind: 'thermal', words: ['thermal', 'temperature', 'lst', '温度'] },
  { kind: 'fields', words: ['field', 'fields', 'parcel', 'parcels', 'plot', 'plots', '地块', '田块'] },
];

const HAN = /\p{Script=Han}/u;

/** Position of `word` in `text` (lower case), whole words for Latin script; -1 when absent. */
function find(text: string, word: string): number {
  if (HAN.test(word)) return text.indexOf(word);
  // Chinese runs on without spaces: a Han character ends a Latin word too ("的Landsat 9，").
  const edge = '[^\\p{L}\\p{M}\\p{N}_]|\\p{Script=Han}';
  const re = new RegExp(`(^|${edge})${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=$|${edge})`, 'u');
  const m = re.exec(text);
  return m ? m.index + m[1].length : -1;
}

/** Kinds of data an item is, from what it says about itself. */
function kindsOf(item: DataItem): Set<string> {
  const out = new Set<string>();
  const tokens = path.basename(item.path).toLowerCase().replace(/\.[a-z0-9]+$/, '').split(/[^a-z0-9+]+|(?<=[a-z])(?=\d{4})/).filter(Boolean);
  for (const k of KINDS) if (k.words.some((w) => tokens.includes(w))) out.add(k.kind);
  if (item.roles?.includes('dem') || item.bands?.some((b) => b.role === 'dem')) out.add('dem');
  const descriptions = (item.bands ?? []).map((b) => (b.description ?? '').toLowerCase());
  if (descriptions.some((d) => /^(sr_b\d|st_b10|qa_pixel)$/.test(d))) out.add('landsat');
  if (descriptions.some((d) => /^(b0?[1-9]|b8a|b1[0-2]|scl)$/.test(d))) out.add('sentinel2');
  if (item.bands?.some((b) => b.role === 'thermal')) out.add('thermal');
  if (item.guess?.sensor.startsWith('landsat')) out.add('landsat');
  if (item.guess?.sensor.startsWith('sentinel')) out.add('sentinel2');
  return out;
}

export interface Mention {
  /** How many of the item's kinds the task speaks of (a year in its name counts half). */
  score: number;
  /** Where the task first speaks of it (earlier is more likely the thing worked on). */
  at: number;
  /** The task's own words that point at the item, e.g. ["DEM"], ["2018", "town"]. */
  words: string[];
}

/** How the task points at `item` without naming its file; score 0 when it does not. */
export function mentionOf(task: string, item: DataItem, now: Date = new Date()): Mention {
  const text = task.toLowerCase();
  const relative = relativeYears(text, now.getFullYear());
  const words: string[] = [];
  let score = 0;
  let at = Infinity;
  const kinds = kindsOf(item);
  for (const k of KINDS) {
    if (!kinds.has(k.kind)) continue;
    const hits = k.words.map((w) => ({ w, i: find(text, w) })).filter((h) => h.i >= 0).sort((a, b) => a.i - b.i || b.w.length - a.w.length);
    if (!hits.length) continue;
    score++;
    at = Math.min(at, hits[0].i);
    words.push(task.slice(hits[0].i, hits[0].i + hits[0].w.length));
  }
  // A year in a file name says when, not what the data is: half the weight of a kind, once per year.
  for (const year of yearsInName(path.basename(item.path))) {
    const said = text.indexOf(year);
    const rel = relative.get(year);
    const i = said >= 0 ? said : rel?.at ?? -1;
    if (i < 0) continue;
    score += 0.5;
    at = Math.min(at, i);
    words.push(said >= 0 ? year : task.slice(rel!.at, rel!.at + rel!.phrase.length));
  }
  return { score, at, words };
}

/**
 * The years a file name dates its data by, each once: a year on its own (`urban_2018.tif`) or opening
 * a date (`…_20240802_20240803_…`, `T32TNR_20240715T102559_…`). A Landsat scene's acquisition and
 * processing dates name one year twice, which is still one mention of it; digits inside a longer
 * number are no year, nor four digits whose month would be no month (path/row `193028` is not 1930,
 * `202034` not 2020).
 */
export function yearsInName(name: string): string[] {
  return [...new Set([...name.matchAll(/(?<!\d)((?:19|20)\d{2})(?=\D|$|(?:0[1-9]|1[0-2])(?:[0-2]\d|3[01])?(?!\d))/g)].map((m) => m[1]))];
}

/**
 * "This year" and "last year" in a task, as the years they are, with where they are said: "mean
 * NDVI per field for this year" points at the file of this year, not at the one a step made last.
 */
function relativeYears(text: string, year: number): Map<string, { at: number; phrase: string }> {
  const out = new Map<string, { at: number; phrase: string }>();
  for (const [re, y] of [[/\b(?:this|current) year\b|今年/, year], [/\b(?:last|previous) year\b|去年/, year - 1]] as const) {
    const m = re.exec(text);
    if (m) out.set(String(y), { at: m.index, phrase: m[0] });
  }
  return out;
}
