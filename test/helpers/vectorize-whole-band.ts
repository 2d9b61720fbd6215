/** The former whole-band vectorizer (labels + edge flags for every pixel), kept as the reference the streaming one must reproduce. */
import { connectedComponents } from '../../src/core/raster/algorithms/components';
import type { GeoTransform, Ring, MaskPolygon } from '../../src/core/raster/algorithms/vectorize';
import { signedArea } from '../../src/core/raster/algorithms/vectorize';

// Directions in pixel space (y down), clockwise order: right, down, left, up.
const DX = [1, 0, -1, 0];
const DY = [0, 1, 0, -1];

/**
 * Each set pixel contributes its boundary edges traversed clockwise on screen (region on the right).
 * Where two regions touch at a corner the trace turns right, which keeps 4-connected regions apart.
 */
export function vectorizeMaskWholeBand(mask: Uint8Array, w: number, h: number, gt: GeoTransform, signal?: AbortSignal): MaskPolygon[] {
  const comp = connectedComponents(mask, w, h, { connectivity: 4, signal });
  const W1 = w + 1;
  const nv = W1 * (h + 1);
  // Up to two outgoing edges per vertex; bit d of outMask = edge leaving in direction d.
  const outMask = new Uint8Array(nv);
  const set = (x: number, y: number) => x >= 0 && y >= 0 && x < w && y < h && mask[y * w + x] === 1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (mask[y * w + x] !== 1) continue;
      if (!set(x, y - 1)) outMask[y * W1 + x] |= 1 << 0;           // top: (x,y) → (x+1,y)
      if (!set(x + 1, y)) outMask[y * W1 + x + 1] |= 1 << 1;       // right: (x+1,y) → (x+1,y+1)
      if (!set(x, y + 1)) outMask[(y + 1) * W1 + x + 1] |= 1 << 2; // bottom: (x+1,y+1) → (x,y+1)
      if (!set(x - 1, y)) outMask[(y + 1) * W1 + x] |= 1 << 3;     // left: (x,y+1) → (x,y)
    }
  }
  const outers = new Map<number, Ring>();
  const holes = new Map<number, Ring[]>();
  // The pixel to the right of an edge leaving vertex (vx,vy) in direction d.
  const pixelRight = (vx: number, vy: number, d: number): number => {
    switch (d) {
      case 0: return vy * w + vx;
      case 1: return vy * w + vx - 1;
      case 2: return (vy - 1) * w + vx - 1;
      default: return (vy - 1) * w + vx;
    }
  };
  let traced = 0;
  for (let v = 0; v < nv; v++) {
    while (outMask[v] !== 0) {
      if ((++traced & 1023) === 0 && signal?.aborted) throw signal.reason ?? new Error('aborted');
      let d = 0;
      while (!(outMask[v] & (1 << d))) d++;
      const sx = v % W1, sy = (v - sx) / W1;
      const label = comp.labels[pixelRight(sx, sy, d)];
      const pts: [number, number][] = [];
      let x = sx, y = sy, prev = -1;
      const pick = (m: number, p: number): number =>
        m & (1 << ((p + 1) & 3)) ? (p + 1) & 3 : m & (1 << p) ? p : (p + 3) & 3; // right turn first
      for (;;) {
        const vi = y * W1 + x;
        let nd: number;
        if (prev < 0) nd = d;
        else {
          if (x === sx && y === sy && pick(outMask[vi] | (1 << d), prev) === d) break; // ring closed
          nd = pick(outMask[vi], prev);
        }
        if (nd !== prev) pts.push([x, y]);
        outMask[vi] &= ~(1 << nd);
        x += DX[nd]; y += DY[nd];
        prev = nd;
      }
      if (pts.length > 0 && prev === d) pts.shift(); // start vertex was not a corner
      // A ring that passes a vertex twice (regions touching diagonally) is split there into simple
      // rings touching at a point, as OGC validity wants (and gdal_polygonize does).
      for (const loop of splitAtRepeats(pts, W1)) {
        if (loop.length < 4) continue;
        let a2 = 0;
        for (let i = 0; i < loop.length; i++) {
          const [x0, y0] = loop[i], [x1, y1] = loop[(i + 1) % loop.length];
          a2 += x0 * y1 - x1 * y0;
        }
        const ring: Ring = loop.map(([px, py]) => [gt[0] + px * gt[1] + py * gt[2], gt[3] + px * gt[4] + py * gt[5]]);
        if (a2 > 0) outers.set(label, ring); // clockwise on screen = exterior
        else { const list = holes.get(label) ?? []; list.push(ring); holes.set(label, list); }
      }
    }
  }
  const polys: MaskPolygon[] = [];
  for (let label = 1; label <= comp.sizes.length; label++) {
    const outer = outers.get(label);
    if (!outer) continue;
    const rings = [orient(outer, true), ...(holes.get(label) ?? []).map((r) => orient(r, false))];
    polys.push({ rings: rings.map(close), pixels: comp.sizes[label - 1] });
  }
  return polys;
}

/** Splits a closed vertex sequence at repeated vertices into simple loops. */
function splitAtRepeats(pts: [number, number][], W1: number): [number, number][][] {
  const loops: [number, number][][] = [];
  const stack: [number, number][] = [];
  const pos = new Map<number, number>();
  for (const p of pts) {
    const key = p[1] * W1 + p[0];
    const at = pos.get(key);
    if (at === undefined) { pos.set(key, stack.length); stack.push(p); continue; }
    const loop = stack.slice(at);
    for (let k = at + 1; k < stack.length; k++) pos.delete(stack[k][1] * W1 + stack[k][0]);
    stack.length = at + 1;
    loops.push(loop);
  }
  loops.push(stack);
  return loops;
}

function orient(r: Ring, ccw: boolean): Ring {
  return (signedArea(r) > 0) === ccw ? r : r.slice().reverse();
}

function close(r: Ring): Ring {
  return [...r, [r[0][0], r[0][1]]];
}
