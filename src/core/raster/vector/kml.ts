/**
 * KML and KMZ reader (Google Earth placemarks, field boundaries drawn by hand): polygons, multi-geometries
 * and points, through @tmcw/togeojson on an @xmldom/xmldom document. KML coordinates are always
 * WGS 84 lon/lat; a placemark's name, description and ExtendedData are its attributes, its style
 * (colours, line widths) is not.
 */
import * as fs from 'node:fs';
import { VectorError, VectorLayer } from './types';
import { geoJsonLayer } from './geojson';
import { LONLAT } from '../crs/crs';
import { kmlFromKmz } from './kmz';

/** Properties togeojson derives from a placemark's style, not from its data. */
const STYLE_KEYS = /^(fill|fill-opacity|stroke|stroke-opacity|stroke-width|styleUrl|styleHash|styleMapHash|icon|icon-.*|label-.*|visibility|timespan|timestamp)$/;

export function readKml(file: string): VectorLayer {
  const text = /\.kmz$/i.test(file) ? kmlFromKmz(file) : fs.readFileSync(file, 'utf8');
  const errors: string[] = [];
  let doc: unknown;
  try {
    const { DOMParser } = require('@xmldom/xmldom') as typeof import('@xmldom/xmldom');
    doc = new DOMParser({ onError: (level: string, msg: string) => { if (level !== 'warning') errors.push(msg); } }).parseFromString(text, 'text/xml');
  } catch (e) {
    errors.push((e as Error).message);
  }
  if (errors.length || !doc) throw new VectorError(`${file}: not readable KML (${(errors[0] ?? 'empty document').split('\n')[0].slice(0, 200)})`);
  const root = (doc as { documentElement?: { localName?: string } }).documentElement;
  if (root?.localName !== 'kml') throw new VectorError(`${file}: not KML (the root element is <${root?.localName ?? '?'}>, not <kml>)`);
  const { kml } = require('@tmcw/togeojson') as typeof import('@tmcw/togeojson');
  const fc = kml(doc as Parameters<typeof kml>[0]);
  for (const f of fc.features) {
    const props = (f.properties ?? {}) as Record<string, unknown>;
    for (const k of Object.keys(props)) if (STYLE_KEYS.test(k)) delete props[k];
    f.properties = props;
  }
  return geoJsonLayer(fc, file, { format: 'KML', layer: file.replace(/^.*[\\/]/, '').replace(/\.km[lz]$/i, ''), crs: LONLAT });
}
