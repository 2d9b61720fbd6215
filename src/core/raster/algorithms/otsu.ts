/** Otsu's threshold from a histogram of the finite values (NaN = nodata is ignored). */
export interface OtsuResult {
  /** Values strictly above the threshold form the upper class. */
  threshold: number;
  min: number;
  max: number;
  validCount: number;
  /** Between-class variance at the threshold divided by the total variance (0..1 separability). */
  separability: number;
}

export function finiteRange(data: ArrayLike<number>): { min: number; max: number; count: number } {
  let min = Infinity, max = -Infinity, count = 0;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (v === v && v !== Infinity && v !== -Infinity) {
      if (v < min) min = v;
      if (v > max) max = v;
      count++;
    }
  }
  return { min, max, count };
}

export function histogram(data: ArrayLike<number>, min: number, max: number, bins: number, into?: Float64Array): Float64Array {
  const hist = into ?? new Float64Array(bins);
  const scale = max > min ? bins / (max - min) : 0;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (!(v === v) || v === Infinity || v === -Infinity) continue;
    let b = Math.floor((v - min) * scale);
    if (b >= bins) b = bins - 1;
    else if (b < 0) b = 0;
    hist[b]++;
  }
  return hist;
}

/** Threshold = upper edge of the bin maximising the between-class variance. */
export function otsuFromHistogram(hist: ArrayLike<number>, min: number, max: number): OtsuResult {
  const bins = hist.length;
  const width = (max - min) / bins;
  let total = 0, sumAll = 0, sumSq = 0;
  for (let i = 0; i < bins; i++) {
    const c = min + (i + 0.5) * width;
    total += hist[i];
    sumAll += hist[i] * c;
    sumSq += hist[i] * c * c;
  }
  if (total === 0 || !(max > min)) {
    return { threshold: min, min, max, validCount: total, separability: 0 };
  }
  let w0 = 0, sum0 = 0, best = -1, bestK = 0;
  for (let k = 0; k < bins - 1; k++) {
    w0 += hist[k];
    sum0 += hist[k] * (min + (k + 0.5) * width);
    const w1 = total - w0;
    if (w0 === 0 || w1 === 0) continue;
    const m0 = sum0 / w0, m1 = (sumAll - sum0) / w1;
    const between = w0 * w1 * (m0 - m1) * (m0 - m1);
    if (between > best) { best = between; bestK = k; }
  }
  const variance = sumSq / total - (sumAll / total) ** 2;
  const separability = variance > 0 && best > 0 ? best / (total * total) / variance : 0;
  return { threshold: min + (bestK + 1) * width, min, max, validCount: total, separability };
}

export function otsuThreshold(data: ArrayLike<number>, bins = 256): OtsuResult {
  const { min, max } = finiteRange(data);
  if (!(max >= min)) return { threshold: NaN, min: NaN, max: NaN, validCount: 0, separability: 0 };
  return otsuFromHistogram(histogram(data, min, max, bins), min, max);
}
