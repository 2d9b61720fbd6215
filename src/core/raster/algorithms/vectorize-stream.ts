/**
 * Mask → polygons in one pass over the rows: pixel-edge outlines are traced along each horizontal grid
 * line as the rows arrive, so memory holds two mask rows, the open boundary chains crossing the current
 * line (at most width + 1 ends) and the finished rings, never the whole band.
 *
 * Same result as tracing the whole band: 4-connected regions, region on the right of every traced edge
 * (screen clockwise exteriors), right turns where two pixels touch only at a corner (keeps diagonal
 * neighbours apart), collinear points dropped, and a ring that passes a corner vertex twice split there
 * into simple rings touching at a point (as gdal_polygonize and OGC validity want).
 */
import type { GeoTransform, Ring } from './vectorize';

type Buf = Int32Array | Float64Array;
type BufCtor = Int32ArrayConstructor | Float64ArrayConstructor;

/** Points of an open chain in one direction: a plain array while short (cheap to make), typed once long (half the bytes). */
class Pts {
  a: number[] | Buf = [];
  n = 0;
  constructor(private readonly C: BufCtor) {}
  push(v: number): void {
    const a = this.a;
    if (Array.isArray(a)) {
      a.push(v);
      if (++this.n === 256) { const b = new this.C(1024); b.set(a); this.a = b; }
      return;
    }
    if (this.n === a.length) { const b = new this.C(this.n * 2); b.set(a); this.a = b; }
    this.a[this.n++] = v;
  }
}

/** An end of an open chain at the sweep line; `head` = the walk leaves the chain there. */
interface End { chain: Chain; head: boolean }

/**
 * Corner vertices of a boundary piece in walk order: front (reversed) then back. Vertex ids are
 * y·(w+1)+x; vertices where two pixels touch only at a corner are stored as −(id+1) so rings that pass
 * them twice can be split.
 */
interface Chain { front: Pts | null; back: Pts; label: number; diag: boolean; h: End; t: End }

function chainLength(c: Chain): number { return (c.front ? c.front.n : 0) + c.back.n; }

/** Calls f on the chain's points in walk order. */
function eachPoint(c: Chain, f: (v: number) => void): void {
  if (c.front) for (let i = c.front.n - 1; i >= 0; i--) f(c.front.a[i]);
  for (let i = 0; i < c.back.n; i++) f(c.back.a[i]);
}

const CHUNK = 1 << 20;

/** Finished ring vertices, appended in chunks (no copy of everything when it grows). */
class VertexPool {
  private chunks: Buf[] = [];
  size = 0;
  constructor(private C: BufCtor) {}
  push(v: number): void {
    const k = this.size % CHUNK;
    if (k === 0) this.chunks.push(new this.C(CHUNK));
    this.chunks[this.chunks.length - 1][k] = v;
    this.size++;
  }
  get(i: number): number { return this.chunks[Math.floor(i / CHUNK)][i % CHUNK]; }
}

function grow<T extends Int32Array | Float64Array | Uint8Array>(a: T, need: number): T {
  if (need < a.length) return a;
  const b = new (a.constructor as any)(Math.max(need + 1, a.length * 2)) as T;
  b.set(a);
  return b;
}

/** Polygons in connectedComponents(4) order (descending pixel count, ties by first pixel in raster order). */
export interface PolygonSet {
  readonly count: number;
  /** Pixels per polygon. */
  pixels(k: number): number;
  /** Sum of the per-row pixel areas given to the vectorizer (NaN when none were given). */
  rowArea(k: number): number;
  /** Rings of polygon k: 1 exterior + holes. */
  ringCount(k: number): number;
  /** Ring j of polygon k as pixel-corner coordinates [x0, y0, x1, y1, ...] in output order (not closed). */
  ringPixels(k: number, j: number): Float64Array;
  /** Ring j of polygon k in map coordinates, oriented (exterior counter-clockwise, holes clockwise) and closed. */
  ring(k: number, j: number, gt: GeoTransform): Ring;
  /** Whether output reverses the traced order (rings are traced clockwise on screen) to orient it for this geotransform. */
  reversed(gt: GeoTransform, hole: boolean): boolean;
}

/**
 * Feed rows top to bottom with push(); finish() after the last row. Optional per-row pixel areas
 * (geographic grids) are summed per polygon as the rows pass.
 */
export class StripVectorizer {
  private readonly W1: number;
  private readonly C: BufCtor;
  private y = 0;
  private above: Uint8Array;
  private cur: Uint8Array;
  private bufA: Uint8Array;
  private bufB: Uint8Array;
  private labAbove: Int32Array;
  private labCur: Int32Array;
  private down: (End | null)[];
  private nextDown: (End | null)[];
  private open = 0;
  // Transitions of the row above and of the current row (see labelRow).
  private tAbove: Int32Array;
  private tCur: Int32Array;
  private ntAbove = 0;
  private ntCur = 0;
  // Union-find over provisional labels (label 0 unused); the smaller label stays root = first pixel.
  private parent = new Int32Array(1024);
  private npix = new Float64Array(1024);
  private areaSum: Float64Array | null;
  private labels = 0;
  // Finished rings: start in the pool, length, provisional label, hole flag.
  private pool: VertexPool;
  private ringStart = new Float64Array(256);
  private ringLen = new Int32Array(256);
  private ringLabel = new Int32Array(256);
  private ringHole = new Uint8Array(256);
  private rings = 0;

  constructor(readonly w: number, readonly h: number, private readonly rowAreas?: Float64Array) {
    if (!(Number.isInteger(w) && w > 0 && Number.isInteger(h) && h > 0)) throw new Error(`StripVectorizer: bad size ${w}x${h}`);
    this.W1 = w + 1;
    this.C = this.W1 * (h + 1) < 2 ** 31 - 2 ? Int32Array : Float64Array;
    this.pool = new VertexPool(this.C);
    this.bufA = new Uint8Array(w);
    this.bufB = new Uint8Array(w);
    this.above = this.bufB;
    this.cur = this.bufA;
    this.labAbove = new Int32Array(w);
    this.labCur = new Int32Array(w);
    this.tAbove = new Int32Array(w + 1);
    this.tCur = new Int32Array(w + 1);
    this.down = new Array(w + 1).fill(null);
    this.nextDown = new Array(w + 1).fill(null);
    this.areaSum = rowAreas ? new Float64Array(1024) : null;
  }

  /**
   * Appends `rows` mask rows (w values each, 1 = set; anything else, e.g. 255 nodata, is unset). With
   * `binary` the mask is a Uint8Array holding only 0 and 1: its rows are used in place (no copy), and must
   * not change until the next push (or finish) is done with them.
   */
  push(mask: ArrayLike<number>, rows: number, signal?: AbortSignal, binary = false): void {
    if (this.y + rows > this.h) throw new Error(`StripVectorizer: ${this.y + rows} rows pushed into a raster of ${this.h}`);
    const w = this.w;
    const view = binary && mask instanceof Uint8Array;
    for (let r = 0; r < rows; r++) {
      if ((r & 63) === 0 && signal?.aborted) throw signal.reason ?? new Error('aborted');
      const o = r * w;
      this.above = this.cur;
      if (view) {
        this.cur = (mask as Uint8Array).subarray(o, o + w);
      } else {
        // Into whichever own row buffer is not the row above (that may be a view into the caller's mask).
        const cur = this.above === this.bufA ? this.bufB : this.bufA;
        for (let x = 0; x < w; x++) cur[x] = mask[o + x] === 1 ? 1 : 0;
        this.cur = cur;
      }
      this.labelRow();
      this.line();
      this.y++;
    }
  }

  /** Closes the bottom edge after the last row and returns the polygons. */
  finish(): PolygonSet {
    if (this.y !== this.h) throw new Error(`StripVectorizer: finish() after ${this.y} of ${this.h} rows`);
    this.above = this.cur;
    this.cur = new Uint8Array(this.w);
    this.ntCur = 0;
    this.line();
    if (this.open !== 0) throw new Error(`StripVectorizer: ${this.open} boundary chains left open`);
    return this.collect();
  }

  private find(a: number): number {
    const p = this.parent;
    while (p[a] !== a) { p[a] = p[p[a]]; a = p[a]; }
    return a;
  }

  private union(a: number, b: number): number {
    const ra = this.find(a), rb = this.find(b);
    if (ra === rb) return ra;
    if (ra < rb) { this.parent[rb] = ra; return ra; }
    this.parent[ra] = rb;
    return rb;
  }

  /**
   * 4-connected provisional labels for the current row, one per run of set pixels: the label of the first
   * run above it touches (unioned with the others it touches), or a new one. Also records the row's
   * transitions (x where the pixel left of x differs from the pixel at x), the only vertices of the next
   * line where vertical edges start or end.
   */
  private labelRow(): void {
    const { w, cur, labAbove, labCur, tCur, tAbove } = this;
    const na = this.ntAbove;
    const rowA = this.rowAreas ? this.rowAreas[this.y] : 0;
    let nt = 0, x = 0, ia = 0;
    // Runs found with indexOf (native scans; the row holds only 0 and 1). Labels are only ever read on set
    // pixels, so unset ones are not written.
    while (x < w) {
      const x0 = cur.indexOf(1, x);
      if (x0 < 0) break;
      let x1 = cur.indexOf(0, x0);
      if (x1 < 0) x1 = w;
      x = x1;
      tCur[nt++] = x0;
      tCur[nt++] = x1;
      // The runs of the row above that touch [x0, x1), from its transitions (start, end pairs), left to
      // right: the label at the first pixel of each inside the run (labels are uniform along a run above).
      while (ia < na && tAbove[ia + 1] <= x0) ia += 2;
      let l = 0;
      for (let k = ia; k < na && tAbove[k] < x1; k += 2) {
        const a = labAbove[tAbove[k] > x0 ? tAbove[k] : x0];
        if (l === 0) l = a;
        else if (a !== l) l = this.union(l, a);
      }
      if (l === 0) {
        l = ++this.labels;
        if (l >= this.parent.length) {
          this.parent = grow(this.parent, l); this.npix = grow(this.npix, l);
          if (this.areaSum) this.areaSum = grow(this.areaSum, l);
        }
        this.parent[l] = l;
      }
      labCur.fill(l, x0, x1);
      this.npix[l] += x1 - x0;
      if (this.areaSum) this.areaSum[l] += (x1 - x0) * rowA;
    }
    this.ntCur = nt;
    this.labAbove = labCur; this.labCur = labAbove;
  }

  private newChain(v: number, label: number, diag: boolean): Chain {
    const c = { front: null, back: new Pts(this.C), label, diag } as unknown as Chain;
    c.back.push(diag ? -v - 1 : v);
    c.h = { chain: c, head: true };
    c.t = { chain: c, head: false };
    this.open++;
    return c;
  }

  private add(e: End, v: number, diag: boolean): void {
    const c = e.chain, p = diag ? -v - 1 : v;
    if (diag) c.diag = true;
    if (e.head) c.back.push(p);
    else (c.front ??= new Pts(this.C)).push(p);
  }

  /** The walk arrives at vertex v through one end and leaves through the other: joins two chains or closes a ring. */
  private join(e1: End, e2: End, v: number, diag: boolean): void {
    const hd = e1.head ? e1 : e2, tl = e1.head ? e2 : e1;
    if (hd.head === tl.head) throw new Error('StripVectorizer: inconsistent edge directions');
    const a = hd.chain, b = tl.chain;
    this.add(hd, v, diag);
    if (a === b) { this.closeRing(a); return; }
    // a ++ b: copy the shorter one onto the other.
    const label = this.union(a.label, b.label), dg = a.diag || b.diag;
    if (chainLength(a) >= chainLength(b)) {
      eachPoint(b, (p) => a.back.push(p));
      a.h = b.h; a.h.chain = a;
      a.label = label; a.diag = dg;
    } else {
      const f = (b.front ??= new Pts(this.C));
      for (let i = a.back.n - 1; i >= 0; i--) f.push(a.back.a[i]);
      if (a.front) for (let i = 0; i < a.front.n; i++) f.push(a.front.a[i]);
      b.t = a.t; b.t.chain = b;
      b.label = label; b.diag = dg;
    }
    this.open--;
  }

  /**
   * Vertex line y (between pixel rows y−1 = `above` and y = `cur`): each vertex sees its four pixels
   * tl, tr, bl, br; edges up/down/left/right exist where the two pixels beside them differ. `carry`
   * is the chain end travelling right along the line.
   */
  private line(): void {
    const { w, above, cur, down, nextDown, tAbove, tCur } = this;
    const row = this.y * this.W1;
    const labCur = this.labAbove; // labelRow() swapped: labAbove now holds the current row
    const na = this.ntAbove, nc = this.ntCur;
    let carry: End | null = null;
    // Visit only the vertices with a vertical edge: transitions of the row above or of this row.
    let i = 0, j = 0;
    while (i < na || j < nc) {
      const ta = i < na ? tAbove[i] : w + 1, tc = j < nc ? tCur[j] : w + 1;
      const x = ta < tc ? ta : tc;
      if (ta === x) i++;
      if (tc === x) j++;
      const code = (x > 0 ? above[x - 1] | (cur[x - 1] << 2) : 0) | (x < w ? (above[x] << 1) | (cur[x] << 3) : 0);
      const v = row + x;
      switch (code) {
        case 5: case 10: nextDown[x] = down[x]; break; // straight down
        case 1: case 14: this.join(carry!, down[x]!, v, false); carry = null; break; // up + left
        case 2: case 13: this.add(down[x]!, v, false); carry = down[x]; break; // up + right
        case 4: case 11: this.add(carry!, v, false); nextDown[x] = carry; carry = null; break; // left + down
        case 8: { // right + down, region below-right: a new top-left corner
          const c = this.newChain(v, labCur[x], false);
          carry = c.h; nextDown[x] = c.t;
          break;
        }
        case 7: { // right + down, region above and left: top-left corner of a hole
          const c = this.newChain(v, labCur[x - 1], false);
          carry = c.t; nextDown[x] = c.h;
          break;
        }
        case 6: { // tr and bl touch at the corner: (up, right) and (left, down) pair up
          const e = carry!;
          this.add(e, v, true); nextDown[x] = e;
          this.add(down[x]!, v, true); carry = down[x];
          break;
        }
        case 9: { // tl and br touch at the corner: (up, left) join, (right, down) start anew
          this.join(carry!, down[x]!, v, true);
          const c = this.newChain(v, labCur[x], true);
          carry = c.h; nextDown[x] = c.t;
          break;
        }
        default: throw new Error(`StripVectorizer: vertex code ${code} at a transition`);
      }
    }
    // The old line's ends sit at the old transitions: clear them for reuse.
    for (let k = 0; k < na; k++) down[tAbove[k]] = null;
    this.down = nextDown; this.nextDown = down;
    this.tAbove = tCur; this.tCur = tAbove;
    this.ntAbove = nc;
  }

  private closeRing(c: Chain): void {
    this.open--;
    const n = chainLength(c);
    const seq = new this.C(n);
    let i = 0;
    eachPoint(c, (p) => { seq[i++] = p; });
    if (!c.diag) { this.storeRing(seq, 0, n, c.label); return; }
    // Split at vertices passed twice (only corner-touch vertices can be), like a stack of open loops.
    const stack = new this.C(n);
    let top = 0;
    const pos = new Map<number, number>();
    for (let k = 0; k < n; k++) {
      const p = seq[k];
      const at = p < 0 ? pos.get(p) : undefined;
      if (at === undefined) {
        if (p < 0) pos.set(p, top);
        stack[top++] = p;
        continue;
      }
      this.storeRing(stack, at, top - at, c.label);
      for (let j = at + 1; j < top; j++) if (stack[j] < 0) pos.delete(stack[j]);
      top = at + 1;
    }
    this.storeRing(stack, 0, top, c.label);
  }

  /** Stores a simple ring rotated to start at its first vertex in raster order; that vertex's next edge tells exterior (right) from hole (down). */
  private storeRing(a: Buf, s: number, n: number, label: number): void {
    if (n < 4) return;
    const id = (k: number) => { const p = a[s + k]; return p < 0 ? -p - 1 : p; };
    let m = 0;
    for (let k = 1; k < n; k++) if (id(k) < id(m)) m = k;
    const r = this.rings++;
    if (r >= this.ringLen.length) {
      this.ringStart = grow(this.ringStart, r); this.ringLen = grow(this.ringLen, r);
      this.ringLabel = grow(this.ringLabel, r); this.ringHole = grow(this.ringHole, r);
    }
    this.ringStart[r] = this.pool.size;
    this.ringLen[r] = n;
    this.ringLabel[r] = label;
    const v0 = id(m), v1 = id((m + 1) % n);
    this.ringHole[r] = Math.floor(v1 / this.W1) === Math.floor(v0 / this.W1) ? 0 : 1;
    for (let k = 0; k < n; k++) this.pool.push(id((m + k) % n));
  }

  /** Groups rings by region: polygons by descending size then first pixel; exterior first, holes by their first vertex. */
  private collect(): PolygonSet {
    const L = this.labels;
    const pix = new Float64Array(L + 1);
    const area = this.areaSum ? new Float64Array(L + 1) : null;
    const roots: number[] = [];
    for (let l = 1; l <= L; l++) {
      const r = this.find(l);
      if (r === l) roots.push(l);
      pix[r] += this.npix[l];
      if (area) area[r] += this.areaSum![l];
    }
    this.npix = new Float64Array(0); this.areaSum = null;
    const order = Int32Array.from(roots).sort((a, b) => pix[b] - pix[a] || a - b);
    const polyOf = new Int32Array(L + 1).fill(-1);
    order.forEach((r, k) => { polyOf[r] = k; });
    const P = order.length, R = this.rings;
    // Counting sort of rings by polygon, then exterior first and holes by first vertex within each.
    const first = new Float64Array(P + 1);
    const polyOfRing = new Int32Array(R);
    for (let r = 0; r < R; r++) { const k = polyOf[this.find(this.ringLabel[r])]; polyOfRing[r] = k; first[k + 1]++; }
    for (let k = 0; k < P; k++) first[k + 1] += first[k];
    const fill = first.slice(0, P);
    const ringOrder = new Int32Array(R);
    for (let r = 0; r < R; r++) ringOrder[fill[polyOfRing[r]]++] = r;
    const pool = this.pool, start = this.ringStart, len = this.ringLen, hole = this.ringHole;
    for (let k = 0; k < P; k++) {
      const a = first[k], b = first[k + 1];
      if (b - a === 1) {
        if (hole[ringOrder[a]]) throw new Error('StripVectorizer: polygon without an exterior ring');
        continue;
      }
      const part = Array.from(ringOrder.subarray(a, b)).sort((r1, r2) => hole[r1] - hole[r2] || pool.get(start[r1]) - pool.get(start[r2]));
      if (hole[part[0]] || !hole[part[1]]) throw new Error(`StripVectorizer: polygon ${k + 1} has ${part.filter((r) => !hole[r]).length} exterior rings`);
      ringOrder.set(part, a);
    }
    this.parent = new Int32Array(0); this.ringLabel = new Int32Array(0);
    const W1 = this.W1;
    const sizes = Float64Array.from(order, (r) => pix[r]);
    const areas = area ? Float64Array.from(order, (r) => area[r]) : null;
    const reversed = (g: GeoTransform, isHole: boolean): boolean => {
      const det = g[1] * g[5] - g[2] * g[4];
      return isHole ? det < 0 : !(det > 0);
    };
    const ringPixels = (k: number, j: number): Float64Array => {
      const r = ringOrder[first[k] + j];
      const n = len[r], s = start[r];
      const out = new Float64Array(2 * n);
      for (let i = 0; i < n; i++) { const v = pool.get(s + i); const y = Math.floor(v / W1); out[2 * i] = v - y * W1; out[2 * i + 1] = y; }
      return out;
    };
    return {
      count: P,
      pixels: (k) => sizes[k],
      rowArea: (k) => (areas ? areas[k] : NaN),
      ringCount: (k) => first[k + 1] - first[k],
      ringPixels,
      reversed,
      ring(k, j, g) {
        const px = ringPixels(k, j);
        const n = px.length / 2;
        const rev = reversed(g, j > 0);
        const out: Ring = new Array(n + 1);
        for (let i = 0; i < n; i++) {
          const q = rev ? n - 1 - i : i;
          const x = px[2 * q], y = px[2 * q + 1];
          out[i] = [g[0] + x * g[1] + y * g[2], g[3] + x * g[4] + y * g[5]];
        }
        out[n] = [out[0][0], out[0][1]];
        return out;
      },
    };
  }
}
