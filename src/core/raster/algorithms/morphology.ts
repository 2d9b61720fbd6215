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
 * Dilation (any set pixel in the disc) or erosion (no unset pixel in the disc). Pixels outside the
 * image do not count (the border neither grows nor erodes the mask); nodata counts as unset.
 */
function pass(mask: Uint8Array, w: number, h: number, r: number, dilate: boolean, signal?: AbortSignal): Uint8Array {
  // Row prefix sums of the pixels that can veto: set pixels for dilation, unset (incl. nodata) for erosion.
  const pre = new Int32Array((w + 1) * h);
  for (let y = 0; y < h; y++) {
    let s = 0;
    const o = y * (w + 1);
    for (let x = 0; x < w; x++) {
      const v = mask[y * w + x];
      const hit = dilate ? v === 1 : v !== 1;
      if (hit) s++;
      pre[o + x + 1] = s;
    }
  }
  const rows = discRows(r);
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    if ((y & 63) === 0 && signal?.aborted) throw signal.reason ?? new Error('aborted');
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (mask[i] === MASK_NODATA) { out[i] = MASK_NODATA; continue; }
      let found = false;
      for (let k = 0; k < rows.length && !found; k++) {
        const yy = y + k - r;
        if (yy < 0 || yy >= h) continue;
        const hw = rows[k];
        const x0 = Math.max(0, x - hw), x1 = Math.min(w - 1, x + hw);
        const o = yy * (w + 1);
        if (pre[o + x1 + 1] - pre[o + x0] > 0) found = true;
      }
      out[i] = dilate ? (found ? 1 : 0) : (found ? 0 : 1);
    }
  }
  return out;
}

export function morphology(mask: Uint8Array, w: number, h: number, op: MorphOp, radius: number, signal?: AbortSignal): Uint8Array {
  if (!Number.isInteger(radius) || radius < 1) throw new Error(`argument "radius" must be a positive integer, got ${radius}`);
  switch (op) {
    case 'dilate': return pass(mask, w, h, radius, true, signal);
    case 'erode': return pass(mask, w, h, radius, false, signal);
    case 'open': return pass(pass(mask, w, h, radius, false, signal), w, h, radius, true, signal);
    case 'close': return pass(pass(mask, w, h, radius, true, signal), w, h, radius, false, signal);
    default: throw new Error(`argument "op" must be one of open, close, dilate, erode, got "${op}"`);
  }
}

/** Float mask (1/0/NaN, or any nonzero = set) to the byte convention used here. */
export function toByteMask(data: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) { const v = data[i]; out[i] = v !== v ? MASK_NODATA : v !== 0 ? 1 : 0; }
  return out;
}
