/** Well-known binary (ISO and EWKB flavours) → polygons; other geometry types are named, not read. */
import type { Ring } from '../algorithms/vectorize';

const NAMES: Record<number, string> = {
  1: 'Point', 2: 'LineString', 3: 'Polygon', 4: 'MultiPoint', 5: 'MultiLineString', 6: 'MultiPolygon', 7: 'GeometryCollection',
  8: 'CircularString', 9: 'CompoundCurve', 10: 'CurvePolygon', 11: 'MultiCurve', 12: 'MultiSurface', 15: 'PolyhedralSurface', 17: 'Triangle',
};

export interface WkbGeometry { type: string; polygons: Ring[][]; points?: [number, number][] }

/** Parses one geometry at `at`; throws with a short reason on a truncated or unknown blob. */
export function parseWkb(buf: Uint8Array, at = 0): WkbGeometry {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let p = at;
  const need = (n: number) => { if (p + n > buf.length) throw new Error(`WKB is truncated at byte ${p}`); };
  const header = (): { little: boolean; base: number; dims: number } => {
    need(5);
    const little = buf[p] === 1;
    let t = dv.getUint32(p + 1, little);
    p += 5;
    let dims = 2;
    if (t & 0x20000000) { need(4); p += 4; } // EWKB SRID
    if (t & 0x80000000) dims++;
    if (t & 0x40000000) dims++;
    t &= 0x0fffffff;
    const iso = Math.floor(t / 1000);
    if (iso === 1 || iso === 2) dims = 3; else if (iso === 3) dims = 4;
    return { little, base: t % 1000, dims };
  };
  const ring = (little: boolean, dims: number): Ring => {
    need(4);
    const n = dv.getUint32(p, little); p += 4;
    need(n * dims * 8);
    const out: Ring = new Array(n);
    for (let i = 0; i < n; i++) { out[i] = [dv.getFloat64(p, little), dv.getFloat64(p + 8, little)]; p += dims * 8; }
    return out;
  };
  const polygon = (little: boolean, dims: number): Ring[] => {
    need(4);
    const n = dv.getUint32(p, little); p += 4;
    const rings: Ring[] = [];
    for (let i = 0; i < n; i++) rings.push(ring(little, dims));
    return rings;
  };
  const h = header();
  const type = NAMES[h.base] ?? `geometry type ${h.base}`;
  if (h.base === 3) return { type, polygons: [polygon(h.little, h.dims)] };
  const point = (little: boolean, dims: number): [number, number] => { need(dims * 8); const pt: [number, number] = [dv.getFloat64(p, little), dv.getFloat64(p + 8, little)]; p += dims * 8; return pt; };
  if (h.base === 1) return { type, polygons: [], points: [point(h.little, h.dims)] };
  if (h.base === 4) {
    need(4);
    const n = dv.getUint32(p, h.little); p += 4;
    const pts: [number, number][] = [];
    for (let i = 0; i < n; i++) {
      const ph = header();
      if (ph.base !== 1) throw new Error(`a MultiPoint holds a ${NAMES[ph.base] ?? ph.base}`);
      pts.push(point(ph.little, ph.dims));
    }
    return { type, polygons: [], points: pts };
  }
  if (h.base === 6) {
    need(4);
    const n = dv.getUint32(p, h.little); p += 4;
    const polys: Ring[][] = [];
    for (let i = 0; i < n; i++) {
      const ph = header();
      if (ph.base !== 3) throw new Error(`a MultiPolygon holds a ${NAMES[ph.base] ?? ph.base}`);
      polys.push(polygon(ph.little, ph.dims));
    }
    return { type, polygons: polys };
  }
  return { type, polygons: [] };
}
