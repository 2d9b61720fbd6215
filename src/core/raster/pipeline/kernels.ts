/** Serializable per-pixel kernels: the same code runs in worker threads and inline, so outputs are identical. */
import { computeIndex, IndexId } from '../spectral';
import { Expr, evalExpr } from '../expr';

export type ThresholdOp = 'gt' | 'ge' | 'lt' | 'le' | 'eq' | 'ne';

export type KernelSpec =
  | { type: 'index'; id: IndexId; L?: number }
  | { type: 'expr'; ast: Expr; bands: number[] }
  | { type: 'threshold'; op: ThresholdOp; value: number }
  | { type: 'scl'; classes: number[] }
  | { type: 'qabits'; bits: number[] }
  | { type: 'apply_mask'; invert: boolean }
  | { type: 'copy' };

/** Applies `k` to the input windows (float32, NaN = nodata); returns one array per output band. */
export function applyKernel(k: KernelSpec, inputs: Float32Array[]): Float32Array[] {
  const n = inputs[0].length;
  switch (k.type) {
    case 'index': return [computeIndex(k.id, inputs, { L: k.L })];
    case 'expr': {
      const m = new Map<number, Float32Array>();
      k.bands.forEach((b, i) => m.set(b, inputs[i]));
      const r = evalExpr(k.ast, m, n);
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) { const v = r[i]; out[i] = Number.isFinite(v) ? v : NaN; }
      return [out];
    }
    case 'threshold': {
      const a = inputs[0], v = k.value, out = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        const x = a[i];
        if (x !== x) { out[i] = NaN; continue; }
        let t: boolean;
        switch (k.op) {
          case 'gt': t = x > v; break; case 'ge': t = x >= v; break; case 'lt': t = x < v; break;
          case 'le': t = x <= v; break; case 'eq': t = x === v; break; default: t = x !== v;
        }
        out[i] = t ? 1 : 0;
      }
      return [out];
    }
    case 'scl': {
      const a = inputs[0], out = new Float32Array(n);
      const set = new Uint8Array(256); for (const c of k.classes) set[c] = 1;
      for (let i = 0; i < n; i++) { const x = a[i]; out[i] = x !== x ? NaN : x >= 0 && x < 256 && set[x | 0] ? 1 : 0; }
      return [out];
    }
    case 'qabits': {
      const a = inputs[0], out = new Float32Array(n);
      let mask = 0; for (const b of k.bits) mask |= 1 << b;
      for (let i = 0; i < n; i++) {
        const x = a[i];
        // Bit 0 is fill: no data.
        out[i] = x !== x || (x & 1) ? NaN : (x & mask) ? 1 : 0;
      }
      return [out];
    }
    case 'apply_mask': {
      const mask = inputs[inputs.length - 1];
      return inputs.slice(0, -1).map((a) => {
        const out = new Float32Array(n);
        for (let i = 0; i < n; i++) {
          const m = mask[i];
          const keep = m === m && (k.invert ? m === 0 : m !== 0);
          out[i] = keep ? a[i] : NaN;
        }
        return out;
      });
    }
    case 'copy': return inputs.map((a) => a.slice());
  }
}
