import { test } from 'node:test';
import assert from 'node:assert/strict';
import { otsuThreshold } from '../../src/core/raster/algorithms/otsu';
import { classScheme, reclassify } from '../../src/core/raster/algorithms/reclassify';
import { fitKMeans, assignKMeans } from '../../src/core/raster/algorithms/kmeans';
import { mulberry32, gaussian } from '../../src/core/raster/algorithms/prng';
import { burnSeverity, dnbr } from '../../src/core/raster/algorithms/burn';
import { landSurfaceTemperature, emissivity } from '../../src/core/raster/algorithms/lst';
import { changeVector, changeMask, difference } from '../../src/core/raster/algorithms/change';
import { linearTrend, decimalYear } from '../../src/core/raster/algorithms/trend';

/** Exact Otsu by brute force over every split of the sorted values. */
function bruteOtsu(values: number[]): number {
  const s = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  const n = s.length, total = s.reduce((a, b) => a + b, 0);
  let best = -1, t = NaN, left = 0;
  for (let k = 0; k < n - 1; k++) {
    left += s[k];
    if (s[k] === s[k + 1]) continue;
    const w0 = k + 1, w1 = n - w0;
    const m0 = left / w0, m1 = (total - left) / w1;
    const v = w0 * w1 * (m0 - m1) ** 2;
    if (v > best) { best = v; t = (s[k] + s[k + 1]) / 2; }
  }
  return t;
}

test('otsu: two point masses split between them, NaN ignored', () => {
  const data = new Float32Array(300);
  for (let i = 0; i < 100; i++) { data[i] = 0; data[100 + i] = 10; data[200 + i] = NaN; }
  const r = otsuThreshold(data);
  assert.equal(r.validCount, 200);
  assert.ok(r.threshold > 0 && r.threshold < 10, `threshold ${r.threshold}`);
  assert.ok(r.separability > 0.99);
});

test('otsu: matches the brute-force optimum on a bimodal mixture within one bin', () => {
  const rand = mulberry32(7);
  const vals: number[] = [];
  for (let i = 0; i < 4000; i++) vals.push(i % 3 === 0 ? 0.6 + 0.1 * gaussian(rand) : -0.3 + 0.15 * gaussian(rand));
  const r = otsuThreshold(Float32Array.from(vals), 256);
  const exact = bruteOtsu(Array.from(Float32Array.from(vals)));
  const bin = (r.max - r.min) / 256;
  assert.ok(Math.abs(r.threshold - exact) <= 1.5 * bin, `otsu ${r.threshold} vs exact ${exact} (bin ${bin})`);
  assert.ok(r.threshold > 0 && r.threshold < 0.4);
});

test('reclassify: interval edges (last edge inclusive) and thresholds', () => {
  const s = classScheme([0, 0.5, 1], ['low', 'high']);
  assert.deepEqual(Array.from(reclassify([-0.1, 0, 0.49, 0.5, 1, 1.1, NaN], s)), [0, 1, 1, 2, 2, 0, 0]);
  const t = classScheme([0.2], []);
  assert.equal(t.classes.length, 2);
  assert.deepEqual(Array.from(reclassify([0.1, 0.2, 5], t)), [1, 2, 2]);
  assert.equal(t.classes[0].label, '< 0.2');
  assert.throws(() => classScheme([1, 0], []), /ascending/);
  assert.throws(() => classScheme([0, 1], ['a', 'b', 'c', 'd']), /labels/);
});

test('kmeans: recovers three separated clusters, ordered dark to bright, deterministic per seed', () => {
  const rand = mulberry32(3);
  const n = 3000;
  const b1 = new Float32Array(n), b2 = new Float32Array(n);
  const truth: number[] = [];
  const centres = [[0.05, 0.02], [0.3, 0.4], [0.12, 0.2]];
  for (let i = 0; i < n; i++) {
    const c = i % 3;
    truth.push(c);
    b1[i] = centres[c][0] + 0.01 * gaussian(rand);
    b2[i] = centres[c][1] + 0.01 * gaussian(rand);
  }
  b1[5] = NaN;
  const model = fitKMeans([b1, b2], { k: 3, seed: 1, sampleSize: 1000 });
  const cls = assignKMeans([b1, b2], model);
  assert.equal(cls[5], 0);
  // dark → bright: centre 0 → class 1, centre 2 → class 2, centre 1 → class 3
  const expect = [1, 3, 2];
  let wrong = 0;
  for (let i = 0; i < n; i++) if (i !== 5 && cls[i] !== expect[truth[i]]) wrong++;
  assert.equal(wrong, 0);
  const again = assignKMeans([b1, b2], fitKMeans([b1, b2], { k: 3, seed: 1, sampleSize: 1000 }));
  assert.deepEqual(Array.from(again), Array.from(cls));
});

test('burn severity: USGS class boundaries are lower-inclusive', () => {
  const d = [-0.3, -0.25, -0.1, 0.0, 0.1, 0.27, 0.44, 0.659, 0.66, 1.2, NaN];
  assert.deepEqual(Array.from(burnSeverity(Float32Array.from(d).map((v) => v))), [1, 2, 3, 3, 4, 5, 6, 6, 7, 7, 0]);
  const r = dnbr([0.4], [0.1], [0.2], [0.3]);
  assert.ok(Math.abs(r[0] - (0.3 / 0.5 - -0.1 / 0.5)) < 1e-6);
  assert.ok(Number.isNaN(dnbr([0], [0], [0.2], [0.3])[0]));
});

test('land surface temperature: emissivity from NDVI and the single-channel correction', () => {
  assert.equal(emissivity(0.1), 0.986);
  assert.equal(emissivity(0.9), 0.99);
  assert.ok(Math.abs(emissivity(0.35) - 0.987) < 1e-12);
  // BT 300 K, NDVI 0.35 (red 0.13, nir 0.27): ε = 0.987 → LST = 300 / (1 + (10.895e-6·300/1.438e-2)·ln 0.987) − 273.15 ≈ 27.745 °C
  const red = 0.13, nir = 0.27;
  const lst = landSurfaceTemperature([300, NaN], [red, red], [nir, nir]);
  assert.ok(Math.abs(lst[0] - 27.745) < 0.01, `LST ${lst[0]}`);
  assert.ok(Number.isNaN(lst[1]));
});

test('change: difference, signed and absolute masks, change vector magnitude and direction', () => {
  const d = difference([1, 2, NaN], [1.5, 1.0, 3]);
  assert.deepEqual(Array.from(d).slice(0, 2), [0.5, -1]);
  assert.deepEqual(Array.from(changeMask(d, 0.3, false)), [1, 0, 255]);
  assert.deepEqual(Array.from(changeMask(d, -0.3, false)), [0, 1, 255]);
  assert.deepEqual(Array.from(changeMask(d, 0.8, true)), [0, 1, 255]);
  const cv = changeVector([[0, 0, 0], [0, 0, 0]], [[3, -1, 0], [4, 0, 0]]);
  assert.ok(Math.abs(cv.magnitude[0] - 5) < 1e-6);
  assert.ok(Math.abs(cv.direction[0] - (Math.atan2(4, 3) * 180) / Math.PI) < 1e-4);
  assert.ok(Math.abs(cv.direction[1] - 180) < 1e-6);
  assert.ok(Number.isNaN(cv.direction[2]));
  const cv3 = changeVector([[0, 0], [0, 0], [0, 0]], [[1, -2], [1, -2], [1, -2]]);
  assert.ok(Math.abs(cv3.direction[0]) < 1e-3);
  assert.ok(Math.abs(cv3.direction[1] - 180) < 1e-3);
  assert.ok(Math.abs(cv3.magnitude[1] - Math.sqrt(12)) < 1e-6);
});

test('trend: least-squares slope per year, NaN-aware, minimum observations', () => {
  const years = ['2020-01-01', '2021-01-01', '2022-01-01', '2023-01-01'].map(decimalYear);
  assert.deepEqual(years, [2020, 2021, 2022, 2023]);
  assert.ok(Math.abs(decimalYear('2021-07-02') - (2021 + 182 / 365)) < 1e-9);
  const series = [
    [3, 1, NaN, 5], // year 2020
    [3.5, 1, NaN, NaN],
    [4, 1, 7, NaN],
    [4.5, 1, NaN, NaN],
  ].map((r) => Float32Array.from(r));
  const s = linearTrend(series, years);
  assert.ok(Math.abs(s[0] - 0.5) < 1e-6);
  assert.equal(s[1], 0);
  assert.ok(Number.isNaN(s[2]));
  assert.ok(Number.isNaN(s[3]));
  // noisy: compare with the closed form for y = [1, 4, 2, 7]
  const t = [2020, 2021, 2022, 2023], y = [1, 4, 2, 7];
  const tm = 2021.5, ym = 3.5;
  const expected = t.reduce((a, ti, i) => a + (ti - tm) * (y[i] - ym), 0) / t.reduce((a, ti) => a + (ti - tm) ** 2, 0);
  assert.ok(Math.abs(linearTrend(y.map((v) => Float32Array.of(v)), t)[0] - expected) < 1e-6);
  assert.throws(() => decimalYear('June 2020'), /ISO/);
});
