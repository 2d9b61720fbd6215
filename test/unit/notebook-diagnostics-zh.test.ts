/** Tool-cell diagnostics and quick-fix titles in a Chinese editor: the real catalog and engine
 *  specs, every message of diagnose() in Chinese with the cell's names and values kept; an
 *  English editor's messages are tested in notebook-language.test.ts and stay as they were. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCatalog } from '../../src/core/manifests/load';
import { getToolSpec, listBuiltinTools } from '../../src/core/raster/engine';
import { diagnose, LanguageCatalog } from '../../src/core/notebook/language';
import { BAND_ROLES, SENSOR_PRESETS } from '../../src/core/notebook/vocabulary';
import { DIAGNOSTIC_WORDS } from '../../src/core/notebook/diagnostic-words';

const { tools } = loadCatalog();
const builtin = new Set(listBuiltinTools().map((t) => t.id));
function zh(extra: Partial<LanguageCatalog> = {}): LanguageCatalog {
  return {
    tools: tools.map((t) => t.manifest), spec: (id) => (builtin.has(id) ? getToolSpec(id)?.params : undefined),
    bandRoles: [...BAND_ROLES], sensors: [...SENSOR_PRESETS], files: [], earlier: [], lang: 'zh', ...extra,
  };
}
const messages = (src: string, c = zh()) => diagnose(src, c).map((p) => p.message);
const HAN = /[\u4e00-\u9fff]/;

test('Chinese diagnostics: unknown tool and argument, with Chinese quick-fix titles', () => {
  const [tool] = diagnose('ndvj\nimage: a.tif', zh());
  assert.equal(tool.message, '未知工具 "ndvj"；是否想写 "ndvi"？');
  assert.equal(tool.fix?.title, '改为 "ndvi"');
  const arg = diagnose('ndvi\nimage: s2.tif\nnri: 5', zh()).find((p) => p.line === 2)!;
  assert.equal(arg.message, 'ndvi 没有参数 "nri"；是否想写 "nir"？ndvi 可用的参数：image, sensor, red, nir');
  assert.deepEqual(arg.fix?.edits, [{ line: 2, start: 0, end: 3, text: 'nir' }]);
});

test('Chinese diagnostics: values, references, missing arguments and catalog-only tools', () => {
  const ms = messages('ndvi\nimage: s2.tif\nred: purple\nsensor: sentinel9');
  assert.ok(ms.includes(`red："purple" 既不是波段角色（${BAND_ROLES.join(', ')}）也不是序号`), ms.join('\n'));
  assert.ok(ms.includes(`sensor："sentinel9" 不是 ${SENSOR_PRESETS.join(', ')} 之一`), ms.join('\n'));
  const near = diagnose('ndvi\nimage: s2.tif\nsensor: sentinel2', zh()).find((p) => p.line === 2)!;
  assert.equal(near.message, `sensor："sentinel2" 不是 ${SENSOR_PRESETS.join(', ')} 之一；是否想写 "sentinel2_l2a"？`);
  assert.equal(near.fix?.title, '改为 "sentinel2_l2a"');
  assert.deepEqual(messages('slope\ndem: dem.tif\nz_factor: steep'), ['z_factor：应为数值，实际为 "steep"']);
  assert.deepEqual(messages('ndvi'), ['缺少必需的参数：image（栅格）']);
  assert.deepEqual(messages('area_by_class\nimage: $veg.index'), ['image：上方没有名为 "veg" 的单元格']);
  const earlier = [{ name: 'veg', tool: 'ndvi', outputs: [{ name: 'index' }] }];
  assert.deepEqual(messages('area_by_class\nimage: $veg.mask', zh({ earlier })), ['image：单元格 "veg"（ndvi）没有输出 "mask"；它的输出有 index']);
  assert.ok(messages('dem_download').includes('dem_download 仅在目录中：没有运行器，此单元格无法运行'));
});

test('Chinese diagnostics: a scene without band descriptions, the guess and the fix in Chinese', () => {
  const l7 = { path: 'landsat/L7_ETMs.tif', type: 'raster' as const, bands: [1, 2, 3, 4, 5, 6].map((index) => ({ index })),
    guess: { sensor: 'landsat7_etm', label: 'Landsat 7 ETM+ or 4-5 TM (bands 1-5 and 7)', bands: { blue: 1, green: 2, red: 3, nir: 4, swir1: 5, swir2: 6 }, why: '6 bands of UInt8, values 18–148' } };
  const [p] = diagnose('ndvi\nimage: landsat/L7_ETMs.tif', zh({ data: [l7] }));
  assert.equal(p.message, 'L7_ETMs.tif 没有波段描述：在单元格中加上 `red: 3`、`nir: 4`（推测：看起来像 Landsat 7 ETM+ 或 Landsat 4-5 TM，6 个 UInt8 波段，数值 18–148），或加上一行 `sensor: …`');
  assert.equal(p.fix?.title, '加上 `red: 3`、`nir: 4`（按 Landsat 7 ETM+ 或 Landsat 4-5 TM 推测的波段）');
  assert.deepEqual(p.fix?.edits, [{ line: 1, start: 26, end: 26, text: '\nred: 3\nnir: 4' }]);
  const unguessed = { ...l7, guess: undefined, bands: [{ index: 1, description: 'B1' }, { index: 2, description: 'B2' }] };
  assert.deepEqual(messages('ndvi\nimage: landsat/L7_ETMs.tif', zh({ data: [unguessed] })),
    ['L7_ETMs.tif 没有说明哪个波段是 red, nir：在单元格中加上 `red: <波段序号>`、`nir: <波段序号>`，或加上一行 `sensor: …`']);
});

test('every diagnostic phrase has a Chinese form', () => {
  const w = DIAGNOSTIC_WORDS.zh;
  const samples = [w.unknownTool('x'), w.changeTo('x'), w.catalogOnly('x'), w.noArgument('t', 'a', undefined, ['b']), w.valueProblem('a', 'p', 'n'),
    w.notOneOf('v', ['a']), w.bandIndex, w.notBandRole('v', ['red']), w.expectedNumber('"x"'), w.expectedBoolean, w.expectedList,
    w.noCell('a', 'c'), w.noOutput('a', 'c', 't', 'o', ['p']), w.missing([{ name: 'a', kind: 'band' }]), w.noBandDescriptions,
    w.notSayingWhich(['red']), w.addGuessed('f', 'w', ['red: 3'], 'L', 'why'), w.addGuessedTitle(['red: 3'], 'L'), w.addLines('f', 'w', ['red'])];
  assert.equal(samples.length, Object.keys(w).length);
  for (const s of samples) assert.match(s, HAN, s);
  assert.equal(Object.keys(DIAGNOSTIC_WORDS.en).join(), Object.keys(w).join());
});
