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
