/** Writes the sample workspace (fixed file names, deterministic bytes). */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeRaster } from '../io/writer';
import { writeFileAtomicSync } from '../io/atomic-file';
import type { GeoInfo } from '../io/dataset';
import { buildLandscape, EPSG, GEOTRANSFORM, SIZE } from './landscape';
import { BAND_NAMES, renderReflectance, sceneClassification, toDN } from './spectra';
import { SAMPLE_README } from './readme';
import { LANDSAT_BANDS, LANDSAT_GEOTRANSFORM, renderLandsat } from './landsat';

export const SAMPLE_FILES = [
  's2_scene.tif', 'fire_pre.tif', 'fire_post.tif', 'urban_2018.tif', 'urban_2024.tif', 'dem.tif', 'thermal_landsat.tif', 'fields.geojson', 'README.md',
] as const;

export interface SampleResult { dir: string; files: string[]; ms: number }

function checkAbort(signal?: AbortSignal): void {
  if (signal?.aborted) throw signal.reason ?? new Error('aborted');
}

export async function writeSampleWorkspace(dir: string, opts: { signal?: AbortSignal; seed?: number } = {}): Promise<SampleResult> {
  const t0 = Date.now();
  const seed = opts.seed ?? 42;
  const { signal } = opts;
  fs.mkdirSync(dir, { recursive: true });
  const L = buildLandscape(seed);
  const geo: GeoInfo = { epsg: EPSG, geoTransform: GEOTRANSFORM, geographic: false };
  const spec = (bands: number, descriptions: string[], dtype: 'uint16' | 'float32', nodata: number) =>
    ({ width: SIZE, height: SIZE, bands, dtype, geo, nodata, descriptions, blockSize: 256 });
  const files: string[] = [];
  const out = (name: string) => { const p = path.join(dir, name); files.push(p); return p; };

  checkAbort(signal);
  const scene = renderReflectance(L, { seed: seed + 100, clouds: true, variant: 'base' });
  const ndvi = (i: number) => (scene[4][i] - scene[2][i]) / (scene[4][i] + scene[2][i]);
  const scl = sceneClassification(L, (i) => ndvi(i) > 0.35);
  const s2 = [...scene.map((b) => toDN(b, L.swathGap)), scl];
  await writeRaster(out('s2_scene.tif'), spec(8, [...BAND_NAMES, 'scl'], 'uint16', 0), s2);

  checkAbort(signal);
  const pre = renderReflectance(L, { seed: seed + 200, variant: 'base' });
  await writeRaster(out('fire_pre.tif'), spec(7, [...BAND_NAMES], 'uint16', 0), pre.map((b) => toDN(b)));
  checkAbort(signal);
  const post = renderReflectance(L, { seed: seed + 300, variant: 'postfire', gain: 0.97 });
  await writeRaster(out('fire_post.tif'), spec(7, [...BAND_NAMES], 'uint16', 0), post.map((b) => toDN(b)));

  checkAbort(signal);
  const u18 = renderReflectance(L, { seed: seed + 400, variant: 'base' });
  await writeRaster(out('urban_2018.tif'), spec(7, [...BAND_NAMES], 'uint16', 0), u18.map((b) => toDN(b)));
  checkAbort(signal);
  const u24 = renderReflectance(L, { seed: seed + 500, variant: 'urban2024', gain: 1.02 });
  await writeRaster(out('urban_2024.tif'), spec(7, [...BAND_NAMES], 'uint16', 0), u24.map((b) => toDN(b)));

  checkAbort(signal);
  await writeRaster(out('dem.tif'), spec(1, ['elevation'], 'float32', -9999), [L.dem]);

  checkAbort(signal);
  const ls = renderLandsat(L, renderReflectance(L, { seed: seed + 600, clouds: true, variant: 'base' }), seed + 700);
  await writeRaster(out('thermal_landsat.tif'), {
    width: ls.width, height: ls.height, bands: LANDSAT_BANDS.length, dtype: 'uint16', nodata: 0, descriptions: [...LANDSAT_BANDS],
    geo: { ...geo, geoTransform: LANDSAT_GEOTRANSFORM }, blockSize: 256,
  }, ls.bands);

  const geojson = {
    type: 'FeatureCollection',
    name: 'fields',
    crs: { type: 'name', properties: { name: `urn:ogc:def:crs:EPSG::${EPSG}` } },
    features: L.fields.map((f) => ({
      type: 'Feature',
      properties: { id: f.id, crop: f.crop },
      geometry: { type: 'Polygon', coordinates: [f.ring] },
    })),
  };
  writeText(out('fields.geojson'), JSON.stringify(geojson, null, 1) + '\n');
  writeText(out('README.md'), SAMPLE_README);
  return { dir, files, ms: Date.now() - t0 };
}

function writeText(p: string, text: string): void {
  writeFileAtomicSync(p, text);
}
