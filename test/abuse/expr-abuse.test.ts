/**
 * Hostile band_math expressions: deep, long, malformed, unicode, injection-shaped. Each runs through
 * the tool in a child process. A well-formed one must give the values a direct evaluation gives
 * (read back from the output); anything else must fail naming the argument "expression" with
 * nothing left behind, in bounded time and memory.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Tally } from './tally';
import { TrialRunner, judge, emptyDir, fingerprint, TrialResult } from './harness';
import { writeRaster } from '../../src/core/raster/io/writer';
import { openRaster } from '../../src/core/raster/io/dataset';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';

type GT = [number, number, number, number, number, number];
const W = 24, H = 16;
const B1 = Float32Array.from({ length: W * H }, (_, i) => (i % 7) - 3);
const B2 = Float32Array.from({ length: W * H }, (_, i) => ((i * 5) % 11) * 0.5);
const B3 = Float32Array.from({ length: W * H }, (_, i) => (i % 5 === 0 ? NaN : i / 10));

/** A generated expression with its own evaluator (the reference). */
interface Gen { s: string; f: (x: number[]) => number }
const nan2 = (a: number, b: number) => a !== a || b !== b;
const BIN: Record<string, (a: number, b: number) => number> = {
  '+': (a, b) => a + b, '-': (a, b) => a - b, '*': (a, b) => a * b, '/': (a, b) => (b === 0 ? NaN : a / b),
  '<': (a, b) => (nan2(a, b) ? NaN : a < b ? 1 : 0), '<=': (a, b) => (nan2(a, b) ? NaN : a <= b ? 1 : 0),
  '>': (a, b) => (nan2(a, b) ? NaN : a > b ? 1 : 0), '>=': (a, b) => (nan2(a, b) ? NaN : a >= b ? 1 : 0),
  '==': (a, b) => (nan2(a, b) ? NaN : a === b ? 1 : 0), '!=': (a, b) => (nan2(a, b) ? NaN : a !== b ? 1 : 0),
  '&&': (a, b) => (nan2(a, b) ? NaN : a && b ? 1 : 0), '||': (a, b) => (nan2(a, b) ? NaN : a || b ? 1 : 0),
};

function generator(seed: number) {
  const rnd = mulberry32(seed);
  const pick = <T>(a: T[]): T => a[Math.floor(rnd() * a.length)];
  const gen = (d: number): Gen => {
    const r = rnd();
    if (d <= 0 || r < 0.2) {
      if (rnd() < 0.6) { const b = 1 + Math.floor(rnd() * 3); return { s: pick([`b${b}`, `B${b}`, `b0${b}`]), f: (x) => x[b - 1] }; }
      const v = pick(['0', '1', '2.5', '.5', '1e3', '3E-2', '007']);
      return { s: v, f: () => Number(v) };
    }
    if (r < 0.3) { const a = gen(d - 1); return { s: `abs(${a.s})`, f: (x) => Math.abs(a.f(x)) }; }
    if (r < 0.36) { const a = gen(d - 1); return { s: `SQRT( ${a.s} )`, f: (x) => { const v = a.f(x); return v < 0 ? NaN : Math.sqrt(v); } }; }
    if (r < 0.44) { const a = gen(d - 1); return { s: `-(${a.s})`, f: (x) => -a.f(x) }; }
    if (r < 0.54) {
      const args = Array.from({ length: 2 + Math.floor(rnd() * 4) }, () => gen(d - 1));
      const fn = pick(['min', 'max', 'Min', 'MAX']);
      const lo = fn.toLowerCase() === 'min';
      return { s: `${fn}(${args.map((a) => a.s).join(rnd() < 0.5 ? ',' : ' , ')})`, f: (x) => args.map((a) => a.f(x)).reduce((m, v) => (m !== m || v !== v ? NaN : lo ? Math.min(m, v) : Math.max(m, v))) };
    }
    const op = pick(Object.keys(BIN));
    const a = gen(d - 1), b = gen(d - 1);
    return { s: `(${a.s})${pick(['', ' ', '\t'])}${op}${pick(['', ' ', '\n'])}(${b.s})`, f: (x) => BIN[op](a.f(x), b.f(x)) };
  };
  return { gen, rnd, pick };
}

/** Expressions that must be refused, by family. */
function hostile(seed: number): [string, string, boolean][] {
  const { gen, rnd, pick } = generator(seed);
  const out: [string, string, boolean][] = [];
  const bad = (label: string, s: string) => out.push([label, s, true]);
  const maybe = (label: string, s: string) => out.push([label, s, false]);
  // Deep: past the nesting limit in every way of nesting.
  for (const n of [257, 1000, 5000, 20000]) {
    bad(`${n} parentheses`, '('.repeat(n) + 'b1' + ')'.repeat(n));
    bad(`${n} abs()`, 'abs('.repeat(n) + 'b1' + ')'.repeat(n));
    bad(`${n} signs`, '-'.repeat(n) + 'b1');
    bad(`${n} nested min`, 'min(b1,'.repeat(n) + 'b2' + ')'.repeat(n));
  }
  bad('unclosed 100000 parentheses', '('.repeat(100_000));
  // Long: past the length limit.
  bad('min of 40000 bands (120 kB)', `min(${'b1,'.repeat(40_000)}b1)`);
  bad('150000 characters of spaces and one band', ' '.repeat(150_000) + 'b1');
  bad('a 1 MB number', '1'.repeat(1 << 20));
  // Malformed.
  for (const s of ['', '   ', '\n\t', '+', '-', '()', '(b1', 'b1)', 'b1 +', '* b1', 'b1 b2', 'b1,b2', 'min()', 'min(b1)', 'abs(b1,b2)', 'sqrt()',
    'b0', 'b4', 'b-1', 'b1.5', 'bb1', '1..2', '.e5', '1e', '0x10', '1e999', '-1e999 + b1', 'b1 === b2', 'b1 = 2', 'b1 ! b2', 'b1 & b2', 'b1 | b2', 'b1 ** 2',
    'b1 ^ 2', 'b1 % 2', 'b1 ? 1 : 0', 'min b1', 'abs', 'b99999999999999999999', 'b1 +* b2', '((b1)', 'max(,)', 'min(b1,,b2)']) bad(`malformed ${JSON.stringify(s)}`, s);
  // Injection-shaped.
  for (const s of ['process.exit(1)', 'require("fs")', 'constructor', '__proto__', 'this', 'globalThis', 'b1; rm -rf /', '`b1`', '${b1}', 'eval("1")',
    'b1.constructor', 'toString()', 'b1 // comment', '/* x */ b1', 'new Function("return 1")', 'import("fs")', 'b1[0]', 'b1.valueOf']) bad(`injection ${JSON.stringify(s)}`, s);
  // Unicode.
  for (const s of ['b1 + \u{1F600}', 'ｂ１', 'b１', 'b1 \u2212 b2', 'b1 \u00d7 b2', '\u200bb1', 'b1\u200d', '\u202eb1 + b2', 'b\u0301' + '1', '\ud800 + b1', 'b1 + \udc00', 'b1\u0000',
    '١ + b1', 'b1 + ½', 'β1', 'b1 + ∞', 'min（b1, b2）', '\ufeffb1 +']) bad(`unicode ${JSON.stringify(s)}`, s);
  // Random token soup.
  const toks = ['b1', 'b2', '3', '(', ')', '+', '-', '*', '/', ',', 'min', 'abs', '<', '&&', '.', 'e', '||', '==', ' '];
  for (let k = 0; k < 60; k++) {
    const s = Array.from({ length: 1 + Math.floor(rnd() * 12) }, () => pick(toks)).join('');
    maybe(`soup ${JSON.stringify(s)}`, s);
  }
  // Valid expressions cut short or with one character swapped.
  for (let k = 0; k < 40; k++) {
    const e = gen(4).s;
    const cut = e.slice(0, Math.max(1, Math.floor(rnd() * e.length)));
    maybe(`cut ${JSON.stringify(cut)}`, cut);
  }
  return out;
}

test('expression abuse: deep, long, malformed, unicode and injection-shaped band_math expressions', { timeout: 600_000 }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-abuse-expr-'));
  const inDir = path.join(root, 'in'), outDir = path.join(root, 'out');
  fs.mkdirSync(inDir);
  const image = path.join(inDir, 'three.tif');
  await writeRaster(image, { width: W, height: H, bands: 3, dtype: 'float32', geo: { geoTransform: [0, 1, 0, 0, 0, -1] as GT, epsg: 32650, geographic: false }, nodata: null, blockSize: 16 }, [B1, B2, B3]);
  const inBefore = fingerprint(inDir);
  const tally = new Tally();
  const runner = new TrialRunner(Number(process.env.GEOWEAVE_ABUSE_TIMEOUT_MS) || 20_000);
  let accepted = 0, refused = 0;
  const run = (expression: string) => { emptyDir(outDir); return runner.run({ kind: 'runTool', tool: 'band_math', args: { image, expression }, outDir }); };
  const common = { outDir, frozen: [{ dir: inDir, before: inBefore }], tempRoots: [root] };
  try {
    // Well-formed: the output must hold the reference values (float32, NaN where not finite).
    const { gen } = generator(20261201);
    const valid: Gen[] = [];
    for (let k = 0; k < 250; k++) valid.push(gen(1 + (k % 6)));
    for (const n of [10, 1000, 10_000]) valid.push({ s: Array(n).fill('b1').join('+'), f: (x) => n * x[0] });
    for (const n of [200, 256]) {
      valid.push({ s: '('.repeat(n - 1) + 'b2' + ')'.repeat(n - 1), f: (x) => x[1] });
      valid.push({ s: 'abs('.repeat(n) + 'b1' + ')'.repeat(n), f: (x) => Math.abs(x[0]) });
      valid.push({ s: '-'.repeat(n) + 'b1', f: (x) => (n % 2 ? -x[0] : x[0]) });
    }
    valid.push({ s: `max(${'b2,'.repeat(20_000)}b1)`, f: (x) => Math.max(x[1], x[0]) });
    valid.push({ s: `min(${Array.from({ length: 5000 }, (_, i) => `${i % 97}`).join(',')}, b1 + 100)`, f: (x) => Math.min(0, x[0] + 100) });
    for (const g of valid) {
      const r = await run(g.s);
      if (r.status === 'ok') accepted++; else refused++;
      const problem = r.status === 'ok' ? await checkValues(r, g) : null;
      judge(tally, 'expressions', g.s.length > 60 ? `${g.s.slice(0, 60)}… (${g.s.length} chars)` : g.s, r, {
        ...common, names: ['"expression"'], check: () => problem,
      });
    }
    // Hostile ones must be refused; random soups and cut expressions may happen to be valid.
    for (const [label, s, mustFail] of hostile(4242)) {
      const r = await run(s);
      if (r.status === 'ok') accepted++; else refused++;
      judge(tally, 'expressions', label.length > 80 ? `${label.slice(0, 80)}…` : label, r, { ...common, names: ['argument "expression"'], mustFail });
    }
  } finally {
    runner.close();
    console.log(tally.summary());
    console.log(`expressions: ${accepted} accepted (values checked), ${refused} refused`);
    const fails = tally.failures();
    if (fails.length) console.log(fails.slice(0, 20).map((f) => `${f.outcome}: ${f.input}: ${f.detail}`).join('\n'));
  }
  assert.ok(tally.trials.length >= 400, `only ${tally.trials.length} trials`);
  assert.deepEqual(tally.failures().map((f) => `${f.outcome}: ${f.input}: ${f.detail}`), []);
  fs.rmSync(root, { recursive: true, force: true });
});

/** Compares the output raster with the reference evaluation, pixel by pixel (float32, NaN where not finite). */
async function checkValues(r: TrialResult, g: Gen): Promise<string | null> {
  const file = Object.values(r.result?.outputs ?? {})[0]?.path;
  if (!file) return 'no output';
  const ds = await openRaster(file);
  try {
    const got = await ds.readWindow(1, 0, 0, W, H);
    for (let i = 0; i < W * H; i++) {
      let want = Math.fround(g.f([B1[i], B2[i], B3[i]]));
      if (!Number.isFinite(want)) want = NaN;
      const v = got[i];
      if (!(Object.is(v, want) || v === want)) return `pixel ${i}: ${v}, expected ${want}`;
    }
    return null;
  } finally { await ds.close(); }
}
