/**
 * A NetCDF classic file written byte by byte (big-endian), as netCDF's own library lays it out: an
 * ERA5-like 2 m temperature of 5 time steps on a 40×30 latitude/longitude grid rising from the
 * south, short values with scale_factor, add_offset and _FillValue, time the record dimension. For
 * the readers' tests and abuse trials, without a netCDF library.
 */
import * as fs from 'node:fs';

export function writeEra5Like(file: string, version: 1 | 2 | 5): void {
  fs.writeFileSync(file, era5LikeBytes(version));
}

export function era5LikeBytes(version: 1 | 2 | 5): Buffer {
  const parts: Buffer[] = [];
  const u32 = (v: number) => { const b = Buffer.alloc(4); b.writeUInt32BE(v); parts.push(b); };
  const cnt = (v: number) => (version === 5 ? (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(v)); parts.push(b); })() : u32(v));
  const off = (v: number) => (version === 1 ? u32(v) : (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(v)); parts.push(b); })());
  const pad = (b: Buffer) => Buffer.concat([b, Buffer.alloc((4 - (b.length % 4)) % 4)]);
  const name = (s: string) => { cnt(Buffer.byteLength(s)); parts.push(pad(Buffer.from(s))); };
  const text = (k: string, v: string) => { name(k); u32(2); cnt(Buffer.byteLength(v)); parts.push(pad(Buffer.from(v))); };
  const nums = (k: string, type: number, vals: number[]) => {
    name(k); u32(type); cnt(vals.length);
    const size = type === 3 ? 2 : type === 6 ? 8 : 4;
    const b = Buffer.alloc(vals.length * size);
    vals.forEach((v, i) => (type === 3 ? b.writeInt16BE(v, 2 * i) : type === 6 ? b.writeDoubleBE(v, 8 * i) : b.writeFloatBE(v, 4 * i)));
    parts.push(pad(b));
  };
  const W = 40, H = 30, T = 5;
  const lon = Array.from({ length: W }, (_, i) => 10 + 0.25 * i), lat = Array.from({ length: H }, (_, i) => 40 + 0.25 * i);
  // Header: numrecs, dims (time unlimited, latitude, longitude), a global attribute, 4 variables.
  parts.push(Buffer.from([0x43, 0x44, 0x46, version]));
  cnt(T);
  u32(10); cnt(3); name('time'); cnt(0); name('latitude'); cnt(H); name('longitude'); cnt(W);
  u32(12); cnt(1); text('Conventions', 'CF-1.6');
  // Offsets are filled in once the header's length is known: measure with placeholders first.
  const vars = (begins: number[]) => {
    u32(11); cnt(4);
    name('longitude'); cnt(1); cnt(2); u32(12); cnt(1); text('units', 'degrees_east'); u32(5); cnt(4 * W); off(begins[0]);
    name('latitude'); cnt(1); cnt(1); u32(12); cnt(1); text('units', 'degrees_north'); u32(5); cnt(4 * H); off(begins[1]);
    name('time'); cnt(1); cnt(0); u32(12); cnt(1); text('units', 'hours since 1900-01-01'); u32(6); cnt(8); off(begins[2]);
    name('t2m'); cnt(3); cnt(0); cnt(1); cnt(2); u32(12); cnt(4);
    nums('scale_factor', 6, [0.0015]); nums('add_offset', 6, [270]); nums('_FillValue', 3, [-32767]); text('units', 'K');
    u32(3); cnt(2 * W * H); off(begins[3]);
  };
  const fixed = parts.length;
  vars([0, 0, 0, 0]);
  const headerLength = Buffer.concat(parts).length;
  parts.splice(fixed);
  const lonAt = headerLength, latAt = lonAt + 4 * W, recAt = latAt + 4 * H;
  vars([lonAt, latAt, recAt, recAt + 8]);
  const lonB = Buffer.alloc(4 * W); lon.forEach((v, i) => lonB.writeFloatBE(v, 4 * i));
  const latB = Buffer.alloc(4 * H); lat.forEach((v, i) => latB.writeFloatBE(v, 4 * i));
  parts.push(lonB, latB);
  // Records: each holds time (8 bytes) then t2m (2·W·H bytes, a multiple of 4).
  for (let t = 0; t < T; t++) {
    const rec = Buffer.alloc(8 + 2 * W * H);
    rec.writeDoubleBE(1086000 + 6 * t, 0);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) {
      const v = x === 3 && y === 4 + t ? -32767 : Math.round(((15 - 0.3 * y + 0.2 * x + 2 * t) * 1) / 0.0015);
      rec.writeInt16BE(v, 8 + 2 * (y * W + x));
    }
    parts.push(rec);
  }
  return Buffer.concat(parts);
}

