/**
 * The pixels of a GRIB2 PNG-packed field (template 5.41): a non-interlaced PNG, grey of 1–16 bits,
 * or 8-bit RGB / RGBA holding 24 / 32-bit values (as g2clib's enc_png writes them), unfiltered into
 * its rows one after another. g2clib then reads the packed values from these bytes as one bitstream
 * of section 5's width, and so does the caller. (g2clib writes 8, 16, 24 or 32-bit pixels; GDAL's
 * writer also 1, 2 and 4-bit ones for NBITS below 8, which GDAL 3.6 reads back as the reference
 * value everywhere and ecCodes refuses: 4-bit images read here as written, 1 and 2-bit ones are
 * damaged by that writer where a row does not end on a byte.) No palette, no interlace.
 */
import * as zlib from 'node:zlib';

/** Bytes a PNG's pixels may inflate to (a 64 M-point field of 32-bit values, with filter bytes). */
const MAX_INFLATED = (64 << 20) * 4 + (64 << 20);

export function decodePngRows(png: Uint8Array): Uint8Array {
  const b = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  if (b.length < 33 || b.readUInt32BE(0) !== 0x89504e47) throw new Error('its PNG-packed data is not a PNG image');
  let at = 8, width = 0, height = 0, depth = 0, colour = 0;
  const idat: Buffer[] = [];
  while (at + 8 <= b.length) {
    const len = b.readUInt32BE(at), type = b.toString('latin1', at + 4, at + 8);
    if (at + 12 + len > b.length) throw new Error(`its PNG chunk ${type} runs past the data section; the message is damaged`);
    const body = b.subarray(at + 8, at + 8 + len);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0); height = body.readUInt32BE(4); depth = body[8]; colour = body[9];
      if (body[12] !== 0) throw new Error('its PNG image is interlaced, which GRIB does not write');
    } else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') break;
    at += 12 + len;
  }
  const channels = colour === 0 ? 1 : colour === 2 ? 3 : colour === 6 ? 4 : 0;
  if (!channels || (channels > 1 && depth !== 8) || ![1, 2, 4, 8, 16].includes(depth)) throw new Error(`its PNG image has colour type ${colour} at ${depth} bits, which GRIB does not write`);
  if (!width || !height || width * height > (64 << 20)) throw new Error(`its PNG image is ${width}×${height}`);
  const rowBytes = Math.ceil((width * channels * depth) / 8), bpp = Math.max(1, (channels * depth) >> 3);
  let raw: Buffer;
  try { raw = zlib.inflateSync(Buffer.concat(idat), { maxOutputLength: MAX_INFLATED }); } catch (e) { throw new Error(`its PNG image does not inflate (${(e as Error).message})`); }
  if (raw.length < height * (rowBytes + 1)) throw new Error(`its PNG image inflates to ${raw.length} bytes, ${height * (rowBytes + 1)} expected`);
  // Undo the row filters (PNG §9) into consecutive rows.
  const px = new Uint8Array(height * rowBytes);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (rowBytes + 1)], src = y * (rowBytes + 1) + 1, row = y * rowBytes, up = row - rowBytes;
    for (let i = 0; i < rowBytes; i++) {
      const a = i >= bpp ? px[row + i - bpp] : 0, u = y ? px[up + i] : 0, c = y && i >= bpp ? px[up + i - bpp] : 0;
      let pred = 0;
      if (f === 1) pred = a;
      else if (f === 2) pred = u;
      else if (f === 3) pred = (a + u) >> 1;
      else if (f === 4) { const p = a + u - c, pa = Math.abs(p - a), pb = Math.abs(p - u), pc = Math.abs(p - c); pred = pa <= pb && pa <= pc ? a : pb <= pc ? u : c; }
      else if (f !== 0) throw new Error(`its PNG image has row filter ${f}`);
      px[row + i] = (raw[src + i] + pred) & 0xff;
    }
  }
  return px;
}
