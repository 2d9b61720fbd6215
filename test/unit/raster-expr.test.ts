import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compileExpr, evalProgram, ExprError, MAX_EXPRESSION_DEPTH } from '../../src/core/raster/expr';
import { runTool } from '../../src/core/raster/engine';
import { openRaster } from '../../src/core/raster/io/dataset';
import { writeRaster } from '../../src/core/raster/io/writer';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';
import { tmpDir } from '../helpers/raster-gdal';

const GEO = { geoTransform: [500000, 10, 0, 4430000, 0, -10] as [number, number, number, number, number, number], epsg: 32650, geographic: false };

function run(src: string, b1: number[], b2: number[] = b1): Float64Array {
  const p = compileExpr(src, 2);
  return evalProgram(p, new Map([[1, Float32Array.from(b1)], [2, Float32Array.from(b2)]]), b1.length);
}

test('10,000 terms evaluate correctly without recursion (no stack overflow)', () => {
  const src = Array(10_000).fill('b1').join('+');
  assert.deepEqual([...run(src, [1, 2, -3])], [10_000, 20_000, -30_000]);
  const mixed = Array(5_000).fill('b1*2-b2').join('+');
  assert.deepEqual([...run(mixed, [1, 4], [3, 1])], [-5_000, 35_000]);
});

test('nesting deeper than the limit is a clear error naming the position; within it the result is right', () => {
  const deep = (n: number, open: string, close: string) => open.repeat(n) + 'b1' + close.repeat(n);
  for (const [name, src] of [['5,000 parentheses', deep(5000, '(', ')')], ['3,000 abs()', deep(3000, 'abs(', ')')], ['4,000 signs', '-'.repeat(4000) + 'b1']] as const) {
    assert.throws(() => compileExpr(src, 1), (e: Error) => e instanceof ExprError && new RegExp(`nests deeper than ${MAX_EXPRESSION_DEPTH} levels .* at position \\d+`).test(e.message), name);
  }
  assert.deepEqual([...run(deep(200, '(', ')'), [5, -6])], [5, -6]);
  assert.deepEqual([...run(deep(200, 'abs(', ')'), [5, -6])], [5, 6]);
  assert.deepEqual([...run('-'.repeat(201) + 'b1', [5, -6])], [-5, 6]);
});

test('min/max fold one argument at a time: 15,000 arguments need a stack of two', () => {
  const vals = Array.from({ length: 15_000 }, (_, i) => `${(i * 7919) % 30011}`);
  const src = `min(${vals.join(',')}, b1)`;
  const p = compileExpr(src, 1);
  assert.ok(p.maxStack <= 2, `stack ${p.maxStack}`);
  const want = Math.min(...vals.map(Number));
  assert.deepEqual([...evalProgram(p, new Map([[1, Float32Array.from([1e9, -4])]]), 2)], [want, -4]);
  assert.equal(compileExpr(`max(b1,${'b1,'.repeat(20_000)}b1)`, 1).maxStack, 2);
});

test('expressions longer than the limit, huge numbers and odd characters are refused by name', () => {
  assert.throws(() => compileExpr(`min(${'b1,'.repeat(40_000)}b1)`, 1), /expression is 120007 characters long; at most 100000/);
  assert.throws(() => compileExpr('b1 * 1e999', 1), /number 1e999 at position 6 is too large/);
  assert.throws(() => compileExpr('b1 + \u{1F600}', 1), /unexpected character "\u{1F600}" at position 6/u);
  assert.throws(() => compileExpr('b1 +\u0000 b1', 1), /unexpected character "\\u0000" at position 5/);
  assert.throws(() => compileExpr('ｂ1', 1), /unexpected character "ｂ" at position 1/);
});

test('the compiled evaluator agrees with a direct evaluation on 300 random expressions', () => {
  const rnd = mulberry32(11);
  const pick = <T>(a: T[]): T => a[Math.floor(rnd() * a.length)];
  type Node = { s: string; f: (x: number, y: number) => number };
  const nan = (a: number, b: number) => a !== a || b !== b;
  const bin: Record<string, (a: number, b: number) => number> = {
    '+': (a, b) => a + b, '-': (a, b) => a - b, '*': (a, b) => a * b, '/': (a, b) => (b === 0 ? NaN : a / b),
    '<': (a, b) => (nan(a, b) ? NaN : a < b ? 1 : 0), '>=': (a, b) => (nan(a, b) ? NaN : a >= b ? 1 : 0),
    '==': (a, b) => (nan(a, b) ? NaN : a === b ? 1 : 0), '&&': (a, b) => (nan(a, b) ? NaN : a && b ? 1 : 0),
  };
  const gen = (d: number): Node => {
    const r = rnd();
    if (d <= 0 || r < 0.25) {
      const leaf = pick(['b1', 'b2', '2', '0.5', '0']);
      return { s: leaf, f: (x, y) => (leaf === 'b1' ? x : leaf === 'b2' ? y : Number(leaf)) };
    }
    if (r < 0.35) { const a = gen(d - 1); return { s: `abs(${a.s})`, f: (x, y) => Math.abs(a.f(x, y)) }; }
    if (r < 0.42) { const a = gen(d - 1); return { s: `sqrt(${a.s})`, f: (x, y) => { const v = a.f(x, y); return v < 0 ? NaN : Math.sqrt(v); } }; }
    if (r < 0.5) { const a = gen(d - 1); return { s: `-(${a.s})`, f: (x, y) => -a.f(x, y) }; }
    if (r < 0.6) {
      const args = Array.from({ length: 2 + Math.floor(rnd() * 3) }, () => gen(d - 1));
      const fn = pick(['min', 'max']);
      return { s: `${fn}(${args.map((a) => a.s).join(', ')})`, f: (x, y) => args.map((a) => a.f(x, y)).reduce((m, v) => (m !== m || v !== v ? NaN : fn === 'min' ? Math.min(m, v) : Math.max(m, v))) };
    }
    const op = pick(Object.keys(bin));
    const a = gen(d - 1), b = gen(d - 1);
    return { s: `(${a.s}) ${op} (${b.s})`, f: (x, y) => bin[op](a.f(x, y), b.f(x, y)) };
  };
  const b1 = [0, 1, -2, 3.5, NaN, 100, -0.25], b2 = [1, 0, 4, NaN, 2, -100, 8];
  for (let k = 0; k < 300; k++) {
    const e = gen(5);
    const got = run(e.s, b1, b2);
    b1.forEach((x, i) => {
      const want = e.f(Math.fround(x), Math.fround(b2[i]));
      assert.ok(Object.is(got[i], want) || (got[i] === want), `${e.s} at (${x}, ${b2[i]}): got ${got[i]}, want ${want}`);
    });
  }
});

test('band_math: a 10,000-term expression runs; too deep a one names the argument and leaves no file', async () => {
  const dir = tmpDir();
  const src = path.join(dir, 'two.tif');
  const w = 40, h = 30;
  const b1 = Float32Array.from({ length: w * h }, (_, i) => (i % 17) - 8);
  await writeRaster(src, { width: w, height: h, bands: 1, dtype: 'float32', geo: GEO, nodata: null }, [b1]);
  const out = path.join(dir, 'out');
  const r = await runTool('band_math', { image: src, expression: Array(10_000).fill('b1').join(' + ') }, { outDir: out });
  const ds = await openRaster(r.outputs.result.path);
  try {
    const got = await ds.readWindow(1, 0, 0, w, h);
    for (let i = 0; i < w * h; i++) assert.equal(got[i], b1[i] * 10_000);
  } finally { await ds.close(); }
  const bad = path.join(dir, 'bad');
  await assert.rejects(() => runTool('band_math', { image: src, expression: '('.repeat(5000) + 'b1' + ')'.repeat(5000) }, { outDir: bad }),
    /band_math: argument "expression": expression nests deeper than 256 levels.* in "\({80}… \(10002 characters\)"/);
  assert.deepEqual(fs.existsSync(bad) ? fs.readdirSync(bad) : [], []);
});

test('band_math: min over 30,000 arguments on 160×160 stays under 300 MB (child process)', async () => {
  const dir = tmpDir();
  const src = path.join(dir, 'img.tif');
  const n = 160;
  await writeRaster(src, { width: n, height: n, bands: 1, dtype: 'float32', geo: GEO, nodata: null }, [Float32Array.from({ length: n * n }, (_, i) => i % 1000)]);
  const expr = `min(${'b1,'.repeat(29_999)}b1 - 1)`;
  const engine = path.resolve(__dirname, '../../src/core/raster/engine.js');
  const script = `
    const { runTool } = require(${JSON.stringify(engine)});
    runTool('band_math', { image: ${JSON.stringify(src)}, expression: process.argv[1] }, { outDir: ${JSON.stringify(path.join(dir, 'out'))} })
      .then((r) => { console.log(JSON.stringify({ rss: process.resourceUsage().maxRSS * 1024, min: r.stats.min, max: r.stats.max })); })
      .catch((e) => { console.error(e.message); process.exit(1); });`;
  const res = spawnSync(process.execPath, ['-e', script, expr], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, GEOWEAVE_WORKERS: '0' } });
  assert.equal(res.status, 0, res.stderr || String(res.error));
  const r = JSON.parse(res.stdout);
  assert.equal(r.min, -1);
  assert.equal(r.max, 998);
  assert.ok(r.rss < 300 * 2 ** 20, `peak RSS ${(r.rss / 2 ** 20).toFixed(0)} MB`);
});
