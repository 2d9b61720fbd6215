import { test } from 'node:test';
import assert from 'node:assert/strict';
import { morphology, discRows } from '../../src/core/raster/algorithms/morphology';
import { connectedComponents } from '../../src/core/raster/algorithms/components';
import { vectorizeMask, polygonArea, GeoTransform, Ring } from '../../src/core/raster/algorithms/vectorize';
import { distanceTransform } from '../../src/core/raster/algorithms/distance';
import { slopeDegrees, aspectDegrees, hillshade } from '../../src/core/raster/algorithms/terrain';
import { rowPixelAreas, ellipsoidCellArea, areaByClass } from '../../src/core/raster/algorithms/area';
import { zonalByClass, rasterizePolygon, ZoneAccumulator } from '../../src/core/raster/algorithms/zonal';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';

function grid(rows: string[]): { m: Uint8Array; w: number; h: number } {
  const h = rows.length, w = rows[0].length;
  const m = new Uint8Array(w * h);
  rows.forEach((r, y) => [...r].forEach((c, x) => { m[y * w + x] = c === '#' ? 1 : 0; }));
  return { m, w, h };
}
const count = (a: Uint8Array) => a.reduce((s, v) => s + (v === 1 ? 1 : 0), 0);

test('morphology: disc sizes, dilate/erode/open/close on hand cases', () => {
  assert.deepEqual(discRows(1), [0, 1, 0]);
  assert.deepEqual(discRows(2), [0, 1, 2, 1, 0]);
  const dot = grid(['.......', '.......', '.......', '...#...', '.......', '.......', '.......']);
  assert.equal(count(morphology(dot.m, 7, 7, 'dilate', 1)), 5);
  assert.equal(count(morphology(dot.m, 7, 7, 'dilate', 2)), 13);
  assert.equal(count(morphology(dot.m, 7, 7, 'open', 1)), 0);
  const block = grid(['.......', '.#####.', '.#####.', '.#####.', '.#####.', '.#####.', '......#']);
  const opened = morphology(block.m, 7, 7, 'open', 1);
  assert.equal(count(opened), 21); // 5x5 minus its 4 corners; the lone pixel is gone
  assert.equal(opened[1 * 7 + 1], 0);
  assert.equal(opened[6 * 7 + 6], 0);
  const holed = grid(['.......', '.......', '..###..', '..#.#..', '..###..', '.......', '.......']);
  const closed = morphology(holed.m, 7, 7, 'close', 1);
  assert.equal(closed[3 * 7 + 3], 1);
  assert.equal(count(closed), 9);
  const full = new Uint8Array(16).fill(1);
  assert.equal(count(morphology(full, 4, 4, 'erode', 1)), 16, 'the image border does not erode');
  const nd = Uint8Array.from([1, 255, 0, 0]);
  assert.deepEqual(Array.from(morphology(nd, 4, 1, 'dilate', 1)), [1, 255, 0, 0]);
});

test('connected components: 8-connectivity, size order, min_pixels', () => {
  const g = grid(['##....', '.#..#.', '..#.#.', '......', '#.....']);
  const c = connectedComponents(g.m, g.w, g.h, { connectivity: 8 });
  assert.deepEqual(c.sizes, [4, 2, 1]);
  assert.equal(c.labels[0], 1);
  assert.equal(c.labels[1 * 6 + 4], 2);
  assert.equal(c.labels[4 * 6 + 0], 3);
  const c4 = connectedComponents(g.m, g.w, g.h, { connectivity: 4 });
  assert.deepEqual(c4.sizes, [3, 2, 1, 1]);
  const f = connectedComponents(g.m, g.w, g.h, { minPixels: 2 });
  assert.deepEqual(f.sizes, [4, 2]);
  assert.equal(f.removed, 1);
  assert.equal(f.labels[4 * 6], 0);
});

const GT: GeoTransform = [1000, 10, 0, 5000, 0, -10];
function signed(r: Ring): number {
  let s = 0;
  for (let i = 0; i + 1 < r.length; i++) s += r[i][0] * r[i + 1][1] - r[i + 1][0] * r[i][1];
  return s / 2;
}

test('vectorize: single pixel, ring with a hole, diagonal neighbours stay separate', () => {
  const one = grid(['...', '.#.', '...']);
  const p1 = vectorizeMask(one.m, 3, 3, GT);
  assert.equal(p1.length, 1);
  assert.deepEqual(p1[0].rings[0].length, 5);
  assert.equal(signed(p1[0].rings[0]), 100, 'exterior counter-clockwise');
  const xs = p1[0].rings[0].map((c) => c[0]), ys = p1[0].rings[0].map((c) => c[1]);
  assert.deepEqual([Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)], [1010, 1020, 4980, 4990]);

  const donut = grid(['.....', '.###.', '.#.#.', '.###.', '.....']);
  const p2 = vectorizeMask(donut.m, 5, 5, GT);
  assert.equal(p2.length, 1);
  assert.equal(p2[0].rings.length, 2);
  assert.equal(p2[0].rings[0].length, 5, 'collinear points dropped');
  assert.ok(signed(p2[0].rings[1]) < 0, 'hole clockwise');
  assert.equal(polygonArea(p2[0].rings), 800);
  assert.equal(p2[0].pixels, 8);

  const diag = grid(['#.', '.#']);
  const p3 = vectorizeMask(diag.m, 2, 2, GT);
  assert.equal(p3.length, 2);
  assert.ok(p3.every((p) => p.rings.length === 1 && polygonArea(p.rings) === 100));
});

test('vectorize: rings touching at a vertex are split into simple rings (exterior + hole, two holes)', () => {
  const notch = grid(['###.', '#..#', '####']);
  const p = vectorizeMask(notch.m, 4, 3, GT);
  assert.equal(p.length, 1);
  assert.equal(p[0].rings.length, 2, 'exterior plus a hole touching it at one point');
  assert.equal(polygonArea(p[0].rings), 900);
  const twoHoles = grid(['#####', '#.###', '##.##', '#####']);
  const q = vectorizeMask(twoHoles.m, 5, 4, GT);
  assert.equal(q.length, 1);
  assert.equal(q[0].rings.length, 3, 'two holes touching at a corner');
  assert.equal(polygonArea(q[0].rings), 1800);
  for (const r of [...p[0].rings, ...q[0].rings]) {
    const keys = r.slice(0, -1).map((c) => c.join(','));
    assert.equal(new Set(keys).size, keys.length, 'no ring repeats a vertex');
  }
});

test('vectorize: random masks — area equals pixel count, one polygon per 4-connected component', () => {
  for (let seed = 1; seed <= 20; seed++) {
    const rand = mulberry32(seed);
    const w = 23, h = 17;
    const m = new Uint8Array(w * h);
    for (let i = 0; i < m.length; i++) m[i] = rand() < 0.45 ? 1 : 0;
    const polys = vectorizeMask(m, w, h, GT);
    const comps = connectedComponents(m, w, h, { connectivity: 4 });
    assert.equal(polys.length, comps.sizes.length, `seed ${seed}`);
    const area = polys.reduce((s, p) => s + polygonArea(p.rings), 0);
    assert.equal(area, count(m) * 100, `seed ${seed}`);
    for (const p of polys) {
      assert.equal(polygonArea(p.rings), p.pixels * 100);
      for (const r of p.rings) {
        assert.deepEqual(r[0], r[r.length - 1]);
        const keys = r.slice(0, -1).map((c) => c.join(','));
        assert.equal(new Set(keys).size, keys.length, `seed ${seed}: simple ring`);
      }
    }
  }
});

test('distance transform: exact against brute force with anisotropic pixels', () => {
  const rand = mulberry32(11);
  const w = 31, h = 19, xres = 10, yres = 20;
  const m = new Uint8Array(w * h);
  for (let i = 0; i < m.length; i++) m[i] = rand() < 0.03 ? 1 : 0;
  const d = distanceTransform(m, w, h, xres, yres);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let best = Infinity;
      for (let j = 0; j < m.length; j++) {
        if (!m[j]) continue;
        const dx = (j % w - x) * xres, dy = (Math.floor(j / w) - y) * yres;
        best = Math.min(best, Math.hypot(dx, dy));
      }
      assert.ok(Math.abs(d[y * w + x] - best) < 1e-3, `(${x},${y}) ${d[y * w + x]} vs ${best}`);
    }
  }
  assert.ok(distanceTransform(new Uint8Array(6), 3, 2, 1, 1).every((v) => v === Infinity));
});

test('terrain: Horn on a tilted plane matches the analytic slope, aspect and shading', () => {
  // z = 0.1·E + 0.2·N metres on a 10 m grid (north-up): gradient (0.1, 0.2)
  const w = 6, h = 5;
  const z = new Float32Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) z[y * w + x] = 0.1 * (10 * x) + 0.2 * (-10 * y);
  const g = { w, h, ewres: 10, nsres: -10 };
  const s = slopeDegrees(z, g), a = aspectDegrees(z, g), hs = hillshade(z, g);
  const slope = Math.atan(Math.hypot(0.1, 0.2));
  const aspect = (Math.atan2(-0.1, -0.2) * 180) / Math.PI + 360; // downhill azimuth
  const zen = Math.PI / 4, az = (315 * Math.PI) / 180;
  const shade = 1 + 254 * (Math.cos(zen) * Math.cos(slope) + Math.sin(zen) * Math.sin(slope) * Math.cos(az - (aspect * Math.PI) / 180));
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (x === 0 || y === 0 || x === w - 1 || y === h - 1) {
        assert.ok(Number.isNaN(s[i]) && Number.isNaN(a[i]) && Number.isNaN(hs[i]), 'edges are nodata');
        continue;
      }
      assert.ok(Math.abs(s[i] - (slope * 180) / Math.PI) < 1e-4);
      assert.ok(Math.abs(a[i] - aspect) < 1e-3, `aspect ${a[i]} vs ${aspect}`);
      assert.ok(Math.abs(hs[i] - shade) < 1e-3, `shade ${hs[i]} vs ${shade}`);
    }
  }
  const flat = new Float32Array(9).fill(5);
  assert.ok(Number.isNaN(aspectDegrees(flat, { w: 3, h: 3, ewres: 1, nsres: -1 })[4]), 'flat aspect is nodata');
  assert.equal(slopeDegrees(flat, { w: 3, h: 3, ewres: 1, nsres: -1 })[4], 0);
  const hole = Float32Array.from(z); hole[2 * w + 2] = NaN;
  assert.ok(Number.isNaN(slopeDegrees(hole, g)[1 * w + 1]), 'windows touching nodata are nodata');
});

test('pixel area: projected |det|, geographic rows match numerical integration on the WGS84 ellipsoid', () => {
  assert.deepEqual(Array.from(rowPixelAreas([0, 10, 0, 0, 0, -10], 2, false)), [100, 100]);
  // Independent check: integrate M(φ)·N(φ)·cosφ dφ with Simpson's rule.
  const a = 6378137, f = 1 / 298.257223563, e2 = f * (2 - f);
  const integrand = (p: number) => {
    const s2 = Math.sin(p) ** 2;
    return ((a * (1 - e2)) / (1 - e2 * s2) ** 1.5) * (a / Math.sqrt(1 - e2 * s2)) * Math.cos(p);
  };
  const simpson = (lat1: number, lat2: number, dlon: number) => {
    const n = 200, r = Math.PI / 180, h = ((lat2 - lat1) * r) / n;
    let s = integrand(lat1 * r) + integrand(lat2 * r);
    for (let k = 1; k < n; k++) s += (k % 2 ? 4 : 2) * integrand(lat1 * r + k * h);
    return Math.abs((s * h) / 3) * dlon * r;
  };
  for (const [lat, d] of [[0, 1], [45, 0.5], [60, 0.01], [-33.5, 0.25]]) {
    const mine = ellipsoidCellArea(lat, lat + d, d);
    const ref = simpson(lat, lat + d, d);
    assert.ok(Math.abs(mine / ref - 1) < 1e-9, `lat ${lat}: ${mine} vs ${ref}`);
  }
  // 1°×1° at the equator ≈ 12 308 km² on WGS84.
  assert.ok(Math.abs(ellipsoidCellArea(0, 1, 1) / 1e6 - 12308.8) < 1);
  const rows = rowPixelAreas([100, 0.5, 0, 50, 0, -0.5], 4, true);
  assert.ok(rows[0] < rows[3], 'pixels shrink toward the pole');
  assert.ok(Math.abs(rows[1] - ellipsoidCellArea(49, 49.5, 0.5)) < 1e-6);
  const acc = areaByClass([1, 2, 2, NaN], 2, 2, Float64Array.from([10, 20]));
  assert.deepEqual([...acc.values()].map((e) => [e.value, e.pixels, e.m2]), [[1, 1, 10], [2, 2, 30]]);
});

test('zonal: class zones and pixel-centre rasterisation with holes', () => {
  const values = Float32Array.from([1, 2, 3, 4, NaN, 6]);
  const zones = Float32Array.from([1, 1, 2, 2, 2, 0]);
  const z = zonalByClass(values, zones);
  assert.deepEqual([...z.keys()], [1, 2]);
  const r2 = z.get(2)!.result();
  assert.equal(r2.count, 2); assert.equal(r2.pixels, 3);
  assert.equal(r2.mean, 3.5); assert.equal(r2.std, 0.5); assert.equal(r2.sum, 7);
  const acc = new ZoneAccumulator();
  [1e9 + 1, 1e9 + 2, 1e9 + 3].forEach((v) => acc.add(v));
  assert.ok(Math.abs(acc.result().std - Math.sqrt(2 / 3)) < 1e-6, 'variance stays accurate for large values');

  // 10×10 grid of 1 m pixels, origin (0, 10). Square 2..8 with a hole 4..6.
  const gt: GeoTransform = [0, 1, 0, 10, 0, -1];
  const sq = (a: number, b: number): Ring => [[a, 10 - b], [b, 10 - b], [b, 10 - a], [a, 10 - a], [a, 10 - b]];
  const hit: number[] = [];
  rasterizePolygon([sq(2, 8), sq(4, 6)], gt, 10, 10, (i) => hit.push(i));
  assert.equal(hit.length, 36 - 4);
  assert.ok(!hit.includes(4 * 10 + 4) && hit.includes(2 * 10 + 2) && !hit.includes(8 * 10 + 8));
  // a triangle: centres inside, and those on its sloped edge, which ends each row's span (x + y ≤ 5
  // in pixel units from the corner): GDAL keeps a centre on a span's right end (raster-rasterize-ties)
  const tri: Ring = [[0, 10], [5, 10], [0, 5], [0, 10]];
  const t: number[] = [];
  rasterizePolygon([tri], gt, 10, 10, (i) => t.push(i));
  let expected = 0;
  for (let y = 0; y < 10; y++) for (let x = 0; x < 10; x++) if (x + 0.5 + y + 0.5 <= 5) expected++;
  assert.equal(t.length, expected);
});
