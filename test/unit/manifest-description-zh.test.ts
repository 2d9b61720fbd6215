/** A tool's (and a workflow's) Chinese description (`description_zh`): every builtin one has it, keeping the
 *  English description's formulas, band codes and commands; it is loaded, checked like the other
 *  Chinese fields, shown by `toolDescription`, and changes neither the index texts nor the hash. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadCatalog } from '../../src/core/manifests/load';
import { toolDescription, withoutDisplayFields, workflowDescription } from '../../src/core/manifests/display';
import { main } from '../../src/cli/main';
import { toolTexts } from '../../src/core/index/text';
import { missingArgComments } from '../../src/core/notebook/suggested-cell';
import { tmpDir } from '../fixtures/helpers';

const { tools, workflows } = loadCatalog({});
const HAN = /[\u4e00-\u9fff]/g;

/** What a translation must carry over as written: band codes, index acronyms, commands, EPSG codes,
 *  argument names and the sensors named (band names such as NIR have Chinese names and may use them). */
const KEPT = /\b(?:B\d{2}|SR_B\d|ST_B10|QA_PIXEL|SCL|EPSG:\d+|gdal\w*(?:\.py)?|ogr2ogr|ST_Buffer|NDVI|NBR|dNBR|MNDWI|NDWI|NDMI|NDSI|SAVI|EVI|NDBI|NDCI|NDTI|min_pixels|z_factor|elev|invert|VV|VH|Sentinel-[12]|Landsat|WorldCover|BFAST|STAC|COG|VRT|D8|Horn|Otsu|Brovey)\b/g;

test('every builtin tool has a Chinese description that keeps the English one\'s codes, formulas and commands', () => {
  assert.equal(tools.length, 64);
  const problems: string[] = [];
  for (const { manifest: m } of tools) {
    const zh = m.description_zh ?? '';
    // Mostly Chinese, not an English sentence with a Chinese word in it.
    const han = (zh.match(HAN) ?? []).length;
    if (han < 30 || han / zh.replace(/\s/g, '').length < 0.3) problems.push(`${m.id}: not a Chinese description (${han} Han characters): ${zh}`);
    const lost = [...new Set(m.description.match(KEPT) ?? [])].filter((k) => !zh.includes(k));
    if (lost.length) problems.push(`${m.id}: ${lost.join(', ')} not in the Chinese description`);
    // A formula's right-hand side is copied as it is (the same bands and operators).
    for (const f of m.description.match(/= \([A-Za-z0-9 −+]+\) \/ \([A-Za-z0-9 −+]+\)/g) ?? []) if (!zh.includes(f)) problems.push(`${m.id}: formula "${f}" changed`);
  }
  assert.deepEqual(problems, []);
});

test('Chinese descriptions use the field\'s terms', () => {
  const zh = (id: string) => tools.find((t) => t.manifest.id === id)!.manifest.description_zh!;
  assert.match(zh('ndvi'), /植被指数/);
  assert.match(zh('land_surface_temperature'), /地表温度/);
  assert.match(zh('land_surface_temperature'), /比辐射率/);
  assert.match(zh('burn_severity'), /燃烧严重程度/);
  assert.match(zh('accuracy_assessment'), /混淆矩阵.*Kappa 系数/);
  assert.match(zh('otsu_threshold'), /最大类间方差法/);
  assert.match(zh('tasseled_cap'), /缨帽变换/);
  assert.match(zh('sar_flood_threshold'), /后向散射/);
  assert.match(zh('reproject'), /坐标参考系/);
});

test('toolDescription: description_zh for Chinese, the English description otherwise and for a tool without one', () => {
  const ndvi = tools.find((t) => t.manifest.id === 'ndvi')!.manifest;
  assert.equal(toolDescription(ndvi, 'zh'), ndvi.description_zh);
  assert.equal(toolDescription(ndvi, 'en'), ndvi.description);
  const team = { id: 'team_ndre', description: 'Red-edge index.' };
  assert.equal(toolDescription(team, 'zh'), 'Red-edge index.');
  assert.equal(toolDescription({ ...team, description_zh: '  ' }, 'zh'), 'Red-edge index.');
});

test('description_zh is checked at load (blank is an error), not indexed, and leaves the hash as it was', () => {
  for (const t of tools) {
    assert.ok(!toolTexts(t.manifest).main.includes(t.manifest.description_zh!), t.manifest.id);
    assert.deepEqual(toolTexts(t.manifest), toolTexts({ ...t.manifest, description_zh: undefined }), t.manifest.id);
    assert.equal(withoutDisplayFields(t.manifest).description_zh, undefined);
  }
  const dir = tmpDir();
  const base = { id: 'x_tool', description: 'A tool.', outputs: [{ name: 'o', type: 'raster' }] };
  const load = (name: string, m: object) => {
    fs.mkdirSync(path.join(dir, name));
    fs.writeFileSync(path.join(dir, name, 'x.json'), JSON.stringify(m));
    return loadCatalog({ noBuiltin: true, extraDirs: [path.join(dir, name)] });
  };
  const plain = load('plain', base);
  const ok = load('ok', { ...base, description_zh: '某工具。' });
  assert.deepEqual(ok.problems, []);
  assert.equal(ok.tools[0].manifest.description_zh, '某工具。');
  assert.equal(ok.tools[0].hash, plain.tools[0].hash, 'adding description_zh leaves the fingerprint');
  for (const [name, v] of [['blank', ' '], ['empty', ''], ['number', 3]] as const) {
    const bad = load(name, { ...base, description_zh: v });
    assert.ok(bad.problems.some((p) => p.severity === 'error' && p.path === '/description_zh'), `${name}: ${JSON.stringify(bad.problems)}`);
    assert.equal(bad.tools.length, 0, `${name}: the manifest is skipped`);
  }
});

test('an inserted cell lists the required arguments nothing could fill, in the editor\'s language', () => {
  const slope = tools.find((t) => t.manifest.id === 'slope')!.manifest;
  const dem = slope.inputs!.find((p) => p.name === 'dem')!;
  assert.equal(missingArgComments(slope, [], 'en'), `\n# dem: (raster, required) ${dem.description}`);
  assert.equal(missingArgComments(slope, [], 'zh'), `\n# dem:（栅格，必填）${dem.description_zh}`);
  assert.equal(missingArgComments(slope, ['dem'], 'zh'), '');
  assert.equal(missingArgComments(undefined, [], 'zh'), '');
});

test('workflows: each builtin one has a Chinese description, loaded and checked like name_zh, and shown by geoweave suggest in Chinese', async () => {
  assert.equal(workflows.length, 6);
  for (const w of workflows) {
    assert.ok((w.description_zh?.match(HAN) ?? []).length >= 30, `${w.id}: ${w.description_zh}`);
    for (const k of new Set(w.description.match(KEPT) ?? [])) assert.ok(w.description_zh!.includes(k), `${w.id}: ${k}`);
    assert.equal(workflowDescription(w, 'zh'), w.description_zh);
    assert.equal(workflowDescription(w, 'en'), w.description);
  }
  assert.equal(workflowDescription({ description: 'Two steps.', description_zh: ' ' }, 'zh'), 'Two steps.');
  const dir = tmpDir();
  fs.mkdirSync(path.join(dir, 'workflows'));
  fs.writeFileSync(path.join(dir, 'x.json'), JSON.stringify({ id: 'x_tool', description: 'A tool.' }));
  const flow = { id: 'x_flow', description: 'Two steps.', steps: ['x_tool', 'x_tool'] };
  const load = (extra: object) => {
    fs.writeFileSync(path.join(dir, 'workflows', 'x.json'), JSON.stringify({ ...flow, ...extra }));
    return loadCatalog({ noBuiltin: true, extraDirs: [dir] });
  };
  assert.equal(load({ description_zh: '两步。' }).workflows[0].description_zh, '两步。');
  assert.ok(load({ description_zh: '' }).problems.some((p) => p.path === '/description_zh'));
  // The CLI's workflow line, in the task's language.
  let out = '';
  const io = { out: (t: string) => { out += t + '\n'; }, err: () => undefined };
  const burn = workflows.find((w) => w.id === 'burn_severity')!;
  assert.equal(await main(['suggest', '评估山火烧毁程度并统计面积', '--k', '3', '--state', tmpDir()], io), 0);
  assert.ok(out.includes(`\n  ${burn.description_zh}`), out);
  out = '';
  assert.equal(await main(['suggest', 'end-to-end wildfire damage assessment with dNBR classes and area', '--k', '3', '--state', tmpDir()], io), 0);
  assert.ok(out.includes(`\n  ${burn.description}`), out);
});
