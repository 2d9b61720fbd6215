/**
 * Hostile tool arguments: paths with "..", links and odd files, links planted in the output folder,
 * values that look like options (builtin tools and process runners), prototype keys as argument
 * names, role names, tool ids and values, wrong types and extreme numbers. A trial passes when the
 * tool succeeds writing only its outputs into the output folder, or fails naming the argument (or
 * the file), with nothing written outside, nothing left behind and no prototype changed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Tally } from './tally';
import { TrialRunner, judge, emptyDir, fingerprint, listTree, Op, Expect, TrialResult } from './harness';
import { writeRaster } from '../../src/core/raster/io/writer';

type GT = [number, number, number, number, number, number];
const GEO = { geoTransform: [500000, 10, 0, 4430000, 0, -10] as GT, epsg: 32650, geographic: false };
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', 'isPrototypeOf', 'then'];

test('argument abuse: paths, planted links, option-like values, prototype keys, wrong types', { timeout: 600_000 }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-abuse-args-'));
  const ws = path.join(root, 'ws'), outDir = path.join(ws, 'out'), outside = path.join(root, 'outside');
  fs.mkdirSync(ws); fs.mkdirSync(outside);
  const img = path.join(ws, 'img.tif');
  const bands = [Float32Array.from({ length: 32 * 24 }, (_, i) => 500 + (i % 32) * 10), Float32Array.from({ length: 32 * 24 }, (_, i) => 2000 + (i % 24) * 40)];
  await writeRaster(img, { width: 32, height: 24, bands: 2, dtype: 'float32', geo: GEO, nodata: null, blockSize: 16, descriptions: ['red', 'nir'] }, bands);
  const mask = path.join(ws, 'mask.tif');
  await writeRaster(mask, { width: 32, height: 24, bands: 1, dtype: 'uint8', geo: GEO, nodata: 255, blockSize: 16 }, [Uint8Array.from({ length: 32 * 24 }, (_, i) => (i % 5 === 0 ? 1 : 0))]);
  const real = path.join(outside, 'real.tif');
  fs.copyFileSync(img, real);
  fs.writeFileSync(path.join(outside, 'secret.tif'), 'SECRET-TOKEN-8d41 do not print me\n');
  fs.writeFileSync(path.join(outside, 'victim.txt'), 'must not change');
  let outsideBefore = fingerprint(outside);
  // Odd inputs in the workspace: a directory, a FIFO, a link to a device, a link loop, odd names.
  fs.mkdirSync(path.join(ws, 'dir.tif'));
  spawnSync('mkfifo', [path.join(ws, 'fifo.tif')]);
  fs.symlinkSync('/dev/zero', path.join(ws, 'zero.tif'));
  fs.symlinkSync(path.join(ws, 'loop2.tif'), path.join(ws, 'loop1.tif'));
  fs.symlinkSync(path.join(ws, 'loop1.tif'), path.join(ws, 'loop2.tif'));
  fs.symlinkSync(real, path.join(ws, 'link-out.tif'));
  const oddNames = ['-rf.tif', '--help.tif', 'a b.tif', 'new\nline.tif', 'quote"s.tif', "it's.tif", '影像.tif', '%2e%2e%2fetc.tif', '..tif', `${'x'.repeat(240)}.tif`, `${'影'.repeat(80)}.tif`];
  for (const n of oddNames) fs.copyFileSync(img, path.join(ws, n));
  // Products delivered a file per band (section 6): an intact Landsat scene, and one of odd band files.
  const scene = path.join(ws, 'LC09_L2SP_123032_20240612_20240613_02_T1');
  fs.mkdirSync(scene);
  const stem = (b: string) => path.join(scene, `LC09_L2SP_123032_20240612_20240613_02_T1_${b}.TIF`);
  await writeRaster(stem('SR_B4'), { width: 32, height: 24, bands: 1, dtype: 'uint16', geo: GEO, nodata: 0, blockSize: 16 }, [Uint16Array.from({ length: 32 * 24 }, (_, i) => 8000 + (i % 32) * 10)]);
  await writeRaster(stem('SR_B5'), { width: 32, height: 24, bands: 1, dtype: 'uint16', geo: GEO, nodata: 0, blockSize: 16 }, [Uint16Array.from({ length: 32 * 24 }, (_, i) => 15000 + (i % 24) * 40)]);
  const odd = path.join(ws, 'odd_scene');
  fs.mkdirSync(odd);
  const oddStem = (b: string) => path.join(odd, `LC08_L2SP_001002_20240101_20240102_02_T1_${b}.TIF`);
  fs.symlinkSync(real, oddStem('SR_B4'));
  spawnSync('mkfifo', [oddStem('SR_B5')]);
  fs.writeFileSync(oddStem('SR_B3'), 'not a tiff');
  fs.symlinkSync('/dev/zero', oddStem('SR_B6'));
  fs.copyFileSync(stem('SR_B4'), path.join(odd, 'LE07_L2SP_001002_20020101_20200102_02_T1_SR_B3.TIF'));
  fs.copyFileSync(img, path.join(ws, 'B04.tif'));
  const s2Meta = await writeHostileS2Metadata(ws, real);
  const wsBefore = fingerprint(ws);

  const tally = new Tally();
  // After an escape the outside folder is the new baseline, so one escape is counted once.
  const add = tally.add.bind(tally);
  tally.add = (area, input, outcome, detail) => { add(area, input, outcome, detail); if (outcome === 'escape') outsideBefore = fingerprint(outside); };
  const runner = new TrialRunner(Number(process.env.GEOWEAVE_ABUSE_TIMEOUT_MS) || 20_000);
  const base: Pick<Expect, 'tempRoots'> = { tempRoots: [ws, outside] };
  const frozen = () => [{ dir: outside, before: outsideBefore }];

  /** One builtin-tool trial: names are the strings the error must show (the argument, the file). */
  const tool = async (area: string, label: string, toolId: string, args: Record<string, unknown>, names: string[], x: Partial<Expect> = {}) => {
    emptyDir(outDir);
    for (const [name, target] of x.outDirBefore ? (x as any).plant ?? [] : []) fs.symlinkSync(target, path.join(outDir, name));
    const r = await runner.run({ kind: 'runTool', tool: toolId, args, outDir, cwd: ws });
    judge(tally, area, label, r, { ...base, frozen: frozen(), outDir, names, ...x });
    return r;
  };

  try {
    // 1. Paths.
    const paths: [string, string, string[]][] = [
      ['"../outside/real.tif"', '../outside/real.tif', []], ['absolute path outside', real, []], ['link to outside', 'link-out.tif', []],
      ['missing with ..', '../../../../nope/../x.tif', ['x.tif']], ['a directory', 'dir.tif', ['dir.tif']], ['a FIFO', 'fifo.tif', ['fifo.tif']],
      ['link to /dev/zero', 'zero.tif', ['zero.tif']], ['link loop', 'loop1.tif', ['loop1.tif']], ['a secret non-TIFF', '../outside/secret.tif', ['secret.tif']],
      ['empty', '', ['"image"']], ['only spaces', '   ', ['"image"']], ['NUL in path', 'img.tif\0.png', ['image', 'img.tif']],
      ['file:// URL', `file://${img}`, ['file://']], ['javascript: URL', 'javascript:alert(1)', ['javascript']], ['ftp URL', 'ftp://example.com/a.tif', ['ftp://']],
      ...oddNames.map((n) => [`odd name ${JSON.stringify(n.length > 40 ? `${n.slice(0, 20)}…` : n)}`, n, []] as [string, string, string[]]),
    ];
    for (const [label, p, names] of paths) {
      for (const t of ['band_math', 'ndvi']) {
        const args = t === 'band_math' ? { image: p, expression: 'b2 - b1' } : { image: p, red: 1, nir: 2 };
        const r = await tool('paths', `${t} ${label}`, t, args, names.length ? names : ['"image"']);
        if (r.status === 'error' && /SECRET-TOKEN/.test(r.message ?? '')) tally.add('paths', `${label} (message)`, 'escape', 'file content in the error message');
      }
    }
    // Role maps with odd paths and keys.
    for (const [label, v] of [['roles with ..', JSON.stringify({ red: '../outside/real.tif', nir: '../outside/real.tif' })], ['roles to a dir', JSON.stringify({ red: 'dir.tif', nir: 'img.tif' })],
      ['roles empty', '{}'], ['roles not JSON', '{red: img.tif'], ['roles nested', JSON.stringify({ red: { x: 1 }, nir: 'img.tif' })]] as [string, string][]) {
      await tool('paths', label, 'ndvi', { image: v }, ['"image"', 'dir.tif']);
    }

    // 2. Links planted in the output folder: at the final names, at the old guessable temp names, a link as the folder's child dir.
    const victim = path.join(outside, 'victim.txt');
    const plants: [string, [string, string][]][] = [
      ['links at the output names', [['img_band_math.tif', victim], ['img_band_math.png', victim]]],
      // The quicklook's temp name used to be "<png>.tmp-<pid>" of the process that writes it.
      ['links at pid temp names', [[`img_band_math.tif.tmp-${runner.childPid()}`, victim], [`img_band_math.png.tmp-${runner.childPid()}`, victim]]],
      ['dangling link at the output name', [['img_band_math.tif', path.join(outside, 'nope', 'x')]]],
      ['link to a folder outside at a live staging-like name', [['.geoweave-run-1-aaaaaa', outside]]],
      ['link to a folder outside at a dead staging-like name (swept)', [['.geoweave-run-999999-aaaaaa', outside]]],
    ];
    for (const [label, links] of plants) {
      emptyDir(outDir);
      for (const [name, target] of links) fs.symlinkSync(target, path.join(outDir, name));
      const before = listTree(outDir);
      const r = await runner.run({ kind: 'runTool', tool: 'band_math', args: { image: 'img.tif', expression: 'b1 * 2' }, outDir, cwd: ws });
      judge(tally, 'links', label, r, { ...base, tempRoots: [ws], frozen: frozen(), outDir, outDirBefore: before, names: ['img'] });
    }
    // A directory where an output goes, and an output folder that is a file.
    emptyDir(outDir);
    fs.mkdirSync(path.join(outDir, 'img_band_math.tif'));
    await (async () => {
      const before = listTree(outDir);
      const r = await runner.run({ kind: 'runTool', tool: 'band_math', args: { image: 'img.tif', expression: 'b1' }, outDir, cwd: ws });
      judge(tally, 'links', 'a folder at the output name', r, { ...base, tempRoots: [ws], frozen: frozen(), outDir, outDirBefore: before, names: ['img_band_math.tif'] });
    })();
    const fileOut = path.join(ws, 'out-is-a-file');
    fs.writeFileSync(fileOut, 'x');
    judge(tally, 'links', 'output folder is a file', await runner.run({ kind: 'runTool', tool: 'band_math', args: { image: 'img.tif', expression: 'b1' }, outDir: fileOut, cwd: ws }),
      { ...base, frozen: frozen(), names: ['out-is-a-file'] });
    fs.rmSync(fileOut);

    // 3. Option-like values for builtin tools.
    const optionLike = ['-rf', '--help', '-', '--', '--version', '-oo', '-b1', '--config=x'];
    for (const v of optionLike) {
      await tool('options', `band_math image ${v}`, 'band_math', { image: v, expression: 'b1' }, [v, '"image"']);
      await tool('options', `band_math expression ${v}`, 'band_math', { image: 'img.tif', expression: v }, ['"expression"']);
      await tool('options', `threshold band ${v}`, 'threshold', { image: 'img.tif', band: v, op: 'gt', value: 1 }, ['"band"', v]);
      await tool('options', `threshold op ${v}`, 'threshold', { image: 'img.tif', op: v, value: 1 }, ['"op"']);
      await tool('options', `ndvi sensor ${v}`, 'ndvi', { image: 'img.tif', sensor: v }, ['"sensor"']);
    }
    // Process runners: a value must never reach the command as an option.
    const marker = path.join(root, 'argv.json');
    const script = `const fs = require('fs'); fs.writeFileSync(${JSON.stringify(marker)}, JSON.stringify(process.argv.slice(1))); fs.writeFileSync(process.argv.at(-1), 'x');`;
    const manifest = {
      id: 'fake_warp', description: 'test', inputs: [{ name: 'image', type: 'raster' }, { name: 'dst_crs', type: 'string' }, { name: 'size', type: 'number' }, { name: 'images', type: 'array' }, { name: 'layer', type: 'string' }],
      outputs: [{ name: 'out', type: 'raster' }],
      runner: { type: 'process', command: process.execPath, args: ['-e', script, '--', '-t_srs', '{dst_crs}', '-ts', '{size}', '{image}', '{images}', 'SELECT * FROM "{layer}"', '{out}'] },
    };
    const good = { image: 'img.tif', dst_crs: 'EPSG:4326', size: 10, images: ['img.tif', 'mask.tif'], layer: 'fields' };
    const procTrial = async (label: string, args: Record<string, unknown>, names: string[]) => {
      emptyDir(outDir);
      fs.rmSync(marker, { force: true });
      const r = await runner.run({ kind: 'process', manifest, args, outDir, cwd: ws } as Op);
      const o = judge(tally, 'process', label, r, { ...base, frozen: frozen(), outDir, names, check: () => argvProblem(marker) });
      if (o === 'handled' && r.status === 'error' && fs.existsSync(marker)) tally.trials[tally.trials.length - 1] = { area: 'process', input: label, outcome: 'escape', detail: 'the command ran although the arguments were refused' };
    };
    await procTrial('all arguments fine', good, []);
    for (const v of [...optionLike, '-9', '-1e3']) {
      await procTrial(`dst_crs ${v}`, { ...good, dst_crs: v }, ['"dst_crs"']);
      await procTrial(`size ${v}`, { ...good, size: v }, ['"size"']);
      await procTrial(`image ${v}`, { ...good, image: v }, ['"image"']);
      await procTrial(`images [${v}]`, { ...good, images: ['img.tif', v] }, ['"images"']);
      await procTrial(`layer ${v}`, { ...good, layer: v }, ['"layer"']);
    }
    for (const v of ['fields" UNION SELECT 1 --', "x'", 'a\\b', 'line\nbreak', 'nul\0']) await procTrial(`layer ${JSON.stringify(v)}`, { ...good, layer: v }, ['"layer"']);
    for (const k of PROTO_KEYS) await procTrial(`argument named ${k}`, JSON.parse(`{"image": "img.tif", ${JSON.stringify(k)}: "x"}`), [`"${k}"`]);

    // 4. Prototype keys: argument names, tool ids, role names, values.
    for (const k of PROTO_KEYS) {
      // None of these is a parameter, a tool, a band role or a number: each must be refused.
      const refuse = { mustFail: true };
      await tool('prototype', `argument ${k}`, 'band_math', JSON.parse(`{"image": "img.tif", "expression": "b1", ${JSON.stringify(k)}: {"polluted": 1}}`), [`"${k}"`], refuse);
      await tool('prototype', `tool id ${k}`, k, { image: 'img.tif' }, [`"${k}"`], refuse);
      await tool('prototype', `role ${k}`, 'ndvi', { image: JSON.stringify({ [k]: 'img.tif', red: 'img.tif', nir: 'img.tif' }) }, ['"image"'], refuse);
      await tool('prototype', `value {${k}}`, 'raster_stats', { image: 'img.tif', bins: JSON.parse(`{${JSON.stringify(k)}: 1}`) }, ['"bins"'], refuse);
    }
    await tool('prototype', 'args object with a polluting __proto__', 'band_math', JSON.parse('{"image": "img.tif", "expression": "b1", "__proto__": {"outDir": "/tmp", "polluted": true}}'), ['"__proto__"'], { mustFail: true });
    const probe = await runner.run({ kind: 'probe' });
    const keys = probe.result?.stats as Record<string, string[]> | undefined;
    const clean = keys && !Object.values(keys).some((list) => list.some((k) => /polluted|outDir/.test(k)));
    tally.add('prototype', 'built-in prototypes after all trials', clean ? 'handled' : 'escape', clean ? undefined : JSON.stringify(keys).slice(0, 200));

    // 5. Wrong types and extreme numbers.
    const typed: [string, string, Record<string, unknown>, string][] = [
      ['bins 1e308', 'raster_stats', { image: 'img.tif', bins: 1e308 }, '"bins"'], ['bins -1', 'raster_stats', { image: 'img.tif', bins: -1 }, '"bins"'],
      ['bins NaN', 'raster_stats', { image: 'img.tif', bins: NaN }, '"bins"'], ['bins "1e999"', 'raster_stats', { image: 'img.tif', bins: '1e999' }, '"bins"'],
      ['bins []', 'raster_stats', { image: 'img.tif', bins: [] }, '"bins"'], ['bins 2.5', 'raster_stats', { image: 'img.tif', bins: 2.5 }, '"bins"'],
      ['factor 1e-300', 'resample', { image: 'img.tif', factor: 1e-300 }, '"factor"'], ['factor "0x10"', 'resample', { image: 'img.tif', factor: '0x10' }, '"factor"'],
      ['factor " 2 "', 'resample', { image: 'img.tif', factor: ' 2 ' }, '"factor"'], ['factor 0.02', 'resample', { image: 'img.tif', factor: 0.02 }, '"factor"'],
      ['factor Infinity', 'resample', { image: 'img.tif', factor: Infinity }, '"factor"'], ['z_factor Infinity', 'slope', { dem: 'img.tif', z_factor: Infinity }, '"z_factor"'],
      ['z_factor -0', 'slope', { dem: 'img.tif', z_factor: -0 }, '"z_factor"'], ['z_factor 1e308', 'slope', { dem: 'img.tif', z_factor: 1e308 }, '"z_factor"'],
      ['bbox NaN', 'clip_bbox', { image: 'img.tif', bbox: [NaN, 0, 1, 1] }, '"bbox"'], ['bbox 5 numbers', 'clip_bbox', { image: 'img.tif', bbox: '1,2,3,4,5' }, '"bbox"'],
      ['bbox huge', 'clip_bbox', { image: 'img.tif', bbox: [-1e308, -1e308, 1e308, 1e308] }, '"bbox"'], ['bbox inverted', 'clip_bbox', { image: 'img.tif', bbox: [1, 1, 0, 0] }, '"bbox"'],
      ['bbox lonlat out of range', 'clip_bbox', { image: 'img.tif', bbox: [-500, 0, 10, 10], bbox_crs: 'lonlat' }, '"bbox"'],
      ['min_pixels 1e20', 'connected_patches', { image: 'mask.tif', min_pixels: 1e20 }, '"min_pixels"'], ['min_pixels 0', 'connected_patches', { image: 'mask.tif', min_pixels: 0 }, '"min_pixels"'],
      ['band 0', 'threshold', { image: 'img.tif', band: 0, op: 'gt', value: 1 }, '"band"'], ['band 1e10', 'threshold', { image: 'img.tif', band: 1e10, op: 'gt', value: 1 }, '"band"'],
      ['band 1.5', 'threshold', { image: 'img.tif', band: 1.5, op: 'gt', value: 1 }, '"band"'], ['value NaN', 'threshold', { image: 'img.tif', op: 'gt', value: NaN }, '"value"'],
      ['value 1e999 string', 'threshold', { image: 'img.tif', op: 'gt', value: '1e999' }, '"value"'], ['expression number', 'band_math', { image: 'img.tif', expression: 5 }, '"expression"'],
      ['expression array', 'band_math', { image: 'img.tif', expression: ['b1'] }, '"expression"'], ['expression object', 'band_math', { image: 'img.tif', expression: { b: 1 } }, '"expression"'],
      ['image number', 'band_math', { image: 42, expression: 'b1' }, '"image"'], ['image array', 'band_math', { image: ['img.tif'], expression: 'b1' }, '"image"'],
      ['1 MB expression', 'band_math', { image: 'img.tif', expression: 'b1+'.repeat(350_000) + 'b1' }, '"expression"'],
      ['1 MB path', 'band_math', { image: 'a/'.repeat(500_000) + 'x.tif', expression: 'b1' }, 'raster path is too long'],
      ['k 1e9', 'kmeans_classify', { image: 'img.tif', k: 1e9 }, '"k"'], ['k -3', 'kmeans_classify', { image: 'img.tif', k: -3 }, '"k"'],
      ['classes huge list', 'reclassify', { image: 'mask.tif', breaks: Array.from({ length: 100_000 }, (_, i) => i).join(',') }, '"breaks"'],
      ['sensor with NUL', 'ndvi', { image: 'img.tif', sensor: 'sentinel2_l2a\0' }, '"sensor"'],
    ];
    for (const [label, t, args, name] of typed) await tool('types', label, t, args, [name, 'img.tif', 'mask.tif']);

    // 6. Products delivered a file per band: band files that are links out, FIFOs, not TIFFs or from
    // two products; band files under their roles with hostile paths. Intact products must run.
    const okRun = await tool('band files', 'intact Landsat folder', 'ndvi', { image: scene }, []);
    if (okRun.status !== 'ok') tally.add('band files', 'intact Landsat folder gives a result', 'crashed', okRun.message);
    await tool('band files', 'intact: one band file, the other beside it', 'ndvi', { image: stem('SR_B4') }, []);
    await tool('band files', 'intact: red= and nir= files', 'ndvi', { red: stem('SR_B4'), nir: stem('SR_B5') }, []);
    const bandTrials: [string, string, Record<string, unknown>, string[]][] = [
      ['folder of two products', 'ndvi', { image: odd }, ['odd_scene', '2 products']],
      ['band file whose NIR sibling is a FIFO', 'ndvi', { image: oddStem('SR_B4') }, ['SR_B5']],
      ['NIR sibling not a TIFF', 'ndmi', { image: oddStem('SR_B5') }, ['SR_B']],
      ['SWIR sibling a link to /dev/zero', 'ndmi', { image: stem('SR_B5') }, ['swir1']],
      ['red= outside, nir= a FIFO', 'ndvi', { red: '../outside/real.tif', nir: 'fifo.tif' }, ['fifo.tif']],
      ['red= a directory', 'ndvi', { red: 'dir.tif', nir: stem('SR_B5') }, ['dir.tif']],
      ['red= a link loop', 'ndvi', { red: 'loop1.tif', nir: stem('SR_B5') }, ['loop1.tif']],
      ['red= file and image= file', 'ndvi', { image: 'img.tif', red: stem('SR_B4') }, ['"red"', '"image"']],
      ['red= an http URL that is not there', 'ndvi', { red: 'http://127.0.0.1:9/B04.tif', nir: stem('SR_B5') }, ['127.0.0.1']],
      ['a file named B04.tif that is a stack', 'ndvi', { image: 'B04.tif' }, ['nir', 'B04.tif']],
    ];
    for (const [label, t, args, names] of bandTrials) await tool('band files', label, t, args, names);
    // Sentinel-2 band files under hostile product metadata (a SAFE's MTD, STAC item JSON): the run must
    // give its result, say which metadata file it ignored, and quote nothing of a file a link points at.
    for (const m of s2Meta) {
      await tool('band files', `S2 metadata: ${m.label}`, 'ndvi', { image: m.band }, [], {
        mustSucceed: true,
        check: (r) => {
          const text = JSON.stringify(r.result ?? {});
          if (/SECRET-TOKEN/.test(text)) return 'escape: linked file content in the result';
          const warnings = (r.result?.stats?.warnings ?? []) as string[];
          if (m.warns && !warnings.some((w) => w.includes(m.warns!))) return `no warning naming ${m.warns}: ${JSON.stringify(warnings).slice(0, 300)}`;
          return null;
        },
      });
    }
  } finally {
    runner.close();
    console.log(tally.summary());
    const fails = tally.failures();
    if (fails.length) console.log(fails.slice(0, 25).map((f) => `${f.area}: ${f.outcome}: ${f.input}: ${f.detail}`).join('\n'));
  }
  const wsDiff = [...fingerprint(ws).keys()].filter((k) => !wsBefore.has(k) && !k.startsWith('out'));
  assert.deepEqual(wsDiff, [], 'files appeared in the workspace outside the output folder');
  assert.ok(tally.trials.length >= 200, `only ${tally.trials.length} trials`);
  assert.deepEqual(tally.failures().map((f) => `${f.area}: ${f.outcome}: ${f.input}: ${f.detail}`), []);
  fs.rmSync(root, { recursive: true, force: true });
});

/**
 * Sentinel-2 products (B04/B08 band files) whose metadata is hostile, one folder each: STAC item
 * JSON beside the band files, or a SAFE's MTD_MSIL2A.xml above GRANULE/<id>/IMG_DATA/R10m. `warns`
 * is the metadata file (or folder) the run's warning must name; none for metadata that is valid.
 */
async function writeHostileS2Metadata(ws: string, secret: string): Promise<{ label: string; band: string; warns?: string }[]> {
  const root = path.join(ws, 's2meta');
  const w = 32, h = 24;
  const bandFiles = async (d: string, red: string, nir: string) => {
    fs.mkdirSync(d, { recursive: true });
    await writeRaster(path.join(d, red), { width: w, height: h, bands: 1, dtype: 'uint16', geo: GEO, nodata: 0, blockSize: 16 }, [Uint16Array.from({ length: w * h }, (_, i) => 1300 + (i % w) * 10)]);
    await writeRaster(path.join(d, nir), { width: w, height: h, bands: 1, dtype: 'uint16', geo: GEO, nodata: 0, blockSize: 16 }, [Uint16Array.from({ length: w * h }, (_, i) => 4000 + (i % h) * 40)]);
  };
  const href = 'https://sentinel-cogs.s3.us-west-2.amazonaws.com/sentinel-s2-l2a-cogs/50/T/MK/2024/6/S2B_50TMK_20240612_0_L2A';
  const item = (o: { rb?: unknown; props?: unknown; assets?: unknown } = {}) => ({
    type: 'Feature', stac_version: '1.0.0', id: 'S2B_50TMK_20240612_0_L2A',
    properties: o.props ?? { 's2:processing_baseline': '05.10' },
    assets: o.assets ?? { red: { href: `${href}/B04.tif`, 'raster:bands': o.rb ?? [{ scale: 0.0001, offset: -0.1 }] }, nir: { href: `${href}/B08.tif`, 'raster:bands': o.rb ?? [{ scale: 0.0001, offset: -0.1 }] } },
  });
  const out: { label: string; band: string; warns?: string }[] = [];
  // STAC: what item.json holds (a string as is, anything else as JSON), or a thing made in its place.
  const stac: [string, unknown | ((file: string) => void), boolean][] = [
    ['item is a JSON array', [item()], false],
    ['offset a string', item({ rb: [{ scale: 0.0001, offset: '-0.1' }] }), true],
    ['offset 1e400 (Infinity)', '{"type":"Feature","stac_version":"1.0.0","assets":{"red":{"href":"B04.tif","raster:bands":[{"scale":0.0001,"offset":1e400}]}}}', true],
    ['positive offset', item({ rb: [{ scale: 0.0001, offset: 0.5 }] }), true],
    ['raster:bands an object', item({ rb: { scale: 0.0001, offset: -0.1 } }), true],
    ['baseline an object', item({ rb: [{}], props: { 's2:processing_baseline': { $gt: 4 } } }), true],
    ['assets an array', item({ assets: [{ href: 'B04.tif' }] }), false],
    ['hrefs numbers and 100 KB strings', item({ assets: { red: { href: 4 }, nir: { href: 'x/'.repeat(50_000) + 'B08.tif' } } }), false],
    ['prototype keys', `{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},${JSON.stringify(item()).slice(1)}`, false],
    ['truncated', JSON.stringify(item()).slice(0, 90), true],
    ['5 MB', JSON.stringify({ ...item(), pad: 'x'.repeat(5 << 20) }), true],
    ['1 MB of nesting (valid JSON, not an item: passed over)', '['.repeat(1 << 19) + ']'.repeat(1 << 19), false],
    ['a FIFO', (f: string) => spawnSync('mkfifo', [f]), true],
    ['a link to /dev/zero', (f: string) => fs.symlinkSync('/dev/zero', f), true],
    ['a link to a secret file outside', (f: string) => fs.symlinkSync(secret, f), true],
    ['a directory', (f: string) => fs.mkdirSync(f), false],
  ];
  for (const [label, what, warns] of stac) {
    const d = path.join(root, `stac_${out.length}`);
    await bandFiles(d, 'B04.tif', 'B08.tif');
    const f = path.join(d, 'item.json');
    if (typeof what === 'function') what(f); else fs.writeFileSync(f, typeof what === 'string' ? what : JSON.stringify(what));
    out.push({ label: `STAC item ${label}`, band: path.join(d, 'B04.tif'), ...(warns ? { warns: f } : {}) });
  }
  const many = path.join(root, 'stac_many');
  await bandFiles(many, 'B04.tif', 'B08.tif');
  for (let i = 0; i < 100; i++) fs.writeFileSync(path.join(many, `${String(i).padStart(3, '0')}.json`), '{}');
  out.push({ label: 'STAC: 100 JSON files', band: path.join(many, 'B04.tif'), warns: many });
  // SAFE: MTD_MSIL2A.xml as given.
  const offsets = (v: string) => `<BOA_ADD_OFFSET_VALUES_LIST>${Array.from({ length: 13 }, (_, i) => `<BOA_ADD_OFFSET band_id="${i}">${v}</BOA_ADD_OFFSET>`).join('')}</BOA_ADD_OFFSET_VALUES_LIST>`;
  const mtd = (body: string) => `<?xml version="1.0"?><n1:Level-2A_User_Product xmlns:n1="x"><BOA_QUANTIFICATION_VALUE>10000</BOA_QUANTIFICATION_VALUE>${body}</n1:Level-2A_User_Product>`;
  const safe: [string, string | ((file: string) => void)][] = [
    ['offsets not numbers', mtd(offsets('minus thousand'))],
    ['offsets empty', mtd(offsets(''))],
    ['offsets hexadecimal', mtd(offsets('0x3E8'))],
    ['offset -1e999', mtd(offsets('-1e999'))],
    ['quantification 0', mtd(offsets('-1000')).replace('>10000<', '>0<')],
    ['truncated', mtd(offsets('-1000')).slice(0, 200)],
    ['billion laughs', `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "${'x'.repeat(100)}">${Array.from({ length: 9 }, (_, i) => `<!ENTITY ${'b'.repeat(i + 1)} "${`&${i ? 'b'.repeat(i) : 'a'};`.repeat(10)}">`).join('')}]><r><BOA_ADD_OFFSET band_id="3">&bbbbbbbbb;</BOA_ADD_OFFSET></r>`],
    ['1.5 MB', mtd(offsets('-1000') + `<pad>${'x'.repeat(1.5 * (1 << 20))}</pad>`)],
    ['0.9 MB of nesting', '<a>'.repeat(130_000) + '</a>'.repeat(130_000)],
    ['not XML at all', '{"BOA_ADD_OFFSET": -1000}'],
    ['a FIFO', (f) => spawnSync('mkfifo', [f])],
    ['a link to a secret file outside', (f) => fs.symlinkSync(secret, f)],
  ];
  for (const [label, what] of safe) {
    const top = path.join(root, `safe_${out.length}`);
    const r10 = path.join(top, 'GRANULE', 'L2A_T50TMK_A000001', 'IMG_DATA', 'R10m');
    await bandFiles(r10, 'T50TMK_B04_10m.tif', 'T50TMK_B08_10m.tif');
    const f = path.join(top, 'MTD_MSIL2A.xml');
    if (typeof what === 'function') what(f); else fs.writeFileSync(f, what);
    out.push({ label: `SAFE MTD ${label}`, band: path.join(r10, 'T50TMK_B04_10m.tif'), warns: f });
  }
  return out;
}

/** The argv the fake command saw: no element may start with "-" unless it is a template option or a number. */
function argvProblem(marker: string): string | null {
  if (!fs.existsSync(marker)) return 'the command did not run';
  const argv: string[] = JSON.parse(fs.readFileSync(marker, 'utf8'));
  const own = new Set(['--', '-t_srs', '-ts']);
  const bad = argv.filter((a) => a.startsWith('-') && !own.has(a) && !/^-\d/.test(a));
  return bad.length ? `escape: option-like argv element ${bad[0]}` : null;
}
void ((r: TrialResult) => r);
