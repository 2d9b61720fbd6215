/** A linear projection to fewer dimensions (PCA fitted on the catalog) for the first stage of a two-stage index. */
import { createHash } from 'crypto';

/** When and how a catalog gets a PCA projection; part of the index fingerprint. */
export interface ProjectionOptions {
  /** Catalogs with fewer vectors keep the full dimension (a projection cannot pay off there). */
  minVectors: number;
  /** Smallest share of the catalog's energy (sum of squared coordinates) the kept components must hold. */
  energy: number;
  /** Never project to more than this many dimensions; if `energy` needs more, keep the full dimension. */
  maxDim: number;
  /** The projected dimension is a multiple of this. */
  step: number;
  /** At most this many vectors (an even stride over the catalog) are used for the fit. */
  maxFitVectors: number;
}

// energy 0.9 + 80 re-ranked candidates: bench/README.md (a 10k low-rank catalog lands at 96 dims, a high-rank one at 352).
export const DEFAULT_PROJECTION: ProjectionOptions = { minVectors: 2000, energy: 0.9, maxDim: 384, step: 32, maxFitVectors: 8000 };

export class Projection {
  /**
   * @param basis inDim x outDim, row-major: row j holds the weights of input coordinate j, so a
   *   sparse input costs (non-zeros x outDim).
   * @param energy share of the fitted vectors' energy the projection keeps.
   */
  constructor(readonly inDim: number, readonly outDim: number, readonly basis: Float32Array, readonly energy: number) {
    if (basis.length !== inDim * outDim) throw new Error(`projection basis has ${basis.length} values, expected ${inDim} x ${outDim}`);
  }

  /** Projects `v` (zeros skipped) into `out` (length outDim, overwritten). */
  projectInto(v: Float32Array, out: Float64Array): Float64Array {
    const D = this.outDim;
    const B = this.basis;
    out.fill(0);
    for (let j = 0; j < this.inDim; j++) {
      const x = v[j];
      if (x === 0) continue;
      const off = j * D;
      for (let c = 0; c < D; c++) out[c] += x * B[off + c];
    }
    return out;
  }

  project(v: Float32Array): Float32Array {
    return Float32Array.from(this.projectInto(v, new Float64Array(this.outDim)));
  }

  /** Share of `v`'s energy outside the projection (0 = fully represented). */
  residual(v: Float32Array): number {
    const p = this.projectInto(v, new Float64Array(this.outDim));
    let pe = 0;
    let e = 0;
    for (let c = 0; c < p.length; c++) pe += p[c] * p[c];
    for (let j = 0; j < v.length; j++) e += v[j] * v[j];
    return e > 0 ? Math.max(0, 1 - pe / e) : 0;
  }

  /** Raw little-endian float32 basis, the on-disk form. */
  toBuffer(): Buffer {
    return Buffer.from(this.basis.buffer, this.basis.byteOffset, this.basis.byteLength);
  }

  static fromBuffer(buf: Buffer, inDim: number, outDim: number, energy: number): Projection {
    if (buf.length !== inDim * outDim * 4) throw new Error(`projection file has ${buf.length} bytes, expected ${inDim * outDim * 4} (${inDim} x ${outDim} float32)`);
    const basis = new Float32Array(inDim * outDim);
    new Uint8Array(basis.buffer).set(buf);
    if (!basis.every(Number.isFinite)) throw new Error('projection file holds non-finite values');
    return new Projection(inDim, outDim, basis, energy);
  }

  get sha256(): string {
    return createHash('sha256').update(this.toBuffer()).digest('hex');
  }
}

/**
 * Fits an uncentred PCA (the inner products we rank by are uncentred) on `vectors` and keeps the
 * fewest components (a multiple of `step`) holding `energy` of it. Undefined when the catalog is
 * too small or needs more than `maxDim` components. Deterministic for the same input.
 */
export function fitPca(vectors: Float32Array[], dim: number, opts: ProjectionOptions = DEFAULT_PROJECTION): Projection | undefined {
  if (vectors.length < opts.minVectors || opts.maxDim >= dim || opts.maxDim < opts.step) return undefined;
  const stride = Math.max(1, vectors.length / opts.maxFitVectors);
  const G = new Float64Array(dim * dim);
  const idx = new Int32Array(dim);
  const val = new Float64Array(dim);
  for (let s = 0; s < vectors.length; s += stride) {
    const v = vectors[Math.floor(s)];
    let nz = 0;
    for (let j = 0; j < dim; j++) if (v[j] !== 0) { idx[nz] = j; val[nz++] = v[j]; }
    // Upper triangle only; sparse rows (hashed text features) make this cheap.
    for (let a = 0; a < nz; a++) {
      const row = idx[a] * dim;
      const x = val[a];
      for (let b = a; b < nz; b++) G[row + idx[b]] += x * val[b];
    }
  }
  let trace = 0;
  for (let i = 0; i < dim; i++) {
    trace += G[i * dim + i];
    for (let j = i + 1; j < dim; j++) G[j * dim + i] = G[i * dim + j];
  }
  if (trace <= 0) return undefined;
  const { values, rows } = topEigen(G, dim, Math.min(dim, opts.maxDim + opts.step));
  // values descend
  let kept = 0;
  let D = 0;
  for (let c = 0; c < values.length && D === 0; c++) {
    kept += Math.max(0, values[c]);
    if ((c + 1) % opts.step === 0 && kept / trace >= opts.energy) D = c + 1;
  }
  if (D === 0 || D > opts.maxDim) return undefined;
  const basis = new Float32Array(dim * D);
  let energy = 0;
  for (let c = 0; c < D; c++) {
    energy += Math.max(0, values[c]);
    const u = rows[c];
    // Fix the sign (eigenvectors are defined up to sign) so fits are reproducible.
    let big = 0;
    for (let j = 0; j < dim; j++) if (Math.abs(u[j]) > Math.abs(big)) big = u[j];
    const sgn = big < 0 ? -1 : 1;
    for (let j = 0; j < dim; j++) basis[j * D + c] = sgn * u[j];
  }
  return new Projection(dim, D, basis, energy / trace);
}

/**
 * The `l` largest eigenpairs (values descending, vectors as rows) of the symmetric n x n matrix G.
 * For l well below n: a seeded randomized range finder with power iterations, then Rayleigh-Ritz
 * on the l x l projected matrix (Halko, Martinsson & Tropp 2011); otherwise a full decomposition.
 */
const POWER_ITERATIONS = 2;

function topEigen(G: Float64Array, n: number, l: number): { values: Float64Array; rows: Float64Array[] } {
  if (2 * l >= n) {
    const { values, vectors } = symmetricEigen(G.slice(), n);
    const out = new Float64Array(l);
    const rows: Float64Array[] = [];
    for (let c = 0; c < l; c++) {
      out[c] = values[n - 1 - c];
      rows.push(vectors.slice((n - 1 - c) * n, (n - c) * n));
    }
    return { values: out, rows };
  }
  let seed = 0x9e3779b9;
  const rand = () => {
    seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return seed / 4294967296 - 0.5;
  };
  let Q: Float64Array[] = Array.from({ length: l }, () => Float64Array.from({ length: n }, rand));
  const mul = (X: Float64Array[]): Float64Array[] =>
    X.map((x) => {
      const y = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const row = i * n;
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        let j = 0;
        for (; j + 3 < n; j += 4) {
          s0 += G[row + j] * x[j];
          s1 += G[row + j + 1] * x[j + 1];
          s2 += G[row + j + 2] * x[j + 2];
          s3 += G[row + j + 3] * x[j + 3];
        }
        for (; j < n; j++) s0 += G[row + j] * x[j];
        y[i] = s0 + s1 + s2 + s3;
      }
      return y;
    });
  const orthonormalise = (X: Float64Array[], passes: number): Float64Array[] => {
    // Modified Gram-Schmidt; a second pass restores orthogonality lost to rounding.
    for (let pass = 0; pass < passes; pass++) {
      for (let a = 0; a < X.length; a++) {
        const xa = X[a];
        for (let b = 0; b < a; b++) {
          const xb = X[b];
          let dot = 0;
          for (let j = 0; j < n; j++) dot += xa[j] * xb[j];
          for (let j = 0; j < n; j++) xa[j] -= dot * xb[j];
        }
        let norm = 0;
        for (let j = 0; j < n; j++) norm += xa[j] * xa[j];
        norm = Math.sqrt(norm);
        if (norm > 1e-300) for (let j = 0; j < n; j++) xa[j] /= norm;
        else xa.fill(0);
      }
    }
    return X;
  };
  for (let it = 0; it < POWER_ITERATIONS; it++) Q = orthonormalise(mul(Q), it === POWER_ITERATIONS - 1 ? 2 : 1);
  const Z = mul(Q);
  const B = new Float64Array(l * l);
  for (let a = 0; a < l; a++) {
    for (let b = a; b < l; b++) {
      let s = 0;
      const qa = Q[a];
      const zb = Z[b];
      for (let j = 0; j < n; j++) s += qa[j] * zb[j];
      B[a * l + b] = s;
    }
  }
  for (let a = 0; a < l; a++) for (let b = a + 1; b < l; b++) B[b * l + a] = B[a * l + b];
  const { values, vectors } = symmetricEigen(B, l);
  const out = new Float64Array(l);
  const rows: Float64Array[] = [];
  for (let c = 0; c < l; c++) {
    const src = l - 1 - c;
    out[c] = values[src];
    const u = new Float64Array(n);
    for (let a = 0; a < l; a++) {
      const w = vectors[src * l + a];
      const qa = Q[a];
      for (let j = 0; j < n; j++) u[j] += w * qa[j];
    }
    rows.push(u);
  }
  return { values: out, rows };
}

/**
 * Eigen-decomposition of a symmetric n x n matrix (row-major, destroyed): Householder
 * tridiagonalisation then implicit QL (the JAMA / EISPACK tred2 + tql2 pair). Eigenvalues ascend;
 * eigenvector c is row c of `vectors` (n x n).
 */
export function symmetricEigen(A: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
  const V = A;
  const d = new Float64Array(n);
  const e = new Float64Array(n);
  // tred2
  for (let j = 0; j < n; j++) d[j] = V[(n - 1) * n + j];
  for (let i = n - 1; i > 0; i--) {
    let scale = 0;
    let h = 0;
    for (let k = 0; k < i; k++) scale += Math.abs(d[k]);
    if (scale === 0) {
      e[i] = d[i - 1];
      for (let j = 0; j < i; j++) {
        d[j] = V[(i - 1) * n + j];
        V[i * n + j] = 0;
        V[j * n + i] = 0;
      }
    } else {
      for (let k = 0; k < i; k++) {
        d[k] /= scale;
        h += d[k] * d[k];
      }
      let f = d[i - 1];
      let g = Math.sqrt(h);
      if (f > 0) g = -g;
      e[i] = scale * g;
      h -= f * g;
      d[i - 1] = f - g;
      for (let j = 0; j < i; j++) e[j] = 0;
      for (let j = 0; j < i; j++) {
        f = d[j];
        V[j * n + i] = f;
        g = e[j] + V[j * n + j] * f;
        for (let k = j + 1; k <= i - 1; k++) {
          g += V[k * n + j] * d[k];
          e[k] += V[k * n + j] * f;
        }
        e[j] = g;
      }
      f = 0;
      for (let j = 0; j < i; j++) {
        e[j] /= h;
        f += e[j] * d[j];
      }
      const hh = f / (h + h);
      for (let j = 0; j < i; j++) e[j] -= hh * d[j];
      for (let j = 0; j < i; j++) {
        f = d[j];
        g = e[j];
        for (let k = j; k <= i - 1; k++) V[k * n + j] -= f * e[k] + g * d[k];
        d[j] = V[(i - 1) * n + j];
        V[i * n + j] = 0;
      }
    }
    d[i] = h;
  }
  for (let i = 0; i < n - 1; i++) {
    V[(n - 1) * n + i] = V[i * n + i];
    V[i * n + i] = 1;
    const h = d[i + 1];
    if (h !== 0) {
      for (let k = 0; k <= i; k++) d[k] = V[k * n + i + 1] / h;
      for (let j = 0; j <= i; j++) {
        let g = 0;
        for (let k = 0; k <= i; k++) g += V[k * n + i + 1] * V[k * n + j];
        for (let k = 0; k <= i; k++) V[k * n + j] -= g * d[k];
      }
    }
    for (let k = 0; k <= i; k++) V[k * n + i + 1] = 0;
  }
  for (let j = 0; j < n; j++) {
    d[j] = V[(n - 1) * n + j];
    V[(n - 1) * n + j] = 0;
  }
  V[(n - 1) * n + n - 1] = 1;
  e[0] = 0;
  // From here eigenvectors are rows: the QL rotations then touch contiguous memory.
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const t = V[i * n + j];
      V[i * n + j] = V[j * n + i];
      V[j * n + i] = t;
    }
  }
  // tql2
  for (let i = 1; i < n; i++) e[i - 1] = e[i];
  e[n - 1] = 0;
  let f = 0;
  let tst1 = 0;
  const eps = 2 ** -52;
  for (let l = 0; l < n; l++) {
    tst1 = Math.max(tst1, Math.abs(d[l]) + Math.abs(e[l]));
    let m = l;
    while (m < n) {
      if (Math.abs(e[m]) <= eps * tst1) break;
      m++;
    }
    if (m > l) {
      do {
        let g = d[l];
        let p = (d[l + 1] - g) / (2 * e[l]);
        let r = Math.hypot(p, 1);
        if (p < 0) r = -r;
        d[l] = e[l] / (p + r);
        d[l + 1] = e[l] * (p + r);
        const dl1 = d[l + 1];
        let h = g - d[l];
        for (let i = l + 2; i < n; i++) d[i] -= h;
        f += h;
        p = d[m];
        let c = 1;
        let c2 = c;
        let c3 = c;
        const el1 = e[l + 1];
        let s = 0;
        let s2 = 0;
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i];
          h = c * p;
          r = Math.hypot(p, e[i]);
          e[i + 1] = s * r;
          s = e[i] / r;
          c = p / r;
          p = c * d[i] - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]);
          const r0 = i * n;
          const r1 = r0 + n;
          for (let k = 0; k < n; k++) {
            h = V[r1 + k];
            V[r1 + k] = s * V[r0 + k] + c * h;
            V[r0 + k] = c * V[r0 + k] - s * h;
          }
        }
        p = (-s * s2 * c3 * el1 * e[l]) / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (Math.abs(e[l]) > eps * tst1);
    }
    d[l] += f;
    e[l] = 0;
  }
  // sort ascending (values and rows)
  for (let i = 0; i < n - 1; i++) {
    let k = i;
    let p = d[i];
    for (let j = i + 1; j < n; j++) if (d[j] < p) { k = j; p = d[j]; }
    if (k !== i) {
      d[k] = d[i];
      d[i] = p;
      const row = V.slice(i * n, i * n + n);
      V.copyWithin(i * n, k * n, k * n + n);
      V.set(row, k * n);
    }
  }
  return { values: d, vectors: V };
}
