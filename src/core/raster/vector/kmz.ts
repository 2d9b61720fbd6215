/**
 * The KML inside a KMZ (what Google Earth saves by default: a ZIP archive holding doc.kml and its
 * icons). Only one entry is read, through the archive module's ZIP directory reader, which checks
 * sizes and offsets against the file and stops inflating at the declared size.
 */
import * as fs from 'node:fs';
import { readZipDirectory, readEntrySync, ZipError } from '../../data/archive/zip';
import { VectorError } from './types';

/** Larger KML than this inside a KMZ is refused (a hand-drawn boundary file is kilobytes). */
const MAX_KML_BYTES = 256 << 20;

export function kmlFromKmz(file: string): string {
  const bad = (why: string) => new VectorError(`${file}: not a readable KMZ (${why}); unzip it and give the .kml inside, or convert it with ogr2ogr -f GPKG OUT.gpkg ${file}`);
  const fd = fs.openSync(file, 'r');
  try {
    const entries = readZipDirectory(fd, file);
    // Google Earth names it doc.kml; other writers use any name at the top level.
    const kmls = entries.filter((e) => /\.kml$/i.test(e.name));
    const e = kmls.find((k) => /^doc\.kml$/i.test(k.name)) ?? kmls.sort((x, y) => x.name.split('/').length - y.name.split('/').length)[0];
    if (!e) throw bad('it holds no .kml');
    return readEntrySync(fd, file, e, MAX_KML_BYTES).toString('utf8');
  } catch (err) {
    if (err instanceof ZipError) throw bad(err.reason);
    throw err;
  } finally {
    fs.closeSync(fd);
  }
}
