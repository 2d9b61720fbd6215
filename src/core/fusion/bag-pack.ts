/**
 * A fit's bootstrap job as a few flat arrays, to hand it to another thread: the queries' parts are
 * thousands of small arrays (2467 next steps × 25 parts for 1000 long flows), which a structured
 * clone copies one by one; packed, they are moved at once.
 */
import type { BagJob, FitKind, FitQuery } from './fit';

/** What the thread runs on the job: its bootstrap fits, or the surrogate and the ascent from it. */
export type FitTask = 'bags' | 'surrogate';

export interface PackedJob {
  task: FitTask;
  kind: FitKind;
  parts: number;
  start: number[];
  free: number[];
  rounds?: number;
  samples: Int32Array[];
  /** Per query: candidates, absent relevant items, and where its values, orders and relevant items start. */
  n: Int32Array;
  absent: Int32Array;
  colAt: Int32Array;
  orderAt: Int32Array;
  relAt: Int32Array;
  /** Every query's parts, part after part, each `n` values long. */
  cols: Float32Array;
  order: Int32Array;
  relevant: Int32Array;
}

export function packJob(job: BagJob, task: FitTask = 'bags'): { packed: PackedJob; transfer: ArrayBuffer[] } {
  const { qs } = job;
  const parts = qs[0]?.cols.length ?? 0;
  const n = Int32Array.from(qs, (q) => q.n);
  const absent = Int32Array.from(qs, (q) => q.absent);
  const colAt = new Int32Array(qs.length + 1);
  const orderAt = new Int32Array(qs.length + 1);
  const relAt = new Int32Array(qs.length + 1);
  qs.forEach((q, i) => { colAt[i + 1] = colAt[i] + parts * q.n; orderAt[i + 1] = orderAt[i] + q.n; relAt[i + 1] = relAt[i] + q.relevant.length; });
  const cols = new Float32Array(colAt[qs.length]);
  const order = new Int32Array(orderAt[qs.length]);
  const relevant = new Int32Array(relAt[qs.length]);
  qs.forEach((q, i) => {
    q.cols.forEach((c, f) => cols.set(c.subarray(0, q.n), colAt[i] + f * q.n));
    order.set(q.order.subarray(0, q.n), orderAt[i]);
    relevant.set(q.relevant, relAt[i]);
  });
  const samples = job.samples.map((s) => Int32Array.from(s));
  const packed: PackedJob = { task, kind: job.kind, parts, start: job.start, free: job.free, rounds: job.rounds, samples, n, absent, colAt, orderAt, relAt, cols, order, relevant };
  const transfer = [n, absent, colAt, orderAt, relAt, cols, order, relevant, ...samples].map((a) => a.buffer as ArrayBuffer);
  return { packed, transfer };
}

export function unpackJob(p: PackedJob): BagJob {
  const qs: FitQuery[] = Array.from(p.n, (n, i) => ({
    cols: Array.from({ length: p.parts }, (_, f) => p.cols.subarray(p.colAt[i] + f * n, p.colAt[i] + (f + 1) * n)),
    n,
    relevant: Array.from(p.relevant.subarray(p.relAt[i], p.relAt[i + 1])),
    absent: p.absent[i],
    order: p.order.subarray(p.orderAt[i], p.orderAt[i + 1]),
  }));
  return { kind: p.kind, qs, start: p.start, free: p.free, rounds: p.rounds, samples: p.samples };
}
