/**
 * The KML inside a KMZ (what Google Earth saves by default: a ZIP archive holding doc.kml and its
 * icons). A small reader of the ZIP central directory, since only one stored or deflated entry is
 * needed; sizes and offsets are checked against the file, and inflating stops at a bound.
 */
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import { VectorError } from './types';

/** Larger KML than this inside a KMZ is refused (a hand-drawn boundary file is kilobytes). */
const MAX_KML_BYTES = 256 << 20;

export function kmlFromKmz(file: string): string {
  const b = fs.readFileSync(file);
  const bad = (why: string) => new VectorError(`${file}: not a readable KMZ (${why}); unzip it and give the .kml inside, or convert it with ogr2ogr -f GPKG OUT.gpkg ${file}`);
  // End of central directory: the last signature 0x06054b50 within the final 64 KiB + 22 bytes.
  let eocd = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 65557); i--) if (b.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
  if (eocd < 0) throw bad('no ZIP directory');
  const entries = b.readUInt16LE(eocd + 10);
  let at = b.readUInt32LE(eocd + 16);
  const found: { name: string; method: number; size: number; local: number }[] = [];
  for (let n = 0; n < entries; n++) {
    if (at + 46 > b.length || b.readUInt32LE(at) !== 0x02014b50) throw bad('a damaged ZIP directory');
    const nameLen = b.readUInt16LE(at + 28), extraLen = b.readUInt16LE(at + 30), commentLen = b.readUInt16LE(at + 32);
    if (at + 46 + nameLen > b.length) throw bad('a damaged ZIP directory');
    const name = b.toString('utf8', at + 46, at + 46 + nameLen);
    found.push({ name, method: b.readUInt16LE(at + 10), size: b.readUInt32LE(at + 20), local: b.readUInt32LE(at + 42) });
    at += 46 + nameLen + extraLen + commentLen;
  }
  // Google Earth names it doc.kml; other writers use any name at the top level.
  const kmls = found.filter((e) => /\.kml$/i.test(e.name));
  const e = kmls.find((k) => /^doc\.kml$/i.test(k.name)) ?? kmls.sort((x, y) => x.name.split('/').length - y.name.split('/').length)[0];
  if (!e) throw bad('it holds no .kml');
  if (e.local + 30 > b.length || b.readUInt32LE(e.local) !== 0x04034b50) throw bad(`a damaged entry ${e.name}`);
  const start = e.local + 30 + b.readUInt16LE(e.local + 26) + b.readUInt16LE(e.local + 28);
  if (start + e.size > b.length) throw bad(`entry ${e.name} runs past the end of the file`);
  const data = b.subarray(start, start + e.size);
  if (e.method === 0) return data.toString('utf8');
  if (e.method !== 8) throw bad(`entry ${e.name} uses ZIP method ${e.method}, not deflate`);
  try {
    return zlib.inflateRawSync(data, { maxOutputLength: MAX_KML_BYTES }).toString('utf8');
  } catch (err) {
    throw bad(`entry ${e.name} does not inflate: ${(err as Error).message}`);
  }
}
