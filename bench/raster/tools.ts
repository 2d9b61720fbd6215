/**
 * The builtin tools against their GDAL (or numpy) counterparts on the same inputs: one case per tool, each
 * side a child process writing tiled 512 DEFLATE outputs (GDAL at its default level, same predictor as ours).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BenchInputs } from './data';
import { PY } from './data';

export interface ToolCase {
  tool: string;
  /** What GeoWeave is measured against. */
  counterpart: string;
  gwArgs: string[];
  gdal: { cmd: string; args: string[] };
  /** GeoWeave's output file (or table) and the counterpart's, for sizes and agreement. */
  gwOut: string; gdalOut: string;
  /** One line saying how the outputs compare. */
  compare: (gwStdout: string, gdalStdout: string) => string;
}

const CO = (pred: number) => ['TILED=YES', 'BLOCKXSIZE=512', 'BLOCKYSIZE=512', 'COMPRESS=DEFLATE', ...(pred > 1 ? [`PREDICTOR=${pred}`] : [])];
const co = (pred: number, flag = '-co') => CO(pred).flatMap((c) => [flag, c]);
const calcCo = (pred: number) => CO(pred).map((c) => `--co=${c}`);

function py(code: string, args: string[]): string {
  const r = spawnSync(PY, ['-c', code, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`comparison failed (${r.status ?? r.signal}): ${r.stderr.slice(-2000)}`);
  return r.stdout.trim();
}

const READ = `
import sys, json
from osgeo import gdal
import numpy as np
gdal.UseExceptions()
def rd(p, band=1):
    d = gdal.Open(p); b = d.GetRasterBand(band); a = b.ReadAsArray().astype(np.float64); nd = b.GetNoDataValue()
    if nd is not None: a[a == nd] = np.nan
    return a, d.RasterCount
`;

/** Raster agreement over every band: max |diff| where both are valid, nodata mismatches, pixels off by more than `tol`. */
function rasterAgreement(a: string, b: string, tol: number): string {
  const out = py(READ + `
tol = float(sys.argv[3])
_, n = rd(sys.argv[1])
mx = 0.0; nm = 0; off = 0; tot = 0
for k in range(1, n + 1):
    a, _ = rd(sys.argv[1], k); b, _ = rd(sys.argv[2], k)
    if a.shape != b.shape: print(json.dumps({"shape": [list(a.shape), list(b.shape)]})); sys.exit(0)
    both = ~np.isnan(a) & ~np.isnan(b)
    d = np.abs(a[both] - b[both])
    if d.size: mx = max(mx, float(d.max())); off += int((d > tol).sum())
    nm += int((np.isnan(a) != np.isnan(b)).sum()); tot += a.size
print(json.dumps({"max": mx, "nodata": nm, "off": off, "n": tot}))
`, [a, b, String(tol)]);
  const r = JSON.parse(out);
  if (r.shape) return `DIFFERENT SHAPES ${JSON.stringify(r.shape)}`;
  const same = r.max === 0 && r.nodata === 0;
  return same ? 'identical' : `max |diff| ${r.max.toPrecision(3)}, ${r.off} px > ${tol}, nodata mismatches ${r.nodata} (of ${r.n})`;
}

function polygonAgreement(gwFile: string, gdalFile: string): string {
  const out = py(`
import sys, json
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
fa = a['features']; fb = [f for f in b['features'] if f['properties'].get('DN', 1) != 0]
ha = sum(len(f['geometry']['coordinates']) - 1 for f in fa); hb = sum(len(f['geometry']['coordinates']) - 1 for f in fb)
print(json.dumps({"a": len(fa), "b": len(fb), "ha": ha, "hb": hb}))
`, [gwFile, gdalFile]);
  const r = JSON.parse(out);
  return r.a === r.b && r.ha === r.hb ? `same polygons and holes (${r.a}, ${r.ha})` : `polygons ${r.a} vs ${r.b}, holes ${r.ha} vs ${r.hb}`;
}

/** Largest relative difference between our numbers and numpy's, key by key. */
function numbersAgreement(ours: Record<string, number>, theirs: Record<string, number>): string {
  let worst = 0, key = '';
  for (const k of Object.keys(theirs)) {
    const a = ours[k], b = theirs[k];
    const d = Math.abs(a - b) / Math.max(1e-12, Math.abs(b));
    if (!(d <= worst)) { worst = d; key = k; }
  }
  return worst === 0 ? 'identical' : `max relative diff ${worst.toPrecision(2)} (${key})`;
}

/** Every case at one input size; outputs go under `out/<size>/`. */
export function toolCases(inp: BenchInputs, cli: string, outRoot: string): ToolCase[] {
  const N = inp.size;
  const od = path.join(outRoot, String(N));
  const gwDir = path.join(od, 'gw');
  fs.mkdirSync(gwDir, { recursive: true });
  const gw = (tool: string, args: Record<string, string | number>) => [cli, 'run', tool, ...Object.entries(args).flatMap(([k, v]) => ['--arg', `${k}=${v}`]), '--out', gwDir, '--json'];
  const stem = (f: string) => path.basename(f).replace(/\.tif$/, '');
  const g = (f: string) => path.join(od, f);
  const cases: ToolCase[] = [];
  const raster = (tol: number) => (gwOut: string, gdalOut: string) => () => rasterAgreement(gwOut, gdalOut, tol);

  const add = (c: Omit<ToolCase, 'compare'>, cmp: (gwOut: string, gdalOut: string) => (gwStdout: string, gdalStdout: string) => string) => cases.push({ ...c, compare: cmp(c.gwOut, c.gdalOut) });

  add({ tool: 'ndvi', counterpart: 'gdal_calc.py', gwArgs: gw('ndvi', { image: inp.scene, red: 3, nir: 4 }), gwOut: path.join(gwDir, `${stem(inp.scene)}_ndvi.tif`), gdalOut: g('calc_ndvi.tif'),
    gdal: { cmd: 'gdal_calc.py', args: ['-A', inp.scene, '--A_band=3', '-B', inp.scene, '--B_band=4', '--calc=(B.astype(numpy.float32)-A)/(B.astype(numpy.float32)+A)',
      '--type=Float32', '--NoDataValue=-9999', ...calcCo(3), '--overwrite', `--outfile=${g('calc_ndvi.tif')}`, '--quiet'] } }, raster(1e-6));

  // Sentinel-2 as downloaded: two JPEG 2000 bands (GDAL decodes them with native OpenJPEG, GeoWeave with its WebAssembly build).
  add({ tool: 'ndvi_jp2', counterpart: 'gdal_calc.py', gwArgs: gw('ndvi', { red: inp.jp2.red, nir: inp.jp2.nir }), gwOut: path.join(gwDir, `${path.basename(path.dirname(inp.jp2.red)).replace(/^\.+/, '')}_ndvi.tif`), gdalOut: g('calc_ndvi_jp2.tif'),
    gdal: { cmd: 'gdal_calc.py', args: ['-A', inp.jp2.red, '-B', inp.jp2.nir, '--calc=(B.astype(numpy.float32)-A)/(B.astype(numpy.float32)+A)',
      '--type=Float32', '--NoDataValue=-9999', ...calcCo(3), '--overwrite', `--outfile=${g('calc_ndvi_jp2.tif')}`, '--quiet'] } }, raster(1e-6));

  add({ tool: 'threshold', counterpart: 'gdal_calc.py', gwArgs: gw('threshold', { image: inp.ndvi, op: 'gt', value: 0.25 }), gwOut: path.join(gwDir, `${stem(inp.ndvi)}_threshold.tif`), gdalOut: g('calc_threshold.tif'),
    gdal: { cmd: 'gdal_calc.py', args: ['-A', inp.ndvi, '--calc=A>0.25', '--type=Byte', '--NoDataValue=255', ...calcCo(2), '--overwrite', `--outfile=${g('calc_threshold.tif')}`, '--quiet'] } }, raster(0));

  // Breaks exactly representable in float32, so numpy's float32 comparisons and ours agree.
  add({ tool: 'reclassify', counterpart: 'gdal_calc.py', gwArgs: gw('reclassify', { image: inp.ndvi, breaks: '-0.25,0.25,0.5' }), gwOut: path.join(gwDir, `${stem(inp.ndvi)}_reclassify.tif`), gdalOut: g('calc_reclassify.tif'),
    gdal: { cmd: 'gdal_calc.py', args: ['-A', inp.ndvi, '--calc=1*(A<-0.25)+2*((A>=-0.25)*(A<0.25))+3*((A>=0.25)*(A<0.5))+4*(A>=0.5)', '--type=Byte', '--NoDataValue=0', ...calcCo(2), '--overwrite', `--outfile=${g('calc_reclassify.tif')}`, '--quiet'] } }, raster(0));

  // Half the width and height, not aligned to the 512 tiles.
  const c0 = Math.round(N * 0.2371), r0 = Math.round(N * 0.1913), cw = Math.round(N / 2);
  const bbox = [500000 + c0 * 10, 5000000 - (r0 + cw) * 10, 500000 + (c0 + cw) * 10, 5000000 - r0 * 10];
  add({ tool: 'clip_bbox', counterpart: 'gdal_translate -projwin', gwArgs: gw('clip_bbox', { image: inp.scene, bbox: bbox.join(',') }), gwOut: path.join(gwDir, `${stem(inp.scene)}_clip.tif`), gdalOut: g('translate_clip.tif'),
    gdal: { cmd: 'gdal_translate', args: ['-q', '-projwin', String(bbox[0]), String(bbox[3]), String(bbox[2]), String(bbox[1]), ...co(2), inp.scene, g('translate_clip.tif')] } }, raster(0));

  add({ tool: 'resample', counterpart: 'gdalwarp -r average', gwArgs: gw('resample', { image: inp.scene, factor: 2, method: 'average' }), gwOut: path.join(gwDir, `${stem(inp.scene)}_resampled.tif`), gdalOut: g('warp_average.tif'),
    gdal: { cmd: 'gdalwarp', args: ['-q', '-overwrite', '-r', 'average', '-ts', String(N / 2), String(N / 2), '-ot', 'Float32', '-dstnodata', '-9999', ...co(3), inp.scene, g('warp_average.tif')] } }, raster(1e-3));

  // Interpolating resamplers on the NDVI (float32): both scale the kernel when they aggregate, as
  // gdalwarp does. Each in its own folder (the CLI names the output after the input, not the method).
  for (const method of ['bilinear', 'cubic']) {
    const dir = path.join(od, `gw-${method}`);
    fs.mkdirSync(dir, { recursive: true });
    add({ tool: `resample_${method}`, counterpart: `gdalwarp -r ${method}`, gwArgs: [...gw('resample', { image: inp.ndvi, factor: 2, method }).slice(0, -3), '--out', dir, '--json'],
      gwOut: path.join(dir, `${stem(inp.ndvi)}_resampled.tif`), gdalOut: g(`warp_${method}.tif`),
      gdal: { cmd: 'gdalwarp', args: ['-q', '-overwrite', '-r', method, '-ts', String(N / 2), String(N / 2), '-ot', 'Float32', '-dstnodata', '-9999', ...co(3), inp.ndvi, g(`warp_${method}.tif`)] } }, raster(2e-4));
  }

  // reproject and align: the NDVI (UTM 33N) into ETRS89 / LAEA Europe (EPSG:3035), bilinear, against gdalwarp with
  // the same resampling on the same grid. reproject chooses its grid (10 m over the input's outline): gdalwarp is
  // given that grid (-te/-ts, read from one GeoWeave run made once per size). align takes the grid of a reference
  // raster: a 10 m EPSG:3035 byte raster over the same area (gdalwarp's suggested extent, made once with GDAL).
  // gdalwarp runs with its default approximate transformer (-et 0.125 px); GeoWeave's positions are within 1e-3 px
  // of exact, so the outputs differ by up to the value change over an eighth of a pixel.
  const rpDir = path.join(od, 'gw-reproject');
  fs.mkdirSync(rpDir, { recursive: true });
  const rpArgs = [...gw('reproject', { image: inp.ndvi, dst_crs: 'EPSG:3035', resampling: 'bilinear', resolution: 10 }).slice(0, -3), '--out', rpDir, '--json'];
  const rpGrid = g('reproject_grid.json');
  if (!fs.existsSync(rpGrid)) {
    const r = spawnSync(process.execPath, rpArgs, { encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`reproject grid run failed: ${r.stderr.slice(-2000)}`);
    const st = JSON.parse(r.stdout).stats;
    fs.writeFileSync(rpGrid, JSON.stringify({ width: st.width, height: st.height, gt: st.geoTransform }));
  }
  const rg = JSON.parse(fs.readFileSync(rpGrid, 'utf8')) as { width: number; height: number; gt: number[] };
  const te = [rg.gt[0], rg.gt[3] + rg.gt[5] * rg.height, rg.gt[0] + rg.gt[1] * rg.width, rg.gt[3]].map(String);
  add({ tool: 'reproject', counterpart: 'gdalwarp -t_srs EPSG:3035 -r bilinear', gwArgs: rpArgs, gwOut: path.join(rpDir, `${stem(inp.ndvi)}_reprojected.tif`), gdalOut: g('warp_reproject.tif'),
    gdal: { cmd: 'gdalwarp', args: ['-q', '-overwrite', '-t_srs', 'EPSG:3035', '-te', ...te, '-ts', String(rg.width), String(rg.height), '-r', 'bilinear', '-ot', 'Float32', '-dstnodata', '-9999', ...co(3), inp.ndvi, g('warp_reproject.tif')] } }, raster(1e-2));

  const ref = g('align_reference_3035.tif');
  if (!fs.existsSync(ref)) {
    py(`
import sys
from osgeo import gdal
gdal.UseExceptions()
v = gdal.Warp('', sys.argv[1], format='VRT', dstSRS='EPSG:3035', xRes=10, yRes=10, targetAlignedPixels=True)
d = gdal.GetDriverByName('GTiff').Create(sys.argv[2], v.RasterXSize, v.RasterYSize, 1, gdal.GDT_Byte, ['TILED=YES', 'SPARSE_OK=TRUE', 'COMPRESS=DEFLATE'])
d.SetGeoTransform(v.GetGeoTransform()); d.SetProjection(v.GetProjection()); d = None
print('ok')
`, [inp.ndvi, ref]);
  }
  const refInfo = JSON.parse(py(`
import sys, json
from osgeo import gdal
d = gdal.Open(sys.argv[1]); print(json.dumps({"w": d.RasterXSize, "h": d.RasterYSize, "gt": d.GetGeoTransform()}))
`, [ref])) as { w: number; h: number; gt: number[] };
  const rte = [refInfo.gt[0], refInfo.gt[3] + refInfo.gt[5] * refInfo.h, refInfo.gt[0] + refInfo.gt[1] * refInfo.w, refInfo.gt[3]].map(String);
  add({ tool: 'align', counterpart: 'gdalwarp -t_srs EPSG:3035 -r bilinear', gwArgs: gw('align', { image: inp.ndvi, reference: ref, resampling: 'bilinear' }), gwOut: path.join(gwDir, `${stem(inp.ndvi)}_aligned.tif`), gdalOut: g('warp_align.tif'),
    gdal: { cmd: 'gdalwarp', args: ['-q', '-overwrite', '-t_srs', 'EPSG:3035', '-te', ...rte, '-ts', String(refInfo.w), String(refInfo.h), '-r', 'bilinear', '-ot', 'Float32', '-dstnodata', '-9999', ...co(3), inp.ndvi, g('warp_align.tif')] } }, raster(1e-2));

  // A polygon (an irregular hexagon over about half the scene) in a GeoPackage in the raster's CRS.
  const cut = g('cutline.gpkg');
  if (!fs.existsSync(cut)) {
    const ring = [[0.2, 0.15], [0.7, 0.1], [0.9, 0.45], [0.75, 0.85], [0.3, 0.9], [0.1, 0.5], [0.2, 0.15]].map(([fx, fy]) => [500000 + fx * N * 10, 5000000 - fy * N * 10]);
    py(`
import sys
from osgeo import ogr, osr
srs = osr.SpatialReference(); srs.ImportFromEPSG(32633)
ds = ogr.GetDriverByName('GPKG').CreateDataSource(sys.argv[1])
lyr = ds.CreateLayer('cut', srs, ogr.wkbPolygon)
f = ogr.Feature(lyr.GetLayerDefn()); f.SetGeometry(ogr.CreateGeometryFromWkt(sys.argv[2])); lyr.CreateFeature(f)
ds = None
print('ok')
`, [cut, `POLYGON((${ring.map(([x, y]) => `${x} ${y}`).join(', ')}))`]);
  }
  add({ tool: 'clip_to_vector', counterpart: 'gdalwarp -cutline -crop_to_cutline', gwArgs: gw('clip_to_vector', { image: inp.ndvi, cutline: cut }), gwOut: path.join(gwDir, `${stem(inp.ndvi)}_clipped.tif`), gdalOut: g('warp_cutline.tif'),
    gdal: { cmd: 'gdalwarp', args: ['-q', '-overwrite', '-cutline', cut, '-crop_to_cutline', ...co(3), inp.ndvi, g('warp_cutline.tif')] } }, raster(0));

  // gdal_proximity's sweep is sometimes a little long; ours is the exact transform.
  add({ tool: 'distance_to', counterpart: 'gdal_proximity.py', gwArgs: gw('distance_to', { image: inp.mask }), gwOut: path.join(gwDir, `${stem(inp.mask)}_distance_to.tif`), gdalOut: g('proximity.tif'),
    gdal: { cmd: PY, args: ['/usr/bin/gdal_proximity.py', '-q', inp.mask, g('proximity.tif'), '-values', '1', '-distunits', 'GEO', '-ot', 'Float32', ...co(3)] } }, raster(0.01));

  for (const [tool, ext, pred, tol] of [['slope', 'slope', 3, 1e-3], ['aspect', 'aspect', 3, 1e-3], ['hillshade', 'hillshade', 2, 1]] as [string, string, number, number][]) {
    add({ tool, counterpart: `gdaldem ${tool}`, gwArgs: gw(tool, { dem: inp.dem }), gwOut: path.join(gwDir, `${stem(inp.dem)}_${ext}.tif`), gdalOut: g(`gdaldem_${tool}.tif`),
      gdal: { cmd: 'gdaldem', args: [tool, '-q', inp.dem, g(`gdaldem_${tool}.tif`), ...co(pred)] } }, raster(tol));
  }

  const gdalPoly = g('polygonize.geojson');
  add({ tool: 'vectorize_mask', counterpart: 'gdal_polygonize.py', gwArgs: gw('vectorize_mask', { image: inp.mask }), gwOut: path.join(gwDir, `${stem(inp.mask)}_vectorize_mask.geojson`), gdalOut: gdalPoly,
    gdal: { cmd: '/bin/sh', args: ['-c', `rm -f "${gdalPoly}" && ${PY} /usr/bin/gdal_polygonize.py -q "${inp.mask}" -mask "${inp.mask}" -f GeoJSON "${gdalPoly}" poly DN`] } },
    (a, b) => () => polygonAgreement(a, b));

  const zonalPy = READ + `
v, _ = rd(sys.argv[1]); z, _ = rd(sys.argv[2])
ok = ~np.isnan(z) & (z != 0)
out = {}
for c in np.unique(z[ok]):
    s = v[ok & (z == c)]; s = s[~np.isnan(s)]
    out[str(int(c))] = {"count": int(s.size), "mean": float(s.mean()), "min": float(s.min()), "max": float(s.max()), "std": float(s.std()), "sum": float(s.sum())}
print(json.dumps(out))
`;
  add({ tool: 'zonal_stats', counterpart: 'GDAL python + numpy', gwArgs: gw('zonal_stats', { image: inp.ndvi, zones: inp.zones }), gwOut: path.join(gwDir, `${stem(inp.ndvi)}_zonal_stats.csv`), gdalOut: '',
    gdal: { cmd: PY, args: ['-c', zonalPy, inp.ndvi, inp.zones] } },
    () => (gwStdout, npStdout) => {
      const ours = JSON.parse(gwStdout).stats.table as Record<string, number>[];
      const theirs = JSON.parse(npStdout) as Record<string, Record<string, number>>;
      const flat = (o: Record<string, Record<string, number>>) => Object.fromEntries(Object.entries(o).flatMap(([z, s]) => Object.entries(s).map(([k, v]) => [`${z}.${k}`, v])));
      return numbersAgreement(flat(Object.fromEntries(ours.map((r) => [String(r.zone), r]))), flat(theirs));
    });

  const statsPy = READ + `
v, _ = rd(sys.argv[1]); s = v[~np.isnan(v)]
print(json.dumps({"valid": int(s.size), "mean": float(s.mean()), "std": float(s.std()), "min": float(s.min()), "max": float(s.max()), "p50": float(np.percentile(s, 50)), "p90": float(np.percentile(s, 90))}))
`;
  add({ tool: 'raster_stats', counterpart: 'GDAL python + numpy', gwArgs: gw('raster_stats', { image: inp.ndvi }), gwOut: '', gdalOut: '',
    gdal: { cmd: PY, args: ['-c', statsPy, inp.ndvi] } },
    () => (gwStdout, npStdout) => {
      const st = JSON.parse(gwStdout).stats;
      const theirs = JSON.parse(npStdout);
      // Percentiles come from a regular subsample of 1M pixels: compared apart, loosely.
      const exact = numbersAgreement({ valid: st.valid, mean: st.mean, std: st.std, min: st.min, max: st.max }, { valid: theirs.valid, mean: theirs.mean, std: theirs.std, min: theirs.min, max: theirs.max });
      const p = st.percentiles ?? {};
      return `${exact}; p50/p90 ${Number(p.p50).toFixed(4)}/${Number(p.p90).toFixed(4)} vs ${theirs.p50.toFixed(4)}/${theirs.p90.toFixed(4)} (ours from a subsample)`;
    });
  return cases;
}
