/** BM25 over weighted manifest fields (BM25F-style: name, id, tags and examples count more). */
import type { ToolManifest } from '../manifests/types';
import { tokenize } from '../embed/tokenize';
import { expandConcepts } from '../embed/lexicon';

/** Field weights: short, curated fields say more per term than long descriptions. */
export const FIELD_WEIGHTS = { name: 3, id: 3, tags: 2.5, examples: 1.5, description: 1, io: 0.6 };

export interface LexicalHit { id: string; score: number; matched: string[] }

/** Tokens plus their expanded concepts, deduplicated in order. */
export function analyze(text: string): string[] {
  const tokens = tokenize(text);
  const out = new Set(tokens);
  for (const c of expandConcepts(tokens)) out.add('c:' + c);
  return [...out];
}

interface Doc { id: string; tf: Map<string, number>; len: number }

/** BM25's inverse document frequency of a term that `df` of `n` documents hold. */
function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

export class Bm25Index {
  private docs = new Map<string, Doc>();
  private df = new Map<string, number>();
  /** Term → the documents holding it: a query visits only those (next-step suggestions run several queries each). */
  private postings = new Map<string, Doc[]>();
  private totalLen = 0;

  constructor(tools: ToolManifest[] = [], readonly k1 = 1.2, readonly b = 0.6) {
    for (const t of tools) this.add(t);
  }

  get size(): number { return this.docs.size; }

  add(m: ToolManifest): void {
    this.remove(m.id);
    const tf = new Map<string, number>();
    let len = 0;
    const field = (text: string | undefined, w: number) => {
      if (!text) return;
      const terms = analyze(text);
      for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + w);
      len += terms.length * w;
    };
    field(m.name, FIELD_WEIGHTS.name);
    field(m.id.replace(/[_.-]+/g, ' '), FIELD_WEIGHTS.id);
    field(m.tags?.join(' , '), FIELD_WEIGHTS.tags);
    for (const e of m.examples ?? []) field(e, FIELD_WEIGHTS.examples);
    field(m.description, FIELD_WEIGHTS.description);
    for (const p of [...(m.inputs ?? []), ...(m.outputs ?? [])]) field([p.description, p.unit].filter(Boolean).join(' '), FIELD_WEIGHTS.io);
    const doc = { id: m.id, tf, len };
    for (const t of tf.keys()) {
      this.df.set(t, (this.df.get(t) ?? 0) + 1);
      const list = this.postings.get(t);
      if (list) list.push(doc); else this.postings.set(t, [doc]);
    }
    this.docs.set(m.id, doc);
    this.totalLen += len;
  }

  remove(id: string): void {
    const d = this.docs.get(id);
    if (!d) return;
    for (const t of d.tf.keys()) {
      const n = (this.df.get(t) ?? 1) - 1;
      if (n > 0) this.df.set(t, n);
      else this.df.delete(t);
      const list = this.postings.get(t)?.filter((x) => x !== d);
      if (list?.length) this.postings.set(t, list); else this.postings.delete(t);
    }
    this.totalLen -= d.len;
    this.docs.delete(id);
  }

  /** Whether any tool's text holds the (analysed) term. */
  has(term: string): boolean {
    return this.df.has(term);
  }

  /** The term's inverse document frequency over the catalog, as search weighs it, over its largest (a term one tool holds): 0..1, 0 when no tool does. */
  rarity(term: string): number {
    const n = this.docs.size;
    const df = this.df.get(term) ?? 0;
    return n && df ? idf(n, df) / idf(n, 1) : 0;
  }

  /** Scores every tool that shares a term with the query; best first. */
  search(query: string | string[], k = Infinity): LexicalHit[] {
    const terms = [...new Set(typeof query === 'string' ? analyze(query) : query)];
    const n = this.docs.size;
    if (!n) return [];
    const avg = this.totalLen / n || 1;
    // Per document, the terms are summed in query order, as a scan of every document would.
    const acc = new Map<Doc, LexicalHit>();
    for (const t of terms) {
      const list = this.postings.get(t);
      if (!list) continue;
      const df = this.df.get(t) ?? 0;
      const w = idf(n, df);
      for (const d of list) {
        const f = d.tf.get(t)!;
        const add = (w * f * (this.k1 + 1)) / (f + this.k1 * (1 - this.b + (this.b * d.len) / avg));
        const h = acc.get(d);
        if (h) { h.score += add; h.matched.push(t); } else acc.set(d, { id: d.id, score: add, matched: [t] });
      }
    }
    const hits = [...acc.values()].filter((h) => h.score > 0);
    hits.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
    return hits.slice(0, k);
  }
}
