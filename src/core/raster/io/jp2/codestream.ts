/**
 * The layout of a JPEG 2000 file (ISO 15444-1): its boxes (JP2) or bare codestream (J2K), the
 * image and tile grid from SIZ, and where every tile's parts are. Nothing is decoded here; a tile
 * is cut out as a codestream of its own (`tileCodestream`), so a window of a 10980² Sentinel-2 band
 * decodes the tiles it touches, not the band.
 */
import * as fs from 'fs';

export class Jp2Error extends Error {}

/** SIZ: the reference grid, the image area on it, the tile grid and the components. */
export interface Siz {
  xsiz: number; ysiz: number; xosiz: number; yosiz: number;
  xtsiz: number; ytsiz: number; xtosiz: number; ytosiz: number;
  /** Per component: bits (1..38), signed, sub-sampling. */
  comps: { bits: number; signed: boolean; dx: number; dy: number }[];
}

export interface Jp2Layout {
  /** File offset of the codestream (SOC) and its length in bytes. */
  csOffset: number; csLength: number;
  siz: Siz;
  /** Main-header marker segments after SIZ up to the first SOT: [file offset, length incl. the marker]. */
  mainSegments: { marker: number; offset: number; length: number }[];
  /** Tile index → its tile-parts as [file offset of SOT, length through the end of its data]. */
  tileParts: Map<number, { offset: number; length: number }[]>;
  tilesAcross: number; tilesDown: number;
  /**
   * Wavelet decomposition levels every component has (the fewest of COD and COC in the main
   * header): resolution r = 1..levels decodes at 1/2^r of the size without the finer levels.
   */
  levels: number;
  /** Boxes that georeference a JP2 (absent in a bare codestream). */
  geoJp2?: Uint8Array;
  gmlXml?: string[];
}

/** The GeoJP2 UUID box: a one-pixel GeoTIFF holding the georeferencing. */
const GEOJP2_UUID = 'b14bf8bd083d4b43a5ae8cd7d5a6ce03';
const MAX_META_BOX = 8 << 20;
const MAX_TILE_PARTS = 1 << 20;

const SOC = 0xff4f, SIZ = 0xff51, SOT = 0xff90, EOC = 0xffd9, COD = 0xff52, COC = 0xff53;
/** Main-header markers that index the codestream as a whole (left out of a tile's codestream). */
const INDEX_MARKERS = new Set([0xff55 /* TLM */, 0xff57 /* PLM */]);
/** Packed packet headers in the main header: tiles cannot be cut out without them. */
const PPM = 0xff60;

/** True when the first bytes are a JP2 signature box or a bare J2K codestream (SOC + SIZ). */
export function isJpeg2000(head: Uint8Array): boolean {
  const jp2 = head.length >= 12 && head[0] === 0 && head[1] === 0 && head[2] === 0 && head[3] === 12
    && head[4] === 0x6a && head[5] === 0x50 && head[6] === 0x20 && head[7] === 0x20;
  const j2k = head.length >= 4 && head[0] === 0xff && head[1] === 0x4f && head[2] === 0xff && head[3] === 0x51;
  return jp2 || j2k;
}

function readAt(fd: number, offset: number, length: number, size: number, what: string): Buffer {
  if (offset < 0 || length < 0 || offset + length > size) throw new Jp2Error(`${what} at byte ${offset} runs past the end of the file (${size} bytes); the file is truncated`);
  const b = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, b, got, length - got, offset + got);
    if (n <= 0) throw new Jp2Error(`${what} at byte ${offset}: the file ended early`);
    got += n;
  }
  return b;
}

/** Walks boxes in [start, end): type, offset of the contents, length of the contents. */
function* boxes(fd: number, start: number, end: number, size: number): Generator<{ type: string; at: number; len: number }> {
  let p = start;
  while (p + 8 <= end) {
    const h = readAt(fd, p, Math.min(16, end - p), size, 'box header');
    let len = h.readUInt32BE(0);
    const type = h.toString('latin1', 4, 8);
    let hdr = 8;
    if (len === 1) {
      if (h.length < 16) throw new Jp2Error(`box "${type}" at byte ${p} is cut short`);
      len = Number(h.readBigUInt64BE(8)); hdr = 16;
    } else if (len === 0) len = end - p;
    if (len < hdr || p + len > end) throw new Jp2Error(`box "${type}" at byte ${p} claims ${len} bytes, past the end of the file (${end}); the file is truncated or not JPEG 2000`);
    yield { type, at: p + hdr, len: len - hdr };
    p += len;
  }
}

/** Reads the layout of a .jp2/.j2k file open on `fd` (`size` bytes). Throws Jp2Error saying what is wrong. */
export function readJp2Layout(fd: number, size: number): Jp2Layout {
  const head = readAt(fd, 0, Math.min(16, size), size, 'signature');
  let csOffset = -1, csLength = 0;
  let geoJp2: Uint8Array | undefined;
  const gml: string[] = [];
  if (head[0] === 0xff && head[1] === 0x4f) { csOffset = 0; csLength = size; }
  else {
    if (!isJpeg2000(head)) throw new Jp2Error('not a JPEG 2000 file (no JP2 signature box or J2K codestream)');
    const collectXml = (at: number, len: number, depth: number) => {
      for (const b of boxes(fd, at, at + len, size)) {
        if (b.type === 'xml ' && b.len <= MAX_META_BOX) gml.push(readAt(fd, b.at, b.len, size, 'XML box').toString('utf8'));
        else if (b.type === 'asoc' && depth < 4) collectXml(b.at, b.len, depth + 1);
      }
    };
    for (const b of boxes(fd, 0, size, size)) {
      if (b.type === 'jp2c') { csOffset = b.at; csLength = b.len; break; }
      if (b.type === 'uuid' && b.len >= 16 && b.len <= MAX_META_BOX) {
        const body = readAt(fd, b.at, b.len, size, 'UUID box');
        if (body.toString('hex', 0, 16) === GEOJP2_UUID) geoJp2 = new Uint8Array(body.subarray(16));
      } else if (b.type === 'asoc' && b.len <= MAX_META_BOX) collectXml(b.at, b.len, 1);
      else if (b.type === 'xml ' && b.len <= MAX_META_BOX) gml.push(readAt(fd, b.at, b.len, size, 'XML box').toString('utf8'));
    }
    if (csOffset < 0) throw new Jp2Error('the JP2 file has no codestream box (jp2c); it is truncated or not an image');
  }
  const end = csOffset + csLength;
  // Main header: SOC, SIZ, then marker segments up to the first SOT.
  const soc = readAt(fd, csOffset, 4, size, 'codestream start');
  if (soc.readUInt16BE(0) !== SOC || soc.readUInt16BE(2) !== SIZ) throw new Jp2Error('the codestream does not start with SOC and SIZ markers');
  const lsiz = readAt(fd, csOffset + 4, 2, size, 'SIZ').readUInt16BE(0);
  const s = readAt(fd, csOffset + 4, lsiz, size, 'SIZ');
  const nc = s.readUInt16BE(36);
  if (lsiz !== 38 + 3 * nc || nc < 1) throw new Jp2Error(`the SIZ marker is malformed (${nc} components in ${lsiz} bytes)`);
  const siz: Siz = {
    xsiz: s.readUInt32BE(4), ysiz: s.readUInt32BE(8), xosiz: s.readUInt32BE(12), yosiz: s.readUInt32BE(16),
    xtsiz: s.readUInt32BE(20), ytsiz: s.readUInt32BE(24), xtosiz: s.readUInt32BE(28), ytosiz: s.readUInt32BE(32),
    comps: Array.from({ length: nc }, (_, c) => {
      const ssiz = s[38 + 3 * c];
      return { bits: (ssiz & 0x7f) + 1, signed: (ssiz & 0x80) !== 0, dx: s[39 + 3 * c], dy: s[40 + 3 * c] };
    }),
  };
  if (!(siz.xsiz > siz.xosiz && siz.ysiz > siz.yosiz && siz.xtsiz > 0 && siz.ytsiz > 0 && siz.xtosiz <= siz.xosiz && siz.ytosiz <= siz.yosiz
    && siz.xtosiz + siz.xtsiz > siz.xosiz && siz.ytosiz + siz.ytsiz > siz.yosiz)) {
    throw new Jp2Error(`the SIZ marker describes no valid image (image ${siz.xosiz}..${siz.xsiz} × ${siz.yosiz}..${siz.ysiz}, tiles ${siz.xtsiz}×${siz.ytsiz} from ${siz.xtosiz},${siz.ytosiz})`);
  }
  // Isot is 16 bits: a codestream has at most 65535 tiles.
  const nTiles = Math.ceil((siz.xsiz - siz.xtosiz) / siz.xtsiz) * Math.ceil((siz.ysiz - siz.ytosiz) / siz.ytsiz);
  if (nTiles > 65535) throw new Jp2Error(`the SIZ marker asks for ${nTiles} tiles, more than a codestream can number (65535)`);
  const mainSegments: Jp2Layout['mainSegments'] = [];
  let p = csOffset + 4 + lsiz;
  for (;;) {
    const m = readAt(fd, p, 4, size, 'main header marker');
    const marker = m.readUInt16BE(0);
    if (marker === SOT) break;
    if ((marker & 0xff00) !== 0xff00 || marker < 0xff30) throw new Jp2Error(`byte ${p}: expected a marker in the main header, found 0x${marker.toString(16)}`);
    if (marker === PPM) throw new Jp2Error('the codestream packs its packet headers into the main header (PPM), which GeoWeave does not read; rewrite it with gdal_translate -of JP2OpenJPEG, or convert it to GeoTIFF');
    const len = m.readUInt16BE(2) + 2;
    if (p + len > end) throw new Jp2Error(`main header marker 0x${marker.toString(16)} runs past the codestream`);
    mainSegments.push({ marker, offset: p, length: len });
    p += len;
  }
  const levels = decompositionLevels(fd, size, mainSegments, nc);
  const tilesAcross = Math.ceil((siz.xsiz - siz.xtosiz) / siz.xtsiz), tilesDown = Math.ceil((siz.ysiz - siz.ytosiz) / siz.ytsiz);
  const tileParts = new Map<number, { offset: number; length: number }[]>();
  let parts = 0;
  while (p + 2 <= end) {
    const m = readAt(fd, p, Math.min(12, end - p), size, 'tile-part header');
    const marker = m.readUInt16BE(0);
    if (marker === EOC) break;
    if (marker !== SOT || m.length < 12) throw new Jp2Error(`byte ${p}: expected a tile-part (SOT marker), found 0x${marker.toString(16)}; the codestream is corrupt`);
    const tile = m.readUInt16BE(4);
    let psot = m.readUInt32BE(6);
    // Psot 0: the last tile-part, running to EOC.
    if (psot === 0) psot = end - p - (readAt(fd, end - 2, 2, size, 'EOC').readUInt16BE(0) === EOC ? 2 : 0);
    if (psot < 14 || p + psot > end) throw new Jp2Error(`tile-part of tile ${tile} at byte ${p} claims ${psot} bytes, past the end of the codestream; the file is truncated`);
    if (tile >= tilesAcross * tilesDown) throw new Jp2Error(`tile-part at byte ${p} names tile ${tile}, but the image has ${tilesAcross * tilesDown} tiles`);
    if (++parts > MAX_TILE_PARTS) throw new Jp2Error(`more than ${MAX_TILE_PARTS} tile-parts`);
    let list = tileParts.get(tile);
    if (!list) tileParts.set(tile, (list = []));
    list.push({ offset: p, length: psot });
    p += psot;
  }
  return { csOffset, csLength, siz, mainSegments, tileParts, tilesAcross, tilesDown, levels, ...(geoJp2 ? { geoJp2 } : {}), ...(gml.length ? { gmlXml: gml } : {}) };
}

/**
 * NL of COD's SPcod (byte 9 of the segment after the marker and length: Scod, progression, layers
 * ×2, MCT, then NL), lowered by any COC (its Ccoc is one byte below 257 components, two above).
 */
function decompositionLevels(fd: number, size: number, segs: Jp2Layout['mainSegments'], nc: number): number {
  let levels = -1;
  for (const seg of segs) {
    if (seg.marker !== COD && seg.marker !== COC) continue;
    const b = readAt(fd, seg.offset, seg.length, size, seg.marker === COD ? 'COD' : 'COC');
    const at = seg.marker === COD ? 9 : 4 + (nc < 257 ? 1 : 2) + 1;
    if (at >= b.length) throw new Jp2Error(`the ${seg.marker === COD ? 'COD' : 'COC'} marker is cut short (${b.length} bytes)`);
    const nl = b[at];
    if (nl > 32) throw new Jp2Error(`the ${seg.marker === COD ? 'COD' : 'COC'} marker asks for ${nl} decomposition levels (at most 32)`);
    levels = levels < 0 ? nl : Math.min(levels, nl);
  }
  if (levels < 0) throw new Jp2Error('the main header has no COD marker (coding style); the codestream is corrupt');
  return levels;
}

/** ceil(v / 2^r): a reference-grid coordinate at resolution r (ISO 15444-1 B.5). */
const down = (v: number, r: number) => (r === 0 ? v : Math.ceil(v / 2 ** r));

/**
 * Image-grid rectangle of tile (tx, ty), relative to the image origin (XOsiz, YOsiz), at
 * resolution r (0: full size; r: the grid of 1/2^r).
 */
export function tileRect(siz: Siz, tx: number, ty: number, r = 0): { x0: number; y0: number; x1: number; y1: number } {
  const ox = siz.xtosiz + tx * siz.xtsiz, oy = siz.ytosiz + ty * siz.ytsiz;
  const ix = down(siz.xosiz, r), iy = down(siz.yosiz, r);
  return {
    x0: down(Math.max(ox, siz.xosiz), r) - ix, y0: down(Math.max(oy, siz.yosiz), r) - iy,
    x1: down(Math.min(ox + siz.xtsiz, siz.xsiz), r) - ix, y1: down(Math.min(oy + siz.ytsiz, siz.ysiz), r) - iy,
  };
}

/** Image size at resolution r. */
export function imageSizeAt(siz: Siz, r: number): { width: number; height: number } {
  return { width: down(siz.xsiz, r) - down(siz.xosiz, r), height: down(siz.ysiz, r) - down(siz.yosiz, r) };
}

/**
 * A codestream holding tile (tx, ty) alone: the main header with SIZ narrowed to the tile (its
 * position on the reference grid kept, so code-blocks and precincts fall where they did), then
 * the tile's parts renumbered as tile 0. It decodes to the same samples as that tile of the whole.
 * Undefined when the file has no data for the tile.
 */
export function tileCodestream(fd: number, size: number, l: Jp2Layout, tx: number, ty: number): Uint8Array | undefined {
  const parts = l.tileParts.get(ty * l.tilesAcross + tx);
  if (!parts) return undefined;
  const s = l.siz;
  const ox = s.xtosiz + tx * s.xtsiz, oy = s.ytosiz + ty * s.ytsiz;
  const sizSeg = readAt(fd, l.csOffset + 2, 2 + (38 + 3 * s.comps.length), size, 'SIZ');
  sizSeg.writeUInt32BE(Math.min(ox + s.xtsiz, s.xsiz), 6);
  sizSeg.writeUInt32BE(Math.min(oy + s.ytsiz, s.ysiz), 10);
  sizSeg.writeUInt32BE(Math.max(ox, s.xosiz), 14);
  sizSeg.writeUInt32BE(Math.max(oy, s.yosiz), 18);
  sizSeg.writeUInt32BE(ox, 30);
  sizSeg.writeUInt32BE(oy, 34);
  const chunks: Buffer[] = [Buffer.from([0xff, 0x4f]), sizSeg];
  for (const seg of l.mainSegments) if (!INDEX_MARKERS.has(seg.marker)) chunks.push(readAt(fd, seg.offset, seg.length, size, 'main header'));
  for (const part of parts) {
    const b = readAt(fd, part.offset, part.length, size, `tile ${ty * l.tilesAcross + tx}`);
    b.writeUInt16BE(0, 4);
    chunks.push(b);
  }
  chunks.push(Buffer.from([0xff, 0xd9]));
  // An array of its own (not a slice of Node's shared Buffer pool): it is handed to a decoder thread.
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.length; }
  return out;
}
