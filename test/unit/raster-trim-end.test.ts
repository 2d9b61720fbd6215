/**
 * Padding at the end of header strings (NetCDF and HDF attributes, GeoTIFF ASCII keys, ENVI
 * values) is trimmed in one pass: an end-anchored regex backtracked quadratically, so a crafted
 * header of a megabyte of padding and one other character held a reader for many minutes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { trimEnd } from '../../src/core/raster/io/trim-end';
import { parseEnviHeader, splitEnviList } from '../../src/core/raster/io/envi';

test('trimEnd removes only the padding at the end', () => {
  assert.equal(trimEnd('abc\0\0'), 'abc');
  assert.equal(trimEnd('\0a\0b\0'), '\0a\0b');
  assert.equal(trimEnd('\0\0'), '');
  assert.equal(trimEnd(''), '');
  assert.equal(trimEnd('WGS 84|\0|', '|\0'), 'WGS 84');
  assert.equal(trimEnd('key \t ', ' \t'), 'key');
});

test('a megabyte of padding before a last character is read at once (it took minutes with an anchored regex)', { timeout: 20_000 }, () => {
  const pad = 1 << 20;
  assert.equal(trimEnd('\0'.repeat(pad) + 'x'), '\0'.repeat(pad) + 'x');
  const header = parseEnviHeader(`ENVI\nsamples${' '.repeat(pad)}x = 3\nbands = 1\n`);
  assert.equal(header.get('bands'), '1');
  assert.deepEqual(splitEnviList(`{a${' '.repeat(pad)}b, c}`), [`a${' '.repeat(pad)}b`, 'c']);
});
