/** Cell errors with a Chinese UI or task: the fixed parts in Chinese, the cell lines and names kept. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cellErrorMessage } from '../../src/core/notebook/cell-errors';
import { isChineseText } from '../../src/core/results/summary-language';

/** A band-role error as src/core/raster/bands.ts throws it (the module is matched by name). */
function bandRoleError(guessed: Record<string, number>): Error {
  const e = Object.assign(new Error('missing band role "nir"'), {
    name: 'BandRoleError', role: 'nir', file: '/ws/L7_ETMs.tif', bandCount: 6, undescribed: true, guessed,
    guess: Object.keys(guessed).length ? { label: 'Landsat 7 ETM+', why: '6 uint8 bands' } : undefined,
  });
  return e;
}

test('a missing band role reads in Chinese with the same lines to add', () => {
  const en = cellErrorMessage(bandRoleError({ nir: 4, red: 3 }));
  const zh = cellErrorMessage(bandRoleError({ nir: 4, red: 3 }), 'zh');
  assert.match(en, /^missing band role "nir" in L7_ETMs\.tif/);
  assert.ok(isChineseText(zh), zh);
  assert.match(zh, /^L7_ETMs\.tif 缺少波段角色 "nir"（6 个波段，均无描述）：请在单元格中加上 `nir: 4`、`red: 3` 这几行。推测：该文件看起来像 Landsat 7 ETM\+/);
  assert.match(cellErrorMessage(bandRoleError({}), 'zh'), /请在单元格中加一行 `nir: <波段序号>`/);
});

test('other run errors: argument names, cell-syntax hints and batch failures in Chinese', () => {
  const zh = (m: string) => cellErrorMessage(new Error(m), 'zh');
  assert.equal(zh('slope: unknown argument "zfactor"; did you mean "z_factor"?'), 'slope: 未知参数 "zfactor"；是否想写 "z_factor"？');
  assert.equal(zh('zonal_stats: argument "zones" is required'), 'zonal_stats: 缺少必需的参数 "zones"');
  assert.equal(zh('ndvi: argument "image": /ws/x.tif does not exist'), 'ndvi: 参数 "image"：/ws/x.tif 不存在');
  assert.equal(zh('ndvi: band 9 is out of range: pass --arg red=3'), 'ndvi: band 9 is out of range: 在单元格中加上 `red: 3`');
  assert.equal(cellErrorMessage(new Error('ndvi: pass --arg red=3'), 'en'), 'ndvi: add a line `red: 3`');
});
