/** Image differencing and change vector analysis. */

export function difference(before: ArrayLike<number>, after: ArrayLike<number>, out?: Float32Array): Float32Array {
  const r = out ?? new Float32Array(before.length);
  for (let i = 0; i < r.length; i++) r[i] = after[i] - before[i]; // NaN propagates
  return r;
}

/**
 * Change mask from a difference: a positive threshold marks increases (diff > t), a negative one
 * decreases (diff < t); with `absolute`, |diff| > |t|. 255 = nodata.
 */
export function changeMask(diff: ArrayLike<number>, threshold: number, absolute: boolean, out?: Uint8Array): Uint8Array {
  const r = out ?? new Uint8Array(diff.length);
  const t = threshold;
  for (let i = 0; i < r.length; i++) {
    const d = diff[i];
    r[i] = d !== d ? 255 : absolute ? (Math.abs(d) > Math.abs(t) ? 1 : 0) : t >= 0 ? (d > t ? 1 : 0) : (d < t ? 1 : 0);
  }
  return r;
}

/**
 * Change vector magnitude (Euclidean norm of the band differences) and direction in degrees: for two bands
 * the angle of (Δb1, Δb2) counter-clockwise from the +Δb1 axis (0..360); for more bands the angle between
 * the change vector and the all-bands-increase diagonal (0..180).
 */
export function changeVector(before: ArrayLike<number>[], after: ArrayLike<number>[], outMag?: Float32Array, outDir?: Float32Array): { magnitude: Float32Array; direction: Float32Array } {
  const nb = before.length, n = before[0].length;
  const mag = outMag ?? new Float32Array(n), dir = outDir ?? new Float32Array(n);
  const d = new Float64Array(nb);
  const sq = Math.sqrt(nb);
  for (let i = 0; i < n; i++) {
    let ss = 0, sum = 0, ok = true;
    for (let b = 0; b < nb; b++) {
      const v = after[b][i] - before[b][i];
      if (v !== v) { ok = false; break; }
      d[b] = v; ss += v * v; sum += v;
    }
    if (!ok) { mag[i] = NaN; dir[i] = NaN; continue; }
    const m = Math.sqrt(ss);
    mag[i] = m;
    if (m === 0) { dir[i] = NaN; continue; }
    if (nb === 2) {
      let a = Math.atan2(d[1], d[0]) * 180 / Math.PI;
      if (a < 0) a += 360;
      dir[i] = a;
    } else {
      dir[i] = Math.acos(Math.max(-1, Math.min(1, sum / (m * sq)))) * 180 / Math.PI;
    }
  }
  return { magnitude: mag, direction: dir };
}
