/** Georeferencing and GDAL metadata parsed from a geotiff.js image. */
import type { GeoInfo } from './dataset';
import { readGeoKeys, readRawGeoKeys } from './tiff-sanity';

/** Geotransform (GDAL order), EPSG and geographic flag from ModelTiepoint/PixelScale/Transformation and GeoKeys. */
export async function readGeoInfo(image: any): Promise<GeoInfo> {
  const fd = image.fileDirectory;
  const keys = await readGeoKeys(fd);
  const tie = (await fd.loadValue('ModelTiepoint')) as ArrayLike<number> | undefined;
  const scale = (await fd.loadValue('ModelPixelScale')) as ArrayLike<number> | undefined;
  const mt = (await fd.loadValue('ModelTransformation')) as ArrayLike<number> | undefined;
  let gt: GeoInfo['geoTransform'];
  if (tie && scale && tie.length >= 6) {
    const ox = tie[3] - tie[0] * scale[0];
    const oy = tie[4] + tie[1] * scale[1];
    gt = [ox, scale[0], 0, oy, 0, -scale[1]];
  } else if (mt && mt.length >= 16) {
    gt = [mt[3], mt[0], mt[1], mt[7], mt[4], mt[5]];
  } else {
    gt = [0, 1, 0, 0, 0, 1];
  }
  const ungeoreferenced = !(tie && scale && tie.length >= 6) && !(mt && mt.length >= 16);
  if (!ungeoreferenced) checkGeoTransform(gt, tie && scale && tie.length >= 6 ? 'ModelTiepoint/ModelPixelScale' : 'ModelTransformation');
  // PixelIsPoint: GDAL shifts the origin by half a pixel so the geotransform refers to pixel corners.
  if (keys.GTRasterTypeGeoKey === 2) {
    gt = [gt[0] - gt[1] / 2 - gt[2] / 2, gt[1], gt[2], gt[3] - gt[4] / 2 - gt[5] / 2, gt[4], gt[5]];
  }
  const model = keys.GTModelTypeGeoKey;
  const proj = keys.ProjectedCSTypeGeoKey as number | undefined;
  const geog = keys.GeographicTypeGeoKey as number | undefined;
  const info: GeoInfo = { geoTransform: gt, geographic: model === 2 };
  if (ungeoreferenced) info.ungeoreferenced = { gcps: tie && tie.length >= 6 && tie.length % 6 === 0 ? Array.from(tie, Number) : [] };
  if (model === 2) { if (geog && geog !== 32767) info.epsg = geog; }
  else if (proj && proj !== 32767) info.epsg = proj;
  else if (model === undefined && geog && geog !== 32767) { info.epsg = geog; info.geographic = true; }
  const cit = (keys.GTCitationGeoKey ?? keys.GeogCitationGeoKey) as string | undefined;
  if (info.epsg === undefined && cit) info.wkt = cit;
  const raw = await readRawGeoKeys(fd);
  if (raw) info.keys = raw;
  return info;
}

/** Throws naming the tags when the geotransform is not usable: a non-finite value or a zero pixel size. */
function checkGeoTransform(gt: number[], tags: string): void {
  const det = gt[1] * gt[5] - gt[2] * gt[4];
  if (gt.some((v) => !Number.isFinite(v)) || !Number.isFinite(det)) {
    throw new Error(`the geotransform from ${tags} is not finite ([${gt.join(', ')}]); fix the georeferencing (gdal_edit.py -a_ullr / -tr) or remove it (gdal_edit.py -unsetgt)`);
  }
  if (det === 0) {
    throw new Error(`the pixel size from ${tags} is zero (geotransform [${gt.join(', ')}]); fix the georeferencing (gdal_edit.py -tr XRES YRES) or remove it (gdal_edit.py -unsetgt)`);
  }
}

export interface GdalBandMeta { description: string | null; scale: number; offset: number }

function unescapeXml(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}

/** Per-band description/scale/offset from a GDAL_METADATA (tag 42112) XML string; band index is 0-based sample. */
export function parseGdalMetadata(xml: string | undefined | null, bands: number): GdalBandMeta[] {
  const out: GdalBandMeta[] = Array.from({ length: bands }, () => ({ description: null, scale: 1, offset: 0 }));
  if (!xml) return out;
  // indexOf scanning, not a lazy regex: an item without its closing tag must not make this quadratic.
  let at = 0;
  for (;;) {
    const open = xml.indexOf('<Item', at);
    if (open < 0) break;
    const gt = xml.indexOf('>', open);
    if (gt < 0) break;
    const close = xml.indexOf('</Item>', gt);
    if (close < 0) break;
    at = close + 7;
    const attrs: Record<string, string> = {};
    for (const a of xml.slice(open + 5, gt).matchAll(/(\w+)="([^"]*)"/g)) attrs[a[1].toLowerCase()] = a[2];
    if (attrs.sample === undefined) continue;
    const s = Number(attrs.sample);
    if (!Number.isInteger(s) || s < 0 || s >= bands) continue;
    const role = (attrs.role ?? '').toLowerCase();
    // GDAL escapes values twice (the value, then the XML serializer), so unescape twice.
    const value = unescapeXml(unescapeXml(xml.slice(gt + 1, close).trim()));
    if (role === 'description') out[s].description = value;
    else if (role === 'scale' && Number.isFinite(Number(value))) out[s].scale = Number(value);
    else if (role === 'offset' && Number.isFinite(Number(value))) out[s].offset = Number(value);
  }
  return out;
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
