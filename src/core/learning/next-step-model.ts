/**
 * A discriminative next-step model: softmax over the tools, learned from executed flows, with
 * sparse features of the task and of the steps so far — the task's terms (tf-idf, unit length),
 * the last one, two and three tools, every earlier tool, the position in the flow, and each task term paired with the
 * last tool (what "after the SAR chain, in a task about Kittler–Illingworth" means). Where the
 * n-gram counts and the similar-task votes are fixed rules, this weighs every piece of evidence by
 * how well it told the next step apart in the flows it learned from. Deterministic (plain gradient
 * descent in a fixed order).
 */
import { weightedIdf } from './weighted-idf';

export interface StepFlow { terms: string[]; tools: string[]; w: number }

const EPOCHS = 20;
const RATE = 0.5;
const RATE_DECAY = 0.92;
const BIAS_RATE = 0.05;
const L2 = 1e-5;
/** Term × last-tool pairs are left out when the weight table would pass this many cells. */
const MAX_CELLS = 6_000_000;
const START = '^';

type Sparse = [number, number][];

/** A trained model as plain data, to hand it from the thread that trained it to the one that uses it (see step-model-pool.ts). */
export interface NextStepState {
  /** Feature names, in the order of the weight table's rows. */
  features: string[];
  idf: [string, number][];
  tools: string[];
  weights: Float32Array;
  bias: Float64Array;
  pairs: boolean;
}

export class NextStepModel {
  private readonly index = new Map<string, number>();
  private readonly idf = new Map<string, number>();
  private readonly tools: string[] = [];
  private readonly toolIndex = new Map<string, number>();
  private weights: Float32Array = new Float32Array(0);
  private bias: Float64Array = new Float64Array(0);
  private pairs = true;

  constructor(flows: StepFlow[]) {
    const data = flows.filter((f) => f.tools.length && f.w > 0);
    for (const [t, v] of weightedIdf(data)) this.idf.set(t, v);
    for (const f of data) {
      for (const id of f.tools) if (!this.toolIndex.has(id)) { this.toolIndex.set(id, this.tools.length); this.tools.push(id); }
    }
    const K = this.tools.length;
    this.bias = new Float64Array(K);
    // Count the features first, and drop the pairs if they would make the table too big.
    const examples: { f: StepFlow; i: number }[] = [];
    for (const f of data) for (let i = 0; i < f.tools.length; i++) examples.push({ f, i });
    const keys = new Set<string>();
    for (const { f, i } of examples) for (const [k] of this.keys(f.terms, f.tools.slice(0, i))) keys.add(k);
    if (keys.size * K > MAX_CELLS) {
      this.pairs = false;
      keys.clear();
      for (const { f, i } of examples) for (const [k] of this.keys(f.terms, f.tools.slice(0, i))) keys.add(k);
    }
    for (const k of keys) this.index.set(k, this.index.size);
    this.weights = new Float32Array(this.index.size * K);
    // This loop is a fit's largest cost (a model per fold). The examples' features are packed flat
    // (example n holds idx/val[start[n] .. start[n + 1]), idx already a row offset), the L2 decay is
    // folded into one factor, and the loops over the tools are unrolled by four (V8 does not
    // vectorise them): 800 flood-risk flows train in 2.0 s instead of 3.7 s, to the same model.
    const start = new Int32Array(examples.length + 1);
    const packed = examples.map(({ f, i }) => this.features(f.terms, f.tools.slice(0, i)));
    packed.forEach((x, n) => { start[n + 1] = start[n] + x.length; });
    const idx = new Int32Array(start[examples.length]);
    const val = new Float64Array(start[examples.length]);
    packed.forEach((x, n) => x.forEach(([j, v], q) => { idx[start[n] + q] = j * K; val[start[n] + q] = v; }));
    const ys = examples.map(({ f, i }) => this.toolIndex.get(f.tools[i])!);
    const ws = examples.map(({ f }) => f.w);
    const W = this.weights;
    const bias = this.bias;
    const z = new Float64Array(K);
    let rate = RATE;
    for (let e = 0; e < EPOCHS; e++) {
      for (let n = 0; n < examples.length; n++) {
        const a = start[n];
        const b = start[n + 1];
        z.set(bias);
        for (let q = a; q < b; q++) {
          const row = idx[q];
          const v = val[q];
          let k = 0;
          for (; k + 3 < K; k += 4) {
            z[k] += W[row + k] * v;
            z[k + 1] += W[row + k + 1] * v;
            z[k + 2] += W[row + k + 2] * v;
            z[k + 3] += W[row + k + 3] * v;
          }
          for (; k < K; k++) z[k] += W[row + k] * v;
        }
        softmax(z);
        z[ys[n]] -= 1;
        const w = ws[n];
        // Decay in proportion to the example's weight: 888 practice flows read at a few steps' worth must not shrink the team's words.
        const keep = 1 - rate * L2 * w;
        for (let k = 0; k < K; k++) { z[k] *= w; bias[k] -= rate * BIAS_RATE * z[k]; }
        for (let q = a; q < b; q++) {
          const row = idx[q];
          const step = rate * val[q];
          let k = 0;
          for (; k + 3 < K; k += 4) {
            W[row + k] = W[row + k] * keep - step * z[k];
            W[row + k + 1] = W[row + k + 1] * keep - step * z[k + 1];
            W[row + k + 2] = W[row + k + 2] * keep - step * z[k + 2];
            W[row + k + 3] = W[row + k + 3] * keep - step * z[k + 3];
          }
          for (; k < K; k++) W[row + k] = W[row + k] * keep - step * z[k];
        }
      }
      rate *= RATE_DECAY;
    }
  }

  /** The trained model as plain data (its arrays are shared, not copied: hand them over, then drop this model). */
  state(): NextStepState {
    return { features: [...this.index.keys()], idf: [...this.idf], tools: [...this.tools], weights: this.weights, bias: this.bias, pairs: this.pairs };
  }

  /** The model `state()` gave, as it was trained (no training again). */
  static restore(s: NextStepState): NextStepModel {
    const m = new NextStepModel([]);
    s.features.forEach((k, i) => m.index.set(k, i));
    for (const [t, v] of s.idf) m.idf.set(t, v);
    s.tools.forEach((id, k) => { m.tools.push(id); m.toolIndex.set(id, k); });
    m.weights = s.weights;
    m.bias = s.bias;
    m.pairs = s.pairs;
    return m;
  }

  /** Feature names and values for a task and the steps so far. */
  private keys(terms: string[], done: string[]): [string, number][] {
    const out: [string, number][] = [];
    const words = [...new Set(terms)].filter((t) => this.idf.has(t));
    const vals = words.map((t) => this.idf.get(t)!);
    const norm = Math.sqrt(vals.reduce((a, v) => a + v * v, 0)) || 1;
    const last = done[done.length - 1] ?? START;
    words.forEach((t, i) => {
      out.push([`w\u0001${t}`, vals[i] / norm]);
      if (this.pairs) out.push([`p\u0001${t}\u0001${last}`, vals[i] / norm]);
    });
    const seq = [START, ...done];
    for (let n = 1; n <= 3 && n <= seq.length; n++) out.push([`h${n}\u0001${seq.slice(seq.length - n).join('\u0001')}`, 1]);
    out.push([`pos\u0001${Math.min(done.length, 12)}`, 0.5]);
    // Every tool already run, not only the last three: a flow's earlier choices (the AOI loader, the
    // speckle filter) tell which variant of a later step the same team runs.
    // (Measured on the foreign checks' long flows: next hit@1 +0.002 to +0.007, hit@3 up to +0.003.)
    for (const id of new Set(done.slice(0, -3))) out.push([`b\u0001${id}`, 0.5]);
    return out;
  }

  private features(terms: string[], done: string[]): Sparse {
    const out: Sparse = [];
    for (const [k, v] of this.keys(terms, done)) {
      const j = this.index.get(k);
      if (j !== undefined) out.push([j, v]);
    }
    return out;
  }

  private logits(x: Sparse, z: Float64Array): void {
    const K = this.tools.length;
    z.set(this.bias);
    for (const [j, v] of x) {
      const row = j * K;
      for (let k = 0; k < K; k++) z[k] += this.weights[row + k] * v;
    }
  }

  /** P(next = tool | task terms, steps so far) for every tool ever run. */
  predict(terms: string[], done: string[]): Map<string, number> {
    const z = new Float64Array(this.tools.length);
    this.logits(this.features(terms, done), z);
    softmax(z);
    return new Map(this.tools.map((t, k) => [t, z[k]]));
  }
}

function softmax(z: Float64Array): void {
  let m = -Infinity;
  for (let k = 0; k < z.length; k++) if (z[k] > m) m = z[k];
  let s = 0;
  for (let k = 0; k < z.length; k++) { z[k] = Math.exp(z[k] - m); s += z[k]; }
  for (let k = 0; k < z.length; k++) z[k] /= s;
}
