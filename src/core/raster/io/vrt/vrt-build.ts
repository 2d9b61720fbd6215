/**
 * Writing a VRT as gdalbuildvrt 3.6 writes one (apps/gdalbuildvrt_lib.cpp): the union of the
 * sources' extents, their average (or highest, lowest) resolution, each source's window by
 * GetSrcDstWin, a ComplexSource with <NODATA> where a source band has nodata and a SimpleSource
 * otherwise, later sources over earlier ones; or (separate) the first band of each source stacked.
 * Numbers are printed as GDAL prints them (%.15g rectangles, %24.16e geotransform), so GDAL and
 * vrt-dataset.ts read the file to the same pixels. Pure: the caller opens and checks the sources.
 */
import * as path from 'node:path';
import type { DType } from '../samples';
import { escapeXml } from '../geoinfo';

export interface BuildSource {
  file: string;
  width: number; height: number; bandCount: number;
  dtype: DType;
  nodata: number | null;
  geoTransform: [number, number, number, number, number, number];
  blockWidth: number; blockHeight: number;
  descriptions: (string | null)[];
  scales: number[]; offsets: number[];
}

export type Resolution = 'average' | 'highest' | 'lowest';

export interface BuiltVrt {
  xml: string;
  width: number; height: number;
  geoTransform: [number, number, number, number, number, number];
  /** Indices of the sources placed, and of those outside the extent. */
  used: number[]; skipped: number[];
}

const GDAL_TYPES: Partial<Record<DType, string>> = {
  uint8: 'Byte', int8: 'Int8', uint16: 'UInt16', int16: 'Int16', uint32: 'UInt32', int32: 'Int32', float32: 'Float32', float64: 'Float64',
};

export function gdalTypeName(d: DType): string | undefined { return GDAL_TYPES[d]; }

/** printf("%.15g"). */
function g15(v: number): string {
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf';
  return String(Number(v.toPrecision(15)));
}

/** printf("%24.16e"), GDAL's geotransform format. */
function e16(v: number): string {
  const [m, e] = v.toExponential(16).split('e');
  const exp = Number(e);
  return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`.padStart(24);
}

function noDataText(v: number): string {
  return Number.isNaN(v) ? 'nan' : String(Number(v.toPrecision(16)));
}

/** GetSrcDstWin: where source `s` lands on the target grid; null when it misses the extent. */
function srcDstWin(s: BuildSource, weRes: number, nsRes: number, minX: number, minY: number, maxX: number, maxY: number, W: number, H: number) {
  const gt = s.geoTransform;
  if (gt[0] + s.width * gt[1] <= minX || gt[0] >= maxX || gt[3] + s.height * gt[5] >= maxY || gt[3] <= minY) return null;
  let sx: number, dx: number, sy: number, dy: number;
  if (gt[0] < minX) { sx = (minX - gt[0]) / gt[1]; dx = 0; } else { sx = 0; dx = (gt[0] - minX) / weRes; }
  if (maxY < gt[3]) { sy = (gt[3] - maxY) / -gt[5]; dy = 0; } else { sy = 0; dy = (maxY - gt[3]) / -nsRes; }
  let sw = s.width, sh = s.height;
  if (sx > 0) sw -= sx;
  if (sy > 0) sh -= sy;
  const kx = gt[1] / weRes, ky = gt[5] / nsRes;
  let dw = sw * kx, dh = sh * ky;
  if (dx + dw > W) { dw = W - dx; sw = dw / kx; }
  if (dy + dh > H) { dh = H - dy; sh = dh / ky; }
  if (!(sw > 0 && dw > 0 && sh > 0 && dh > 0)) return null;
  return { sx, sy, sw, sh, dx, dy, dw, dh };
}

/** The VRT for `sources` (already checked: north-up, one CRS, same bands and types unless separate), written at `vrtFile`. */
export function buildVrt(sources: BuildSource[], opts: { vrtFile: string; srs?: string; resolution?: Resolution; separate?: boolean; roles?: (string | undefined)[] }): BuiltVrt {
  if (!sources.length) throw new Error('buildVrt needs at least one source');
  const res = opts.resolution ?? 'average';
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity, weRes = 0, nsRes = 0;
  for (const [i, s] of sources.entries()) {
    const gt = s.geoTransform;
    const x0 = gt[0], y1 = gt[3], x1 = x0 + s.width * gt[1], y0 = y1 + s.height * gt[5];
    if (i === 0) { minX = x0; minY = y0; maxX = x1; maxY = y1; } else {
      if (x0 < minX) minX = x0;
      if (y0 < minY) minY = y0;
      if (x1 > maxX) maxX = x1;
      if (y1 > maxY) maxY = y1;
    }
    if (res === 'average') { weRes += gt[1]; nsRes += gt[5]; } else if (i === 0) { weRes = gt[1]; nsRes = gt[5]; } else if (res === 'highest') { weRes = Math.min(weRes, gt[1]); nsRes = Math.max(nsRes, gt[5]); } else { weRes = Math.max(weRes, gt[1]); nsRes = Math.min(nsRes, gt[5]); }
  }
  if (res === 'average') { weRes /= sources.length; nsRes /= sources.length; }
  const W = Math.trunc(0.5 + (maxX - minX) / weRes), H = Math.trunc(0.5 + (maxY - minY) / -nsRes);
  if (!(W > 0 && H > 0)) throw new Error(`the mosaic would be ${W}x${H} pixels; check the rasters' extents and resolutions`);
  const gt: BuiltVrt['geoTransform'] = [minX, weRes, 0, maxY, 0, nsRes];
  const dir = path.dirname(path.resolve(opts.vrtFile));
  const nameOf = (f: string) => {
    const rel = path.relative(dir, f);
    return path.isAbsolute(rel) ? { rel: false, name: f } : { rel: true, name: rel.split(path.sep).join('/') };
  };
  const used: number[] = [], skipped: number[] = [];
  const wins = sources.map((s, i) => {
    const w = srcDstWin(s, weRes, nsRes, minX, minY, maxX, maxY, W, H);
    (w ? used : skipped).push(i);
    return w;
  });
  const source = (s: BuildSource, band: number, w: NonNullable<ReturnType<typeof srcDstWin>>) => {
    const n = nameOf(s.file);
    const complex = s.nodata !== null;
    const tag = complex ? 'ComplexSource' : 'SimpleSource';
    return [
      `    <${tag}>`,
      `      <SourceFilename relativeToVRT="${n.rel ? 1 : 0}">${escapeXml(n.name)}</SourceFilename>`,
      `      <SourceBand>${band}</SourceBand>`,
      `      <SourceProperties RasterXSize="${s.width}" RasterYSize="${s.height}" DataType="${GDAL_TYPES[s.dtype]}" BlockXSize="${s.blockWidth}" BlockYSize="${s.blockHeight}" />`,
      `      <SrcRect xOff="${g15(w.sx)}" yOff="${g15(w.sy)}" xSize="${g15(w.sw)}" ySize="${g15(w.sh)}" />`,
      `      <DstRect xOff="${g15(w.dx)}" yOff="${g15(w.dy)}" xSize="${g15(w.dw)}" ySize="${g15(w.dh)}" />`,
      ...(complex ? [`      <NODATA>${noDataText(s.nodata as number)}</NODATA>`] : []),
      `    </${tag}>`,
    ];
  };
  const bandXml = (n: number, dtype: DType, nodata: number | null, description: string | null | undefined, scale: number, offset: number, srcs: string[][]) => [
    `  <VRTRasterBand dataType="${GDAL_TYPES[dtype]}" band="${n}">`,
    ...(description ? [`    <Description>${escapeXml(description)}</Description>`] : []),
    ...(nodata !== null ? [`    <NoDataValue>${noDataText(nodata)}</NoDataValue>`] : []),
    ...(offset !== 0 ? [`    <Offset>${offset}</Offset>`] : []),
    ...(scale !== 1 ? [`    <Scale>${scale}</Scale>`] : []),
    ...srcs.flat(),
    '  </VRTRasterBand>',
  ];
  const bands: string[][] = [];
  const first = sources[0];
  if (opts.separate) {
    let n = 0;
    for (const [i, s] of sources.entries()) {
      const w = wins[i];
      if (!w) continue;
      bands.push(bandXml(++n, s.dtype, s.nodata, s.descriptions[0] ?? opts.roles?.[i], s.scales[0] ?? 1, s.offsets[0] ?? 0, [source(s, 1, w)]));
    }
  } else {
    for (let b = 1; b <= first.bandCount; b++) {
      const srcs = sources.flatMap((s, i) => (wins[i] ? [source(s, b, wins[i]!)] : []));
      bands.push(bandXml(b, first.dtype, first.nodata, first.descriptions[b - 1], first.scales[b - 1] ?? 1, first.offsets[b - 1] ?? 0, srcs));
    }
  }
  const xml = [
    `<VRTDataset rasterXSize="${W}" rasterYSize="${H}">`,
    ...(opts.srs ? [`  <SRS>${escapeXml(opts.srs)}</SRS>`] : []),
    `  <GeoTransform>${gt.map(e16).join(', ')}</GeoTransform>`,
    ...bands.flat(),
    '</VRTDataset>',
    '',
  ].join('\n');
  return { xml, width: W, height: H, geoTransform: gt, used, skipped };
}
