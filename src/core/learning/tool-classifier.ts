/**
 * Which tools a task's flow will use, learned from the words of past tasks: one logistic model per
 * tool over the task's terms (tf-idf, unit length), trained jointly on the executed flows. Where the
 * nearest past tasks vote with whole flows, this weighs each word by how well it told flows that ran
 * a tool from flows that did not ("policyholders" → the portfolio loader, "optical" → not the SAR
 * chain). Deterministic: plain gradient descent in a fixed order.
 */

import { weightedIdf } from './weighted-idf';

export interface LabelledFlow { terms: string[]; tools: string[]; w: number }

/** A trained classifier as plain data, to hand it from the thread that trained it to the one that uses it (see step-model-pool.ts). */
export interface ToolClassifierState {
  /** Known terms, in the order of the weight table's rows, with their idf. */
  terms: string[];
  idf: number[];
  tools: string[];
  weights: Float32Array;
  bias: Float64Array;
}

const EPOCHS = 30;
const RATE = 0.5;
const RATE_DECAY = 0.93;
const BIAS_RATE = 0.05;
const L2 = 1e-3;

export class ToolClassifier {
  private readonly vocab = new Map<string, number>();
  private readonly idf: number[] = [];
  private tools: string[];
  private readonly toolIndex = new Map<string, number>();
  private weights: Float32Array;
  private bias: Float64Array;

  constructor(flows: LabelledFlow[]) {
    const data = flows.filter((f) => f.tools.length && f.w > 0);
    const idf = weightedIdf(data);
    for (const f of data) {
      for (const t of new Set(f.terms)) {
        const v = idf.get(t);
        if (v !== undefined && !this.vocab.has(t)) { this.vocab.set(t, this.vocab.size); this.idf.push(v); }
      }
      for (const id of f.tools) if (!this.toolIndex.has(id)) this.toolIndex.set(id, this.toolIndex.size);
    }
    this.tools = [...this.toolIndex.keys()];
    const K = this.tools.length;
    this.weights = new Float32Array(this.vocab.size * K);
    this.bias = new Float64Array(K);
    const xs = data.map((f) => this.features(f.terms));
    const ys = data.map((f) => new Set(f.tools.map((id) => this.toolIndex.get(id)!)));
    const wsum = data.reduce((a, f) => a + f.w, 0);
    // Biases start at the log-odds of how often each tool is run.
    for (let k = 0; k < K; k++) {
      let c = 0;
      data.forEach((f, i) => { if (ys[i].has(k)) c += f.w; });
      const p = (c + 0.5) / (wsum + 1);
      this.bias[k] = Math.log(p / (1 - p));
    }
    const z = new Float64Array(K);
    let rate = RATE;
    for (let e = 0; e < EPOCHS; e++) {
      for (let i = 0; i < xs.length; i++) {
        const x = xs[i];
        const wi = data[i].w;
        z.set(this.bias);
        for (const [j, v] of x) { const row = j * K; for (let k = 0; k < K; k++) z[k] += this.weights[row + k] * v; }
        for (let k = 0; k < K; k++) z[k] = wi * (1 / (1 + Math.exp(-z[k])) - (ys[i].has(k) ? 1 : 0));
        for (let k = 0; k < K; k++) this.bias[k] -= rate * BIAS_RATE * z[k];
        for (const [j, v] of x) {
          const row = j * K;
          for (let k = 0; k < K; k++) this.weights[row + k] -= rate * (z[k] * v + L2 * wi * this.weights[row + k]);
        }
      }
      rate *= RATE_DECAY;
    }
  }

  /** The trained classifier as plain data (its arrays are shared, not copied: hand them over, then drop this one). */
  state(): ToolClassifierState {
    return { terms: [...this.vocab.keys()], idf: [...this.idf], tools: [...this.tools], weights: this.weights, bias: this.bias };
  }

  /** The classifier `state()` gave, as it was trained (no training again). */
  static restore(s: ToolClassifierState): ToolClassifier {
    const c = new ToolClassifier([]);
    s.terms.forEach((t, j) => { c.vocab.set(t, j); c.idf.push(s.idf[j]); });
    c.tools = [...s.tools];
    c.tools.forEach((id, k) => c.toolIndex.set(id, k));
    c.weights = s.weights;
    c.bias = s.bias;
    return c;
  }

  /** Known terms with their tf-idf value, unit length. */
  private features(terms: string[]): [number, number][] {
    const out: [number, number][] = [];
    for (const t of new Set(terms)) {
      const j = this.vocab.get(t);
      if (j !== undefined) out.push([j, this.idf[j]]);
    }
    const n = Math.sqrt(out.reduce((a, [, v]) => a + v * v, 0)) || 1;
    for (const f of out) f[1] /= n;
    return out;
  }

  /** Whether the term was seen in a past task. */
  knowsTerm(term: string): boolean {
    return this.vocab.has(term);
  }

  /** Whether any of `terms` was seen in a past task (without, `predict` returns only the base rates). */
  knows(terms: string[]): boolean {
    return this.features(terms).length > 0;
  }

  /** P(the flow of a task worded with `terms` runs each tool), for every tool ever run. */
  predict(terms: string[]): Map<string, number> {
    const K = this.tools.length;
    const z = Float64Array.from(this.bias);
    for (const [j, v] of this.features(terms)) { const row = j * K; for (let k = 0; k < K; k++) z[k] += this.weights[row + k] * v; }
    const out = new Map<string, number>();
    for (let k = 0; k < K; k++) out.set(this.tools[k], 1 / (1 + Math.exp(-z[k])));
    return out;
  }
}
