/** Reclassification of continuous values into classes 1..N by ascending breaks (0 = nodata). */
export interface ClassScheme {
  /** Class codes 1..N with their labels and value ranges [lower, upper). */
  classes: { code: number; label: string; lower: number; upper: number }[];
}

/**
 * With labels.length === breaks.length - 1 the breaks are interval edges (values outside become
 * nodata, the last interval includes its upper edge); otherwise they are thresholds splitting the
 * line into breaks.length + 1 classes (labels then has that length or is empty).
 */
export function classScheme(breaks: number[], labels: string[]): ClassScheme {
  // Class codes are bytes (0 = nodata): at most 254 classes, so at most 255 breaks.
  if (breaks.length > 255) throw new Error(`argument "breaks" has ${breaks.length} numbers; at most 255 (254 classes) are supported`);
  for (let i = 1; i < breaks.length; i++) {
    if (!(breaks[i] > breaks[i - 1])) throw new Error(`argument "breaks" must be strictly ascending, got [${breaks.join(', ')}]`);
  }
  if (breaks.length === 0) throw new Error('argument "breaks" needs at least one number');
  if (labels.length > 0 && labels.length === breaks.length - 1) {
    return {
      classes: labels.map((label, i) => ({ code: i + 1, label, lower: breaks[i], upper: breaks[i + 1] })),
    };
  }
  if (labels.length > 0 && labels.length !== breaks.length + 1) {
    throw new Error(
      `argument "labels" has ${labels.length} entries; with ${breaks.length} breaks give ${breaks.length - 1} (breaks are interval edges) or ${breaks.length + 1} (breaks are thresholds)`,
    );
  }
  const edges = [-Infinity, ...breaks, Infinity];
  return {
    classes: edges.slice(0, -1).map((lower, i) => ({
      code: i + 1,
      label: labels[i] ?? defaultLabel(lower, edges[i + 1]),
      lower,
      upper: edges[i + 1],
    })),
  };
}

function defaultLabel(lo: number, hi: number): string {
  if (lo === -Infinity) return `< ${hi}`;
  if (hi === Infinity) return `>= ${lo}`;
  return `${lo} to ${hi}`;
}

export function reclassify(data: ArrayLike<number>, scheme: ClassScheme, out?: Uint8Array): Uint8Array {
  const n = scheme.classes.length;
  if (n > 254) throw new Error('argument "breaks": reclassify supports at most 254 classes');
  const lowers = scheme.classes.map((c) => c.lower);
  const last = scheme.classes[n - 1];
  const result = out ?? new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    let code = 0;
    if (v === v) {
      // binary search for the last lower edge <= v
      let lo = 0, hi = n - 1, k = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (lowers[mid] <= v) { k = mid; lo = mid + 1; } else hi = mid - 1;
      }
      if (k >= 0 && (v < scheme.classes[k].upper || (k === n - 1 && v <= last.upper))) code = k + 1;
    }
    result[i] = code;
  }
  return result;
}
