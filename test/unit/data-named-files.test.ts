/**
 * The file names a task spells out, and which of them a workspace's file list lacks: the extension
 * lists the workspace again for those before it judges readiness, so a scene downloaded a moment
 * before the task was typed is the one the panel answers for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileNamesIn, unlistedNames, urlsIn } from '../../src/core/data/named-files';

test('names with data extensions are read from tasks as analysts write them', () => {
  assert.deepEqual(fileNamesIn('Compute NDVI for LC09_L2SP_044034_20240712_20240713_02_T1_SR_B5.TIF, then slope of dem/N46E007.hgt.'),
    ['LC09_L2SP_044034_20240712_20240713_02_T1_SR_B5.TIF', 'dem/N46E007.hgt']);
  assert.deepEqual(fileNamesIn('zonal stats of ./data/ndvi 2024.tif over fields.gpkg and fields.gpkg'), ['2024.tif', 'fields.gpkg']);
  assert.deepEqual(fileNamesIn('NDVI für S2B_MSIL2A_20240612T103021_N0510_R108_T31TDF_20240612T130000.SAFE（哨兵二号）'),
    ['S2B_MSIL2A_20240612T103021_N0510_R108_T31TDF_20240612T130000.SAFE']);
  assert.deepEqual(fileNamesIn('extract LC09_L2SP_044034_20240712_02_T1.tar.gz first; windows path data\\flight.hdr'),
    ['LC09_L2SP_044034_20240712_02_T1.tar.gz', 'data/flight.hdr']);
  // Chinese runs on without spaces: Han characters end a name.
  assert.deepEqual(fileNamesIn('对L7_ETMs.tif计算植被指数，再用fields.gpkg统计'), ['L7_ETMs.tif', 'fields.gpkg']);
  // Devanagari vowels are combining marks: a name written in it stays whole ("नक्शा" ends in one).
  assert.deepEqual(fileNamesIn('बाढ़ का नक्शा.tif पर NDVI'), ['नक्शा.tif']);
  // A URL is not a workspace file name; urlsIn reads it whole.
  const remote = 'NDVI of https://sentinel-cogs.s3.us-west-2.amazonaws.com/sentinel-s2-l2a-cogs/31/T/DF/2024/7/S2A_31TDF_20240707_0_L2A/B04.tif and fields.gpkg';
  assert.deepEqual(fileNamesIn(remote), ['fields.gpkg']);
  assert.deepEqual(urlsIn(remote), ['https://sentinel-cogs.s3.us-west-2.amazonaws.com/sentinel-s2-l2a-cogs/31/T/DF/2024/7/S2A_31TDF_20240707_0_L2A/B04.tif']);
  assert.deepEqual(urlsIn('stats of http://x.org/a.tif?token=1, please.'), ['http://x.org/a.tif?token=1']);
  // Words that only look like an extension's start, and bare extensions, are no names.
  assert.deepEqual(fileNamesIn('a tiffany lamp, the .tif files, shp format, burn severity map'), []);
});

test('a name is unlisted when no listed path is it, ends in it, or lies in it', () => {
  const listed = ['landsat/L7_ETMs.tif', 'S2B_X.SAFE/GRANULE/L2A/IMG_DATA/R10m/T31TDF_B04_10m.jp2', 'fields.geojson', 'downloads/scene.zip'];
  assert.deepEqual(unlistedNames('NDVI for l7_etms.TIF', listed), []);
  assert.deepEqual(unlistedNames('NDVI for landsat/L7_ETMs.tif', listed), []);
  assert.deepEqual(unlistedNames('NDVI for S2B_X.SAFE', listed), []);
  assert.deepEqual(unlistedNames('extract scene.zip', listed), []);
  assert.deepEqual(unlistedNames('NDVI for L8_new.tif over fields.geojson and fields.gpkg', listed), ['L8_new.tif', 'fields.gpkg']);
  // A name that is only the end of a listed name is not that file ("ETMs.tif" is not L7_ETMs.tif).
  assert.deepEqual(unlistedNames('NDVI for ETMs.tif', listed), ['ETMs.tif']);
});
