/**
 * Georeferencing of a JP2 file, read as GDAL reads it: the GeoJP2 box (a one-pixel GeoTIFF whose
 * tags hold the CRS and geotransform) first, else a GMLJP2 coverage (gml:RectifiedGrid: origin at
 * the centre of the first pixel, two offset vectors, srsName). Sentinel-2 bands carry GMLJP2.
 */
import type { GeoInfo } from '../dataset';
import { readGeoInfo } from '../geoinfo';
import { crsFromEpsg } from '../../crs/crs';

/** From the GeoJP2 box's embedded TIFF; undefined when it holds no georeferencing. */
export async function geoFromGeoJp2(tiff: Uint8Array): Promise<GeoInfo | undefined> {
  const { fromArrayBuffer } = await import('geotiff');
  const copy = tiff.slice();
  const t = await fromArrayBuffer(copy.buffer);
  const geo = await readGeoInfo(await t.getImage(0));
  return geo.ungeoreferenced ? undefined : geo;
}

/**
 * The elements `<name …>inner</name>` of `xml` (with or without a namespace prefix), found with
 * indexOf so a hostile box (8 MB of unclosed openings) costs one pass, not one per opening.
 */
export function* elements(xml: string, name: string): Generator<{ attrs: string; inner: string }> {
  const open = new RegExp(`<(?:[A-Za-z_][\\w.-]*:)?${name}\\b`, 'g');
  let at = 0;
  for (;;) {
    open.lastIndex = at;
    const m = open.exec(xml);
    if (!m) return;
    const gt = xml.indexOf('>', m.index);
    if (gt < 0) return;
    const prefix = m[0].slice(1, m[0].length - name.length);
    const close = xml.indexOf(`</${prefix}${name}>`, gt);
    if (close < 0) return;
    yield { attrs: xml.slice(m.index + m[0].length, gt), inner: xml.slice(gt + 1, close) };
    at = close;
  }
}

/** The inner text of the first `<name>` element, if any. */
export function firstInner(xml: string, name: string): string | undefined {
  for (const e of elements(xml, name)) return e.inner;
  return undefined;
}

function numbers(s: string | undefined): number[] {
  return (s ?? '').trim().split(/[\s,]+/).filter(Boolean).map(Number);
}

/**
 * From GMLJP2 XML (any of the file's XML boxes that holds a gml:RectifiedGrid). GDAL's reading:
 * the origin is the centre of the first pixel, so the corner is half a step back along both
 * vectors; an EPSG srsName in URN or URL form uses the EPSG axis order (latitude first for
 * geographic CRSs), the short "EPSG:4326" form easting first.
 */
export function geoFromGml(xmls: string[]): GeoInfo | undefined {
  for (const xml of xmls) {
    let grid: { attrs: string; inner: string } | undefined;
    for (const e of elements(xml, 'RectifiedGrid')) { grid = e; break; }
    if (!grid) continue;
    const body = grid.inner;
    const srs = /srsName\s*=\s*"([^"]+)"/.exec(grid.attrs)?.[1] ?? /srsName\s*=\s*"([^"]+)"/.exec(body)?.[1];
    const originEl = firstInner(body, 'origin');
    const origin = numbers(originEl === undefined ? undefined : firstInner(originEl, 'pos') ?? firstInner(originEl, 'coordinates'));
    const vectors = [...elements(body, 'offsetVector')].slice(0, 2).map((e) => numbers(e.inner));
    if (origin.length < 2 || vectors.length < 2 || vectors.some((v) => v.length < 2) || [...origin, ...vectors[0], ...vectors[1]].some((v) => !Number.isFinite(v))) continue;
    const code = srs ? /(?:EPSG:{1,2}|crs:EPSG:[^:]*:|crs\/EPSG\/0\/)(\d{4,6})\s*$/i.exec(srs) : null;
    // GeoTIFF keys (which outputs carry) hold 16 bits: a larger code is no EPSG CRS GeoWeave can write.
    const epsg = code && Number(code[1]) <= 65535 ? Number(code[1]) : undefined;
    let geographic = false;
    if (epsg !== undefined) { try { geographic = crsFromEpsg(epsg).geographic; } catch { /* a code proj4 tables do not know */ } }
    const latFirst = geographic && !!srs && /^(urn:|https?:)/i.test(srs);
    const [o, u, v] = latFirst ? [[origin[1], origin[0]], [vectors[0][1], vectors[0][0]], [vectors[1][1], vectors[1][0]]] : [origin, vectors[0], vectors[1]];
    const gt: GeoInfo['geoTransform'] = [o[0] - 0.5 * u[0] - 0.5 * v[0], u[0], v[0], o[1] - 0.5 * u[1] - 0.5 * v[1], u[1], v[1]];
    const det = gt[1] * gt[5] - gt[2] * gt[4];
    if (!Number.isFinite(det) || det === 0) continue;
    return { geoTransform: gt, geographic, ...(epsg !== undefined ? { epsg } : {}) };
  }
  return undefined;
}
