/** Export: the bash script and the Jupyter notebook are run for real on a fresh copy of the sample
 *  data and their outputs compared with the notebook's own run, with GDAL (python osgeo + numpy). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { writeSampleWorkspace } from '../../src/core/raster/sample/generate';
import { runNotebook } from '../../src/core/notebook/run-notebook';
import { serializeNotebook } from '../../src/core/notebook/notebook-file';
import { runFromMetadata } from '../../src/core/notebook/session';
import { exportShell, exportIpynb, exportSteps, shellQuote, ExportError } from '../../src/core/notebook/export';
import { main } from '../../src/cli/main';
import { gdalSkip, pyJson, tmpDir, PY } from '../helpers/raster-gdal';
import type { NotebookRecord } from '../../src/core/notebook/types';

const skip = gdalSkip('export runs compared with GDAL');
const ROOT = path.join(__dirname, '..', '..', '..');
const INPUTS = ['s2_scene.tif', 'fire_pre.tif', 'fire_post.tif', 'dem.tif'];
/** A file name that needs quoting: a space, a quote and a dollar sign. */
const ODD = "my dem's $HOME.tif";

function notebook(): NotebookRecord {
  return {
    metadata: { memory: { task: 'Dense vegetation and the burn: how much, and how bad?', trace: [], windowSize: 5 } },
    cells: [
      { kind: 'markdown', source: '# Vegetation and fire' },
      { kind: 'tool', source: 'ndvi\nimage: s2_scene.tif\nsensor: sentinel2_l2a\nred: 3\nnir: 5', metadata: { cellId: 'a1' } },
      { kind: 'tool', source: 'threshold as dense\nimage: $ndvi.index\nop: gt\nvalue: 0.6', metadata: { cellId: 'b2' } },
      { kind: 'tool', source: 'dnbr\npre: fire_pre.tif\npost: fire_post.tif\nnir: 5\nswir2: 7', metadata: { cellId: 'c3' } },
      { kind: 'tool', source: 'burn_severity\nimage: $dnbr.dnbr', metadata: { cellId: 'd4' } },
      { kind: 'tool', source: `slope\ndem: ${JSON.stringify(ODD)}`, metadata: { cellId: 'e5' } },
    ],
  };
}

/** A `geoweave` on PATH: this checkout's CLI, as an installed package provides it. */
function shimPath(): string {
  const bin = tmpDir('gw-bin-');
  fs.symlinkSync(path.join(ROOT, 'bin', 'geoweave.js'), path.join(bin, 'geoweave'));
  return `${bin}${path.delimiter}${process.env.PATH}`;
}

/** A fresh folder with copies of the input files only (no outputs). */
function freshCopy(from: string): string {
  const d = tmpDir('gw-fresh-');
  for (const f of [...INPUTS, ODD]) fs.copyFileSync(path.join(from, f), path.join(d, f));
  return d;
}

let made: { dir: string; nb: NotebookRecord; file: string } | undefined;
async function notebookRun(): Promise<{ dir: string; nb: NotebookRecord; file: string }> {
  if (made) return made;
  const dir = tmpDir('gw-export-');
  await writeSampleWorkspace(dir);
  fs.copyFileSync(path.join(dir, 'dem.tif'), path.join(dir, ODD));
  const file = path.join(dir, 'analysis.geonb');
  const nb = await runNotebook(notebook(), { notebookFile: file, workspace: dir, now: () => '2026-01-01T00:00:00.000Z' });
  fs.writeFileSync(file, serializeNotebook(nb));
  return (made = { dir, nb, file });
}

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '', err = '';
  const code = await main(argv, { out: (t) => { out += t + '\n'; }, err: (t) => { err += t + '\n'; } });
  return { code, out, err };
}

/** Output files of the notebook's run, relative to the output root. */
function outputsOf(nb: NotebookRecord, root: string): string[] {
  return nb.cells.flatMap((c) => Object.values(runFromMetadata(c.metadata)?.outputs ?? {}).map((o) => path.relative(root, o.path)));
}

/** Per file: max |a - b| over valid pixels, whether the nodata masks agree, same grid and type. */
function compare(a: string, b: string): { maxDiff: number; sameMask: boolean; sameGrid: boolean; sameType: boolean; valid: number } {
  return pyJson(`
import json, sys, numpy as np
from osgeo import gdal
def load(p):
    d = gdal.Open(p); b = d.GetRasterBand(1)
    a = b.ReadAsArray().astype(np.float64); nd = b.GetNoDataValue()
    m = np.isnan(a) if nd is None else (a == (np.float32(nd) if b.DataType == gdal.GDT_Float32 else nd)) | np.isnan(a)
    return d, b, a, m
da, ba, a, ma = load(sys.argv[1]); db, bb, b, mb = load(sys.argv[2])
ok = ~ma & ~mb
print(json.dumps({'maxDiff': float(np.max(np.abs(a[ok] - b[ok]))) if ok.any() else 0.0, 'sameMask': bool((ma == mb).all()),
  'sameGrid': da.GetGeoTransform() == db.GetGeoTransform() and da.RasterXSize == db.RasterXSize and da.RasterYSize == db.RasterYSize,
  'sameType': ba.DataType == bb.DataType and ba.GetNoDataValue() == bb.GetNoDataValue(), 'valid': int(ok.sum())}))`, a, b);
}

test('export sh: the script re-runs the notebook on a fresh copy of the data, and its outputs equal the notebook run\'s', { skip }, async () => {
  const { dir, nb, file } = await notebookRun();
  const script = path.join(dir, 'analysis.sh');
  const r = await cli('export', file, '--to', 'sh', '--out', script);
  assert.equal(r.code, 0, r.err);
  const text = fs.readFileSync(script, 'utf8');
  assert.equal(fs.statSync(script).mode & 0o111, 0o111, 'executable');
  assert.match(text, /^#!\/usr\/bin\/env bash\n/);
  assert.ok(text.includes('\nset -euo pipefail\n'));
  assert.ok(text.includes('# Task: Dense vegetation and the burn: how much, and how bad?'));
  const calls = text.split('\n').filter((l) => l.startsWith('geoweave run '));
  assert.deepEqual(calls, [
    'geoweave run ndvi --arg image=s2_scene.tif --arg sensor=sentinel2_l2a --arg red=3 --arg nir=5 --out "$OUT"/analysis/ndvi-a1',
    'geoweave run threshold --arg image="$OUT"/analysis/dense/s2_scene_ndvi.tif --arg op=gt --arg value=0.6 --out "$OUT"/analysis/dense',
    'geoweave run dnbr --arg pre=fire_pre.tif --arg post=fire_post.tif --arg nir=5 --arg swir2=7 --out "$OUT"/analysis/dnbr-c3',
    'geoweave run burn_severity --arg image="$OUT"/analysis/dnbr-c3/fire_pre_dnbr.tif --out "$OUT"/analysis/burn_severity-d4',
    `geoweave run slope --arg 'dem=my dem'\\''s $HOME.tif' --out "$OUT"/analysis/slope-e5`,
  ].map((l, i) => (i === 1 ? l.replace('analysis/dense/s2_scene_ndvi', 'analysis/ndvi-a1/s2_scene_ndvi') : l)));
  // The same text from the core function (the CLI adds nothing) and on every export (deterministic).
  assert.equal(exportShell(nb, { notebookFile: file, workspace: dir, geoweaveVersion: JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version }), text);

  const fresh = freshCopy(dir);
  const run = spawnSync('bash', [script], { encoding: 'utf8', env: { ...process.env, PATH: shimPath(), GEOWEAVE_WORKSPACE: fresh } });
  assert.equal(run.status, 0, run.stderr);
  const root = path.join(dir, '.geoweave', 'outputs');
  const files = outputsOf(nb, root);
  assert.equal(files.length, 5);
  for (const f of files) {
    const c = compare(path.join(root, f), path.join(fresh, '.geoweave', 'outputs', f));
    assert.ok(c.valid > 1000, `${f}: has valid pixels`);
    assert.deepEqual({ ...c, valid: 0 }, { maxDiff: 0, sameMask: true, sameGrid: true, sameType: true, valid: 0 }, f);
  }
  // A failing step stops the script (set -e): a missing input ends it with the tool's message.
  fs.rmSync(path.join(fresh, 'fire_pre.tif'));
  const broken = spawnSync('bash', [script], { encoding: 'utf8', env: { ...process.env, PATH: shimPath(), GEOWEAVE_WORKSPACE: fresh, GEOWEAVE_OUT: 'again' } });
  assert.notEqual(broken.status, 0);
  assert.match(broken.stderr, /fire_pre\.tif/);
  assert.ok(!fs.existsSync(path.join(fresh, 'again', 'analysis', 'burn_severity-d4')), 'no step after the failed one ran');
});

/** Runs the exported notebook's code cells with plain python3: `!` lines become subprocess calls. */
function runIpynbCells(ipynb: string, workspace: string): { status: number | null; stdout: string; stderr: string } {
  const script = `
import json, os, subprocess, sys
nb = json.load(open(sys.argv[1]))
src = []
for c in nb['cells']:
    if c['cell_type'] != 'code': continue
    for line in ''.join(c['source']).split('\\n'):
        if line.lstrip().startswith('!'):
            indent = line[:len(line) - len(line.lstrip())]
            line = indent + 'subprocess.run(%r, shell=True, check=True, executable="/bin/bash", env={**os.environ, "OUT": OUT})' % line.lstrip()[1:]
        src.append(line)
exec(compile('\\n'.join(src), 'exported', 'exec'), {'__name__': '__main__'})
`;
  return spawnSync(PY, ['-c', script, ipynb], { encoding: 'utf8', env: { ...process.env, PATH: shimPath(), GEOWEAVE_WORKSPACE: workspace } });
}

test('export ipynb: a valid nbformat 4 notebook; its numpy + GDAL cells and CLI calls reproduce the notebook run', { skip: skip || nbformatMissing() }, async () => {
  const { dir, nb, file } = await notebookRun();
  const out = path.join(dir, 'analysis.ipynb');
  const r = await cli('export', file, '--to', 'ipynb', '--out', out);
  assert.equal(r.code, 0, r.err);
  const check = spawnSync(PY, ['-c', 'import sys, nbformat; nb = nbformat.read(sys.argv[1], as_version=4); nbformat.validate(nb); print(nb.nbformat, len(nb.cells))', out], { encoding: 'utf8' });
  assert.equal(check.status, 0, check.stderr);
  const doc = JSON.parse(fs.readFileSync(out, 'utf8'));
  const code = doc.cells.filter((c: { cell_type: string }) => c.cell_type === 'code').map((c: { source: string[] }) => c.source.join(''));
  const mdText = doc.cells.filter((c: { cell_type: string }) => c.cell_type === 'markdown').map((c: { source: string[] }) => c.source.join('')).join('\n');
  assert.ok(mdText.includes('**Task:** Dense vegetation and the burn: how much, and how bad?'));
  assert.ok(mdText.includes(runFromMetadata(nb.cells[1].metadata)!.summary), 'cell summaries are markdown');
  // ndvi, threshold and dnbr are numpy + GDAL; burn_severity and slope call the CLI.
  assert.equal(code.length, 6);
  assert.match(code[1], /^# ndvi: /);
  assert.match(code[2], /^# threshold: /);
  assert.match(code[3], /^# dnbr: /);
  assert.match(code[4], /^!geoweave run burn_severity --arg image="\$OUT"\/analysis\/dnbr-c3\/fire_pre_dnbr\.tif --out "\$OUT"\/analysis\/burn_severity-d4$/);
  assert.match(code[5], /^!geoweave run slope /);
  assert.ok(!code.slice(1, 4).some((c: string) => c.includes('geoweave')), 'translated cells do not call GeoWeave');

  const fresh = freshCopy(dir);
  const run = runIpynbCells(out, fresh);
  assert.equal(run.status, 0, run.stderr);
  const root = path.join(dir, '.geoweave', 'outputs');
  for (const f of outputsOf(nb, root)) {
    const c = compare(path.join(root, f), path.join(fresh, '.geoweave', 'outputs', f));
    assert.ok(c.valid > 1000, `${f}: has valid pixels`);
    assert.ok(c.sameMask && c.sameGrid && c.sameType, `${f}: ${JSON.stringify(c)}`);
    // The ratios are computed in float64 by numpy; sensor scaling cancels out up to float32 rounding.
    assert.ok(c.maxDiff <= 1e-6, `${f}: values differ by ${c.maxDiff}`);
  }
  assert.equal(exportIpynb(nb, { notebookFile: file, workspace: dir, geoweaveVersion: JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version }), fs.readFileSync(out, 'utf8'));
});

function nbformatMissing(): string | false {
  if (spawnSync(PY, ['-c', 'import nbformat']).status === 0) return false;
  if (process.env.CI) throw new Error('python3-nbformat is required in CI');
  return 'python3-nbformat is not installed';
}

test('references need the earlier cell\'s run; values that need quoting survive bash', () => {
  const nb: NotebookRecord = { metadata: {}, cells: [
    { kind: 'tool', source: 'ndvi\nimage: a.tif' },
    { kind: 'tool', source: 'threshold\nimage: $ndvi.index\nop: gt\nvalue: 0.2' },
  ] };
  const opts = { notebookFile: '/w/n.geonb', workspace: '/w' };
  assert.throws(() => exportShell(nb, opts), (e: Error) => e instanceof ExportError && /\$ndvi\.index names a file the notebook has not made yet .*run the notebook once before exporting/.test(e.message));
  assert.throws(() => exportShell({ metadata: {}, cells: [{ kind: 'tool', source: 'slope\ndem: $nope.x' }] }, opts), /no earlier cell is named "nope"/);
  nb.cells[0].metadata = { lastRun: { ok: true, tool: 'ndvi', summary: 's', time: 't', outputs: { index: { path: '/w/.geoweave/outputs/n/ndvi-cell1/a_ndvi.tif', type: 'raster' } } } };
  nb.cells.push({ kind: 'tool', source: 'zonal_stats\nimage: [$ndvi.index, "it\'s $x `y`.tif"]\nzones: "a\\nb"' });
  const steps = exportSteps(nb, opts);
  assert.equal(steps[1].outDir, 'n/threshold-cell2');
  const sh = exportShell(nb, opts);
  // A value with a newline spans two lines of the script, inside its quotes.
  const line = /^geoweave run zonal_stats[\s\S]*?--out \S+$/m.exec(sh)![0];
  // bash reads each --arg back as exactly the text the CLI should get.
  const echo = spawnSync('bash', ['-c', `OUT=/o; geoweave() { shift; printf '%s\\0' "$@"; }; ${line}`], { encoding: 'utf8' });
  assert.equal(echo.status, 0, echo.stderr);
  assert.deepEqual(echo.stdout.split('\0').slice(0, -1), ['zonal_stats', '--arg', 'image=["/o/n/ndvi-cell1/a_ndvi.tif","it\'s $x `y`.tif"]', '--arg', 'zones=a\nb', '--out', '/o/n/zonal_stats-cell3']);
  assert.equal(shellQuote('a b'), "'a b'");
  assert.equal(shellQuote("it's"), "'it'\\''s'");
  assert.equal(shellQuote('plain/path-1.tif'), 'plain/path-1.tif');
  assert.equal(shellQuote(''), "''");
  assert.ok(sh.includes('cd -- "${GEOWEAVE_WORKSPACE:-/w}"'));
});

test('only exact translations are written as python: ndvi without band numbers or with an offset preset calls the CLI', () => {
  const ran = (tool: string, file: string) => ({ lastRun: { ok: true, tool, summary: 's', time: 't', outputs: { [tool === 'ndvi' ? 'index' : 'dnbr']: { path: `/w/.geoweave/outputs/n/x/${file}`, type: 'raster' } } } });
  const nb: NotebookRecord = { metadata: {}, cells: [
    { kind: 'tool', source: 'ndvi\nimage: a.tif', metadata: ran('ndvi', 'a_ndvi.tif') },
    { kind: 'tool', source: 'ndvi as l8\nimage: l8.tif\nsensor: landsat89_c2l2\nred: 4\nnir: 5', metadata: ran('ndvi', 'l8_ndvi.tif') },
    { kind: 'tool', source: 'ndvi as s2\nimage: s2.tif\nred: 3\nnir: 5', metadata: ran('ndvi', 's2_ndvi.tif') },
    { kind: 'tool', source: 'dnbr\npre: {nir: a.tif, swir2: b.tif}\npost: c.tif\nnir: 1\nswir2: 2', metadata: ran('dnbr', 'd.tif') },
  ] };
  const doc = JSON.parse(exportIpynb(nb, { notebookFile: '/w/n.geonb', workspace: '/w' }));
  const code = doc.cells.filter((c: { cell_type: string }) => c.cell_type === 'code').map((c: { source: string[] }) => c.source.join(''));
  assert.match(code[1], /^!geoweave run ndvi --arg image=a\.tif --out "\$OUT"\/n\/ndvi-cell1$/);
  assert.match(code[2], /^!geoweave run ndvi --arg image=l8\.tif --arg sensor=landsat89_c2l2 /);
  assert.match(code[3], /^# ndvi: [\s\S]*_write\(os\.path\.join\(OUT, "n\/s2\/s2_ndvi\.tif"\)/);
  assert.match(code[4], /^!geoweave run dnbr --arg 'pre=\{"nir":"a\.tif","swir2":"b\.tif"\}'/);
  assert.equal(doc.nbformat, 4);
  assert.deepEqual(doc.cells.map((c: { id: string }) => c.id), doc.cells.map((_: unknown, i: number) => `geoweave-${i}`));
});

test('geoweave export: usage errors, unreadable notebooks, printing to stdout', async () => {
  const dir = tmpDir('gw-export-cli-');
  const file = path.join(dir, 'n.geonb');
  fs.writeFileSync(file, serializeNotebook({ metadata: {}, cells: [{ kind: 'tool', source: 'slope\ndem: dem.tif' }] }));
  assert.equal((await cli('export')).code, 2);
  const bad = await cli('export', file, '--to', 'pdf');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--to must be sh or ipynb, got "pdf"/);
  const out = await cli('export', file, '--to', 'sh');
  assert.equal(out.code, 0);
  assert.match(out.out, /\ngeoweave run slope --arg dem=dem\.tif --out "\$OUT"\/n\/slope-cell1\n$/);
  fs.writeFileSync(path.join(dir, 'broken.geonb'), '{"nbformat": 4}');
  const broken = await cli('export', path.join(dir, 'broken.geonb'), '--to', 'sh');
  assert.equal(broken.code, 1);
  assert.match(broken.err, /it is a Jupyter notebook/);
  fs.writeFileSync(path.join(dir, 'ref.geonb'), serializeNotebook({ metadata: {}, cells: [{ kind: 'tool', source: 'ndvi\nimage: a.tif' }, { kind: 'tool', source: 'slope\ndem: $ndvi.index' }] }));
  const ref = await cli('export', path.join(dir, 'ref.geonb'), '--to', 'sh', '--out', path.join(dir, 'ref.sh'));
  assert.equal(ref.code, 1);
  assert.match(ref.err, /run the notebook once before exporting/);
  assert.ok(!fs.existsSync(path.join(dir, 'ref.sh')), 'nothing written when the export fails');
});
