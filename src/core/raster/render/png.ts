/** Minimal RGBA PNG encoder (filter 0 per row, DEFLATE through libdeflate or Node's zlib). */
import { crc32 } from 'node:zlib';
import { deflateBytes } from '../io/native-deflate';

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)) >>> 0, 8 + data.length);
  return out;
}

/** libdeflate level 2: 1-13% smaller than zlib level 3 in a third to a half of the time on the bench quicklooks (zlib level 3 without the addon). */
function idat(raw: Buffer): Buffer {
  const z = deflateBytes(raw, { level: 2, zlib: { level: 3 } });
  return Buffer.from(z.buffer, z.byteOffset, z.byteLength);
}

export function encodePng(rgba: Uint8Array, width: number, height: number): Buffer {
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0;
    Buffer.from(rgba.buffer, rgba.byteOffset + y * width * 4, width * 4).copy(raw, y * (width * 4 + 1) + 1);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0); ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; ihdr[9] = 6; ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('IDAT', idat(raw)), chunk('IEND', Buffer.alloc(0)),
  ]);
}
