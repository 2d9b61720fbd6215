/**
 * GDAL virtual rasters (.vrt) as gdalbuildvrt and QGIS's "Build Virtual Raster" write them: a grid,
 * a CRS, and per band the windows of other rasters that fill it (SimpleSource, ComplexSource).
 * Parsed into a plain description here; vrt-dataset.ts reads pixels through it. What GDAL computes
 * on the fly (pixel functions, warped VRTs, lookup tables, kernels) is refused by name, so a file is
 * either read as GDAL reads it or not at all.
 */
import * as path from 'node:path';
import type { DType } from '../samples';

/** A rectangle in pixels; VRTs hold fractional ones where a source's grid is not the mosaic's. */
export interface Rect { x: number; y: number; w: number; h: number }

export interface VrtSource {
  /** Absolute path (relativeToVRT resolved), or the name as written when it is not a local path. */
  file: string;
  /** 1-based band of the source. */
  band: number;
  /** The source's size as the VRT records it (SourceProperties), when it does. */
  size?: { width: number; height: number };
  src?: Rect;
  dst?: Rect;
  /** ComplexSource: source values equal to this are transparent. */
  nodata?: number;
  /** ComplexSource: out = value × scaleRatio + scaleOffset. */
  scaleRatio: number;
  scaleOffset: number;
  /** ComplexSource UseMaskBand: the source's nodata pixels are transparent. */
  useMask: boolean;
}

export interface VrtBand {
  dtype: DType;
  nodata: number | null;
  description: string | null;
  scale: number;
  offset: number;
  sources: VrtSource[];
}

export interface VrtSpec {
  width: number;
  height: number;
  /** GDAL order; absent when the VRT has none. */
  geoTransform?: [number, number, number, number, number, number];
  srs?: string;
  bands: VrtBand[];
  blockWidth?: number;
  blockHeight?: number;
  /** Elements that were skipped without changing a value (a colour table, a mask band). */
  warnings: string[];
}

export class VrtError extends Error {}

/** VRT files larger than this are not a raster description (a mosaic of 10 000 tiles is about 8 MB). */
export const MAX_VRT_BYTES = 32 << 20;
/**
 * Tags and attributes parsed at most (counted as '<' and '=' before parsing): the DOM costs about
 * 3 KB for each, so the byte limit alone lets 8 million empty elements, or one element of 600 000
 * attributes, take gigabytes. A gdalbuildvrt source is about 25 of them: this is some 10 000
 * source bands (a mosaic of 2500 four-band tiles), at most about 750 MB of DOM.
 */
export const MAX_VRT_MARKUP = 250_000;
/** Largest side and pixel count, as for any raster (dataset.ts: MAX_RASTER_SIDE, MAX_RASTER_PIXELS). */
const MAX_SIDE = 1 << 17, MAX_PIXELS = 2 ** 31;
/** Sources per band (each may hold a file open while read). */
export const MAX_VRT_SOURCES = 100_000;

const DTYPES = new Map<string, DType>([
  ['Byte', 'uint8'], ['Int8', 'int8'], ['UInt16', 'uint16'], ['Int16', 'int16'], ['UInt32', 'uint32'], ['Int32', 'int32'], ['Float32', 'float32'], ['Float64', 'float64'],
]);

const CONVERT = 'convert it to GeoTIFF with gdal_translate -of GTiff -co TILED=YES -co COMPRESS=DEFLATE IN.vrt OUT.tif';

type El = { localName: string; tagName: string; getAttribute(n: string): string | null; hasAttribute(n: string): boolean; childNodes: ArrayLike<unknown>; textContent: string | null };

function children(e: El): El[] {
  const out: El[] = [];
  for (let i = 0; i < e.childNodes.length; i++) {
    const c = e.childNodes[i] as { nodeType: number };
    if (c.nodeType === 1) out.push(c as unknown as El);
  }
  return out;
}

function child(e: El, name: string): El | undefined { return children(e).find((c) => c.localName === name); }

function text(e: El | undefined): string | undefined { return e?.textContent?.trim(); }

export function parseVrt(file: string, xml: string): VrtSpec {
  let markup = 0;
  for (let i = 0; i < xml.length; i++) {
    const c = xml.charCodeAt(i);
    if ((c === 60 /* < */ || c === 61 /* = */) && ++markup > MAX_VRT_MARKUP) {
      throw new VrtError(`${file}: more than ${MAX_VRT_MARKUP} XML tags and attributes; a VRT of that size is not read (build smaller mosaics, or a VRT of VRTs)`);
    }
  }
  const errors: string[] = [];
  let doc: { documentElement?: El } | undefined;
  try {
    const { DOMParser } = require('@xmldom/xmldom') as typeof import('@xmldom/xmldom');
    doc = new DOMParser({ onError: (level: string, msg: string) => { if (level !== 'warning') errors.push(msg); } }).parseFromString(xml, 'text/xml') as unknown as { documentElement?: El };
  } catch (e) {
    errors.push((e as Error).message);
  }
  if (errors.length || !doc?.documentElement) throw new VrtError(`${file}: not a readable VRT (${(errors[0] ?? 'empty document').split('\n')[0].slice(0, 200)})`);
  const root = doc.documentElement;
  if (root.localName !== 'VRTDataset') throw new VrtError(`${file}: not a GDAL VRT (the root element is <${root.localName}>, not <VRTDataset>)`);
  const sub = root.getAttribute('subClass');
  if (sub) throw new VrtError(`${file}: a ${sub} (computed by GDAL as it is read) is not read by GeoWeave; ${CONVERT}`);
  const width = int(file, root, 'rasterXSize'), height = int(file, root, 'rasterYSize');
  if (width > MAX_SIDE || height > MAX_SIDE || width * height > MAX_PIXELS) {
    throw new VrtError(`${file}: ${width}x${height} pixels is larger than GeoWeave processes (at most ${MAX_SIDE} a side and ${MAX_PIXELS} pixels); clip it first (gdal_translate -srcwin)`);
  }
  const warnings: string[] = [];
  const spec: VrtSpec = { width, height, bands: [], warnings };
  const gt = text(child(root, 'GeoTransform'));
  if (gt !== undefined) {
    const v = gt.split(',').map((s) => Number(s.trim()));
    const det = v[1] * v[5] - v[2] * v[4];
    if (v.length !== 6 || v.some((n) => !Number.isFinite(n)) || !Number.isFinite(det) || det === 0) throw new VrtError(`${file}: <GeoTransform> "${gt.slice(0, 120)}" is not six numbers of an invertible transform`);
    spec.geoTransform = v as VrtSpec['geoTransform'];
  }
  const srs = text(child(root, 'SRS'));
  if (srs) spec.srs = srs;
  for (const c of children(root)) {
    if (c.localName === 'VRTRasterBand') {
      const n = spec.bands.length + 1, declared = c.getAttribute('band');
      if (declared !== null && Number(declared) !== n) throw new VrtError(`${file}: <VRTRasterBand band="${declared}"> is band ${n} in the file; bands must be numbered 1, 2, … in order`);
      spec.bands.push(parseBand(file, c, n, warnings));
    } else if (c.localName === 'MaskBand') warnings.push(`${file}: its <MaskBand> is not read (pixels it masks are read as data)`);
    else if (c.localName === 'GCPList') throw new VrtError(`${file}: georeferenced by ground control points (<GCPList>), which GeoWeave does not read from a VRT; ${CONVERT}`);
  }
  if (!spec.bands.length) throw new VrtError(`${file}: no <VRTRasterBand>; a VRT needs at least one band`);
  const first = children(root).find((c) => c.localName === 'VRTRasterBand');
  const bx = first?.getAttribute('blockXSize'), by = first?.getAttribute('blockYSize');
  if (bx && by && Number(bx) > 0 && Number(by) > 0) { spec.blockWidth = Math.min(Number(bx), width); spec.blockHeight = Math.min(Number(by), height); }
  return spec;
}

function int(file: string, e: El, attr: string, min = 1): number {
  const raw = e.getAttribute(attr);
  const n = Number(raw);
  if (raw === null || !Number.isInteger(n) || n < min) throw new VrtError(`${file}: <${e.localName} ${attr}="${raw ?? ''}"> must be an integer ≥ ${min}`);
  return n;
}

function num(file: string, raw: string | undefined | null, what: string): number {
  const s = (raw ?? '').trim();
  if (/^nan$/i.test(s)) return NaN;
  const n = Number(s);
  if (!s || (!Number.isFinite(n) && !/^[+-]?inf/i.test(s))) throw new VrtError(`${file}: ${what} "${s.slice(0, 60)}" is not a number`);
  return Number.isFinite(n) ? n : (s.startsWith('-') ? -Infinity : Infinity);
}

function parseBand(file: string, e: El, n: number, warnings: string[]): VrtBand {
  const sub = e.getAttribute('subClass');
  if (sub) throw new VrtError(`${file}: band ${n} is a ${sub} (${sub === 'VRTDerivedRasterBand' ? 'a pixel function GDAL computes as it reads' : 'not a band of sources'}), which GeoWeave does not read; ${CONVERT}`);
  const dt = e.getAttribute('dataType') ?? 'Byte';
  const dtype = DTYPES.get(dt);
  if (!dtype) throw new VrtError(`${file}: band ${n} has dataType "${dt.slice(0, 40)}", which GeoWeave does not read (it reads ${[...DTYPES.keys()].join(', ')})`);
  const nd = text(child(e, 'NoDataValue'));
  const band: VrtBand = {
    dtype, nodata: nd === undefined ? null : num(file, nd, `band ${n} <NoDataValue>`),
    description: text(child(e, 'Description')) || null,
    scale: child(e, 'Scale') ? num(file, text(child(e, 'Scale')), `band ${n} <Scale>`) : 1,
    offset: child(e, 'Offset') ? num(file, text(child(e, 'Offset')), `band ${n} <Offset>`) : 0,
    sources: [],
  };
  for (const c of children(e)) {
    switch (c.localName) {
      case 'SimpleSource': case 'ComplexSource': band.sources.push(parseSource(file, c, n)); break;
      case 'AveragedSource': case 'KernelFilteredSource': case 'NoDataFromMaskSource':
        throw new VrtError(`${file}: band ${n} has a <${c.localName}> (GDAL computes it as it reads), which GeoWeave does not read; ${CONVERT}`);
      case 'ColorTable': warnings.push(`${file}: band ${n}'s <ColorTable> is not read (values are read as numbers)`); break;
      case 'MaskBand': warnings.push(`${file}: band ${n}'s <MaskBand> is not read (pixels it masks are read as data)`); break;
      default: break;
    }
    if (band.sources.length > MAX_VRT_SOURCES) throw new VrtError(`${file}: band ${n} has more than ${MAX_VRT_SOURCES} sources; build smaller mosaics`);
  }
  return band;
}

function rect(file: string, e: El | undefined, what: string): Rect | undefined {
  if (!e) return undefined;
  const r = { x: num(file, e.getAttribute('xOff'), `${what} xOff`), y: num(file, e.getAttribute('yOff'), `${what} yOff`), w: num(file, e.getAttribute('xSize'), `${what} xSize`), h: num(file, e.getAttribute('ySize'), `${what} ySize`) };
  if (![r.x, r.y, r.w, r.h].every(Number.isFinite) || r.w <= 0 || r.h <= 0) throw new VrtError(`${file}: ${what} ${JSON.stringify(r)} must have finite offsets and positive sizes`);
  return r;
}

function parseSource(file: string, e: El, n: number): VrtSource {
  const where = `band ${n} <${e.localName}>`;
  const fnEl = child(e, 'SourceFilename');
  const name = text(fnEl);
  if (!name) throw new VrtError(`${file}: ${where} has no <SourceFilename>`);
  if (/^\/vsi|^[A-Z0-9_]+:[^\\/]/i.test(name) && !/^[a-z]:[\\/]/i.test(name)) {
    throw new VrtError(`${file}: ${where} reads "${name.slice(0, 120)}", a GDAL virtual file or driver path, which GeoWeave does not open; ${CONVERT}`);
  }
  const relative = fnEl?.getAttribute('relativeToVRT') === '1';
  const src: VrtSource = {
    file: relative ? path.resolve(path.dirname(file), name) : path.resolve(name),
    band: Number(text(child(e, 'SourceBand')) ?? '1'),
    scaleRatio: 1, scaleOffset: 0, useMask: false,
  };
  if (!Number.isInteger(src.band) || src.band < 1) {
    const sb = text(child(e, 'SourceBand'));
    throw new VrtError(`${file}: ${where} <SourceBand>${sb}</SourceBand> ${/^mask/i.test(sb ?? '') ? 'reads a mask band, which GeoWeave does not read' : 'must be a band number ≥ 1'}`);
  }
  const props = child(e, 'SourceProperties');
  if (props) {
    const w = Number(props.getAttribute('RasterXSize')), h = Number(props.getAttribute('RasterYSize'));
    if (Number.isInteger(w) && w > 0 && Number.isInteger(h) && h > 0) src.size = { width: w, height: h };
  }
  src.src = rect(file, child(e, 'SrcRect'), `${where} <SrcRect>`);
  src.dst = rect(file, child(e, 'DstRect'), `${where} <DstRect>`);
  const resampling = e.getAttribute('resampling');
  if (resampling && !/^(near|nearest)$/i.test(resampling)) {
    throw new VrtError(`${file}: ${where} resamples with "${resampling}", which GeoWeave does not read from a VRT (it reads nearest neighbour); ${CONVERT}`);
  }
  if (e.localName === 'ComplexSource') {
    for (const c of children(e)) {
      switch (c.localName) {
        case 'NODATA': src.nodata = num(file, text(c), `${where} <NODATA>`); break;
        case 'ScaleRatio': src.scaleRatio = num(file, text(c), `${where} <ScaleRatio>`); break;
        case 'ScaleOffset': src.scaleOffset = num(file, text(c), `${where} <ScaleOffset>`); break;
        case 'UseMaskBand': src.useMask = /^(1|true|yes|on)$/i.test(text(c) ?? ''); break;
        case 'LUT': case 'ColorTableComponent': case 'Exponent': case 'SrcMin': case 'SrcMax': case 'DstMin': case 'DstMax':
          throw new VrtError(`${file}: ${where} has <${c.localName}> (a value mapping GDAL applies as it reads), which GeoWeave does not read; ${CONVERT}`);
        default: break;
      }
    }
    if (!Number.isFinite(src.scaleRatio) || !Number.isFinite(src.scaleOffset)) throw new VrtError(`${file}: ${where} <ScaleRatio>/<ScaleOffset> must be finite`);
  }
  return src;
}
