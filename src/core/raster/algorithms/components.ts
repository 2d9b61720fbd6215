/** Connected components of a byte mask (value 1), labelled 1..n by descending size. */
export interface Components {
  labels: Int32Array;
  /** sizes[label - 1] = pixel count. */
  sizes: number[];
  /** Pixel-space bounding boxes and centroids, same order as sizes. */
  centroids: [number, number][];
  /** Components dropped by the min_pixels filter. */
  removed: number;
}

export function connectedComponents(
  mask: Uint8Array, w: number, h: number, opts: { connectivity?: 4 | 8; minPixels?: number; signal?: AbortSignal } = {},
): Components {
  const conn = opts.connectivity ?? 8;
  const minPixels = opts.minPixels ?? 1;
  const raw = new Int32Array(w * h);
  const stack = new Int32Array(w * h);
  const sizes: number[] = [], sx: number[] = [], sy: number[] = [];
  let next = 0;
  for (let start = 0; start < w * h; start++) {
    if (mask[start] !== 1 || raw[start] !== 0) continue;
    if ((next & 255) === 0 && opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
    const label = ++next;
    let top = 0, size = 0, sumX = 0, sumY = 0;
    stack[top++] = start;
    raw[start] = label;
    while (top > 0) {
      const p = stack[--top];
      const x = p % w, y = (p - x) / w;
      size++; sumX += x; sumY += y;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          if (dx === 0 && dy === 0) continue;
          if (conn === 4 && dx !== 0 && dy !== 0) continue;
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          const q = yy * w + xx;
          if (mask[q] === 1 && raw[q] === 0) { raw[q] = label; stack[top++] = q; }
        }
      }
    }
    sizes.push(size); sx.push(sumX / size); sy.push(sumY / size);
  }
  // Relabel by descending size (ties by first appearance) and drop small ones.
  const order = sizes.map((_, i) => i).filter((i) => sizes[i] >= minPixels).sort((a, b) => sizes[b] - sizes[a] || a - b);
  const map = new Int32Array(next + 1);
  order.forEach((old, i) => { map[old + 1] = i + 1; });
  for (let i = 0; i < raw.length; i++) if (raw[i] !== 0) raw[i] = map[raw[i]];
  return {
    labels: raw,
    sizes: order.map((i) => sizes[i]),
    centroids: order.map((i) => [sx[i], sy[i]]),
    removed: next - order.length,
  };
}

/**
 * Streaming 8-connected labelling in strips of rows (two passes over the mask, memory O(width + labels)).
 * Pass 1 (collect) gives each pixel a provisional label from its already-seen neighbours (W, NW, N, NE;
 * the previous strip's last row is carried over), unions touching labels and counts size and centroid
 * sums per label; finish() merges them per patch and orders patches as connectedComponents does.
 * Pass 2 repeats the same scan, which hands out the same provisional labels, and maps them to final ones.
 */
export class StripLabeller {
  private parent = new Int32Array(1024);
  private size = new Float64Array(1024);
  private sumX = new Float64Array(1024);
  private sumY = new Float64Array(1024);
  private prev: Int32Array;
  private cur: Int32Array;
  private next = 0;
  private finalOf: Int32Array | null = null;

  constructor(readonly w: number) {
    this.prev = new Int32Array(w);
    this.cur = new Int32Array(w);
  }

  private find(a: number): number {
    const p = this.parent;
    let r = a;
    while (p[r] !== r) r = p[r];
    while (p[a] !== r) { const n = p[a]; p[a] = r; a = n; }
    return r;
  }

  private union(a: number, b: number): void {
    const ra = this.find(a), rb = this.find(b);
    if (ra === rb) return;
    // The smaller label is the older one: the root stays the patch's first pixel in raster order.
    if (ra < rb) this.parent[rb] = ra; else this.parent[ra] = rb;
  }

  private grow(): void {
    const n = this.parent.length * 2;
    const g = <T extends Int32Array | Float64Array>(a: T): T => { const b = new (a.constructor as any)(n); b.set(a); return b; };
    this.parent = g(this.parent); this.size = g(this.size); this.sumX = g(this.sumX); this.sumY = g(this.sumY);
  }

  /** Labels strip rows y0..y0+rows-1 of a byte mask (1 = set). Pass 1: collect = true. Pass 2: `out` gets final labels. */
  scan(mask: Uint8Array, y0: number, rows: number, collect: boolean, out?: Int32Array, signal?: AbortSignal): void {
    const w = this.w;
    const fin = this.finalOf;
    if (!collect && !fin) throw new Error('StripLabeller: call finish() before the second pass');
    for (let r = 0; r < rows; r++) {
      if ((r & 63) === 0 && signal?.aborted) throw signal.reason ?? new Error('aborted');
      const y = y0 + r;
      const prev = this.prev, cur = this.cur;
      for (let x = 0; x < w; x++) {
        const i = r * w + x;
        if (mask[i] !== 1) { cur[x] = 0; if (out) out[i] = 0; continue; }
        const west = x > 0 ? cur[x - 1] : 0;
        const nw = x > 0 ? prev[x - 1] : 0, n = prev[x], ne = x + 1 < w ? prev[x + 1] : 0;
        let l = west || nw || n || ne;
        if (l === 0) {
          l = ++this.next;
          if (collect) {
            if (l >= this.parent.length) this.grow();
            this.parent[l] = l;
          }
        } else if (collect) {
          if (nw && nw !== l) this.union(l, nw);
          if (n && n !== l) this.union(l, n);
          if (ne && ne !== l) this.union(l, ne);
        }
        cur[x] = l;
        if (collect) { this.size[l]++; this.sumX[l] += x; this.sumY[l] += y; }
        if (out) out[i] = fin![l];
      }
      this.prev = cur; this.cur = prev;
    }
  }

  /** Ends pass 1: patches by descending size (ties by first appearance), dropping those under minPixels; rewinds for pass 2. */
  finish(minPixels = 1): Omit<Components, 'labels'> {
    const n = this.next;
    const rootSize = new Float64Array(n + 1), rootX = new Float64Array(n + 1), rootY = new Float64Array(n + 1);
    const roots: number[] = [];
    for (let l = 1; l <= n; l++) {
      const r = this.find(l);
      if (r === l) roots.push(l);
      rootSize[r] += this.size[l]; rootX[r] += this.sumX[l]; rootY[r] += this.sumY[l];
    }
    const order = roots.filter((r) => rootSize[r] >= minPixels).sort((a, b) => rootSize[b] - rootSize[a] || a - b);
    const finalOfRoot = new Int32Array(n + 1);
    order.forEach((r, i) => { finalOfRoot[r] = i + 1; });
    const fin = new Int32Array(n + 1);
    for (let l = 1; l <= n; l++) fin[l] = finalOfRoot[this.find(l)];
    this.finalOf = fin;
    // Pass 2 starts afresh: same scan, same provisional labels.
    this.next = 0; this.prev.fill(0); this.cur.fill(0);
    this.size = new Float64Array(0); this.sumX = new Float64Array(0); this.sumY = new Float64Array(0);
    return {
      sizes: order.map((r) => rootSize[r]),
      centroids: order.map((r) => [rootX[r] / rootSize[r], rootY[r] / rootSize[r]] as [number, number]),
      removed: roots.length - order.length,
    };
  }
}
