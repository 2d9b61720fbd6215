/** Binary morphology with a disc of radius r (pixels). Masks: 1 = set, 0 = unset, 255 = nodata. */
export type MorphOp = 'dilate' | 'erode' | 'open' | 'close';
export const MASK_NODATA = 255;

/** Half-widths of the disc rows dy = -r..r (cells with dx² + dy² <= r²). */
export function discRows(r: number): number[] {
  const rows: number[] = [];
  for (let dy = -r; dy <= r; dy++) rows.push(Math.floor(Math.sqrt(r * r - dy * dy)));
  return rows;
}

/**
 * Dilation (any set pixel in the disc) or erosion (no unset pixel in the disc) of rows y0..y1-1 of a
 * w×h mask (output is (y1-y0)×w). Pixels outside the image do not count (the border neither grows nor
 * erodes the mask); nodata counts as unset.
 */
function pass(mask: Uint8Array, w: number, h: number, r: number, dilate: boolean, signal?: AbortSignal, y0 = 0, y1 = h): Uint8Array {
  // Row prefix sums of the pixels that can veto (set pixels for dilation, unset incl. nodata for erosion), for the rows the disc reaches.
  const p0 = Math.max(0, y0 - r), p1 = Math.min(h, y1 + r);
  const pre = new Int32Array((w + 1) * (p1 - p0));
  for (let y = p0; y < p1; y++) {
    let s = 0;
    const o = (y - p0) * (w + 1);
    for (let x = 0; x < w; x++) {
      const v = mask[y * w + x];
      const hit = dilate ? v === 1 : v !== 1;
      if (hit) s++;
      pre[o + x + 1] = s;
    }
  }
  const rows = discRows(r);
  const out = new Uint8Array(w * (y1 - y0));
  for (let y = y0; y < y1; y++) {
    if (((y - y0) & 63) === 0 && signal?.aborted) throw signal.reason ?? new Error('aborted');
    for (let x = 0; x < w; x++) {
      const i = y * w + x, oi = (y - y0) * w + x;
      if (mask[i] === MASK_NODATA) { out[oi] = MASK_NODATA; continue; }
      let found = false;
      for (let k = 0; k < rows.length && !found; k++) {
        const yy = y + k - r;
        if (yy < 0 || yy >= h) continue;
        const hw = rows[k];
        const x0 = Math.max(0, x - hw), x1 = Math.min(w - 1, x + hw);
        const o = (yy - p0) * (w + 1);
        if (pre[o + x1 + 1] - pre[o + x0] > 0) found = true;
      }
      out[oi] = dilate ? (found ? 1 : 0) : (found ? 0 : 1);
    }
  }
  return out;
}

function checkOp(op: MorphOp, radius: number): void {
  if (!Number.isInteger(radius) || radius < 1) throw new Error(`argument "radius" must be a positive integer, got ${radius}`);
  if (!['dilate', 'erode', 'open', 'close'].includes(op)) throw new Error(`argument "op" must be one of open, close, dilate, erode, got "${op}"`);
}

export function morphology(mask: Uint8Array, w: number, h: number, op: MorphOp, radius: number, signal?: AbortSignal): Uint8Array {
  checkOp(op, radius);
  switch (op) {
    case 'dilate': return pass(mask, w, h, radius, true, signal);
    case 'erode': return pass(mask, w, h, radius, false, signal);
    case 'open': return pass(pass(mask, w, h, radius, false, signal), w, h, radius, true, signal);
    default: return pass(pass(mask, w, h, radius, true, signal), w, h, radius, false, signal);
  }
}

/** Rows of context a strip needs above and below for `op` (two passes for open/close). */
export function morphologyHalo(op: MorphOp, radius: number): number {
  return op === 'open' || op === 'close' ? 2 * radius : radius;
}

/**
 * Rows y0..y0+rows-1 of morphology(image) from a window of the image: `win` holds image rows
 * top..top+winH-1, and must extend morphologyHalo rows past the strip wherever the image does (the
 * window's first/last row may only be cut short at the image's own edges). Equal to the whole-band result.
 */
export function morphologyStrip(
  win: Uint8Array, w: number, winH: number, op: MorphOp, radius: number, y0: number, rows: number, top: number, imageH: number, signal?: AbortSignal,
): Uint8Array {
  checkOp(op, radius);
  if (top > 0 && y0 - top < morphologyHalo(op, radius)) throw new Error('morphologyStrip: window starts inside the halo');
  if (top + winH < imageH && top + winH - (y0 + rows) < morphologyHalo(op, radius)) throw new Error('morphologyStrip: window ends inside the halo');
  const s0 = y0 - top, s1 = s0 + rows; // strip rows in window coordinates
  if (op === 'dilate' || op === 'erode') return pass(win, w, winH, radius, op === 'dilate', signal, s0, s1);
  const first = op === 'close';
  // First pass on the strip plus `radius` rows each side (clamped to the window = image edges there), then the second pass.
  const m0 = Math.max(0, s0 - radius), m1 = Math.min(winH, s1 + radius);
  const mid = pass(win, w, winH, radius, first, signal, m0, m1);
  return pass(mid, w, m1 - m0, radius, !first, signal, s0 - m0, s1 - m0);
}

/** Float mask (1/0/NaN, or any nonzero = set) to the byte convention used here. */
export function toByteMask(data: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) { const v = data[i]; out[i] = v !== v ? MASK_NODATA : v !== 0 ? 1 : 0; }
  return out;
}
