/** Smooth seeded value noise for the synthetic sample landscape. */
import { mulberry32 } from '../algorithms/prng';

/** One octave: random values on a lattice of spacing `cell` pixels, smoothstep-interpolated. */
export class ValueNoise {
  private lattice: Float32Array;
  private cols: number;
  constructor(w: number, h: number, readonly cell: number, seed: number) {
    this.cols = Math.ceil(w / cell) + 2;
    const rows = Math.ceil(h / cell) + 2;
    const rand = mulberry32(seed);
    this.lattice = new Float32Array(this.cols * rows);
    for (let i = 0; i < this.lattice.length; i++) this.lattice[i] = rand() * 2 - 1;
  }
  at(x: number, y: number): number {
    const fx = x / this.cell, fy = y / this.cell;
    const ix = Math.floor(fx), iy = Math.floor(fy);
    let tx = fx - ix, ty = fy - iy;
    tx = tx * tx * (3 - 2 * tx); ty = ty * ty * (3 - 2 * ty);
    const c = this.cols, L = this.lattice, o = iy * c + ix;
    const a = L[o] + (L[o + 1] - L[o]) * tx;
    const b = L[o + c] + (L[o + c + 1] - L[o + c]) * tx;
    return a + (b - a) * ty;
  }
}

/** Fractal noise (sum of octaves, each half the cell size and amplitude), roughly in -1..1. */
export class FractalNoise {
  private octaves: ValueNoise[];
  constructor(w: number, h: number, cell: number, octaves: number, seed: number) {
    this.octaves = [];
    for (let o = 0; o < octaves; o++) this.octaves.push(new ValueNoise(w, h, Math.max(2, cell / 2 ** o), seed * 7919 + o * 104729));
  }
  at(x: number, y: number): number {
    let s = 0, amp = 1, norm = 0;
    for (const oct of this.octaves) { s += amp * oct.at(x, y); norm += amp; amp /= 2; }
    return s / norm * 1.6;
  }
  /** Whole grid (w×h) as a Float32Array. */
  grid(w: number, h: number): Float32Array {
    const out = new Float32Array(w * h);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) out[y * w + x] = this.at(x, y);
    return out;
  }
}
