/**
 * Adds dataset metadata items to a finished classic TIFF, in GDAL's own place for them: the
 * GDAL_METADATA tag (42112), an XML document that `gdalinfo` shows as metadata items. The file is
 * not rewritten: the new XML and a new first IFD (the old entries, the 42112 one replaced) are
 * appended and the header is pointed at the new IFD, so a 1 GB output costs a few hundred bytes.
 * Items already in the tag (band descriptions, scale and offset) are kept; items of the same name
 * are replaced. Meant for files in a run's private staging folder, before they are committed.
 */
import * as fs from 'node:fs';
import { escapeXml } from './geoinfo';
import { trimEnd } from './trim-end';

const TAG_GDAL_METADATA = 42112;
const TYPE_SIZE: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 16: 8, 17: 8, 18: 8 };

/** Item names GDAL accepts as written here: letters, digits and `_`. */
const ITEM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export async function addGdalMetadata(file: string, items: Record<string, string>): Promise<void> {
  for (const k of Object.keys(items)) if (!ITEM_NAME.test(k)) throw new Error(`metadata item name ${JSON.stringify(k)} is not a plain name`);
  const fh = await fs.promises.open(file, 'r+');
  try {
    const head = Buffer.alloc(8);
    await fh.read(head, 0, 8, 0);
    const order = head.toString('latin1', 0, 2);
    if (order !== 'II' && order !== 'MM') throw new Error(`${file}: not a TIFF file`);
    const le = order === 'II';
    const u16 = (b: Buffer, o: number) => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
    const u32 = (b: Buffer, o: number) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
    if (u16(head, 2) !== 42) throw new Error(`${file}: a BigTIFF or unknown TIFF variant; metadata not added`);
    const ifdAt = u32(head, 4);
    const cnt = Buffer.alloc(2);
    await fh.read(cnt, 0, 2, ifdAt);
    const n = u16(cnt, 0);
    const body = Buffer.alloc(n * 12 + 4);
    await fh.read(body, 0, body.length, ifdAt + 2);
    const next = u32(body, n * 12);
    const entries: Buffer[] = [];
    let existing = '';
    for (let i = 0; i < n; i++) {
      const e = body.subarray(i * 12, i * 12 + 12);
      const tag = u16(e, 0);
      if (tag !== TAG_GDAL_METADATA) { entries.push(Buffer.from(e)); continue; }
      const type = u16(e, 2), count = u32(e, 4);
      const size = count * (TYPE_SIZE[type] ?? 1);
      let raw: Buffer;
      if (size <= 4) raw = e.subarray(8, 8 + size);
      else { raw = Buffer.alloc(size); await fh.read(raw, 0, size, u32(e, 8)); }
      existing = trimEnd(raw.toString('utf8'));
    }
    const xml = Buffer.from(`${mergeItems(existing, items)}\0`, 'utf8');
    const { size: end } = await fh.stat();
    const xmlAt = end + (end & 1);
    const newIfdAt = xmlAt + xml.length + (xml.length & 1);
    const all = [...entries, entry(le, TAG_GDAL_METADATA, 2, xml.length, xmlAt)];
    all.sort((a, b) => u16(a, 0) - u16(b, 0));
    const ifd = Buffer.alloc(2 + all.length * 12 + 4);
    if (le) ifd.writeUInt16LE(all.length, 0); else ifd.writeUInt16BE(all.length, 0);
    all.forEach((e, i) => e.copy(ifd, 2 + i * 12));
    if (le) ifd.writeUInt32LE(next, 2 + all.length * 12); else ifd.writeUInt32BE(next, 2 + all.length * 12);
    if (newIfdAt + ifd.length > 0xffffffff) throw new Error(`${file}: adding metadata would pass 4 GB`);
    await fh.write(xml, 0, xml.length, xmlAt);
    await fh.write(ifd, 0, ifd.length, newIfdAt);
    const ptr = Buffer.alloc(4);
    if (le) ptr.writeUInt32LE(newIfdAt, 0); else ptr.writeUInt32BE(newIfdAt, 0);
    // The header moves last: until then readers see the old, complete IFD.
    await fh.sync();
    await fh.write(ptr, 0, 4, 4);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

function entry(le: boolean, tag: number, type: number, count: number, offset: number): Buffer {
  const e = Buffer.alloc(12);
  if (le) { e.writeUInt16LE(tag, 0); e.writeUInt16LE(type, 2); e.writeUInt32LE(count, 4); e.writeUInt32LE(offset, 8); }
  else { e.writeUInt16BE(tag, 0); e.writeUInt16BE(type, 2); e.writeUInt32BE(count, 4); e.writeUInt32BE(offset, 8); }
  return e;
}

/** The GDALMetadata document with `items` as dataset items (same-named dataset items replaced). */
export function mergeItems(existing: string, items: Record<string, string>): string {
  const names = new Set(Object.keys(items));
  const kept: string[] = [];
  const inner = /<GDALMetadata>([\s\S]*)<\/GDALMetadata>/.exec(existing)?.[1] ?? '';
  for (const m of inner.matchAll(/<Item\b[^>]*>[\s\S]*?<\/Item>|<Item\b[^>]*\/>/g)) {
    const tag = m[0];
    const name = /\bname="([^"]*)"/.exec(tag)?.[1];
    const banded = /\bsample="/.test(tag) || /\bdomain="/.test(tag);
    if (name && names.has(name) && !banded) continue;
    kept.push(`  ${tag}`);
  }
  // Escaped twice, as GDAL writes items: its GTiff reader unescapes the value once more after parsing.
  const added = Object.entries(items).map(([k, v]) => `  <Item name="${k}">${escapeXml(escapeXml(v))}</Item>`);
  return `<GDALMetadata>\n${[...kept, ...added].join('\n')}\n</GDALMetadata>`;
}
