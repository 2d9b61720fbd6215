/**
 * HDF-EOS5 test files made by the HDF-EOS5 library itself (Debian's libhe5-hdfeos0, on the system
 * HDF5), called from python through ctypes as test/helpers/hdf4-writer.ts does for HDF-EOS2:
 * grids through HE5_GDcreate/HE5_GDdefproj/HE5_GDdefdim/HE5_GDdeftile/HE5_GDdefcomp/
 * HE5_GDdeffield/HE5_GDwritefield and field attributes through HE5_GDwritelocattr (as VIIRS land
 * products are written), grid attributes through HE5_GDwriteattr, swaths through HE5_SWcreate.
 * Values come from numpy expressions of `i` (the flat index).
 */
import { spawnSync } from 'node:child_process';
import { PY } from './raster-gdal';

/** A grid field: dimension list, type, numpy value expression, tiling/deflate, fill and attributes (text, or [type, numbers]). */
export interface He5FieldSpec {
  name: string; dims: string; type: string; shape: number[]; expr: string;
  /** Tiling and deflate stay set for the grid's later fields (HDF-EOS5 keeps them): tile those too. */
  tile?: number[]; deflate?: number; fill?: number;
  attrs?: Record<string, string | [string, number[]]>;
}
export interface He5GridSpec {
  name: string; xdim: number; ydim: number; ul: [number, number]; lr: [number, number];
  proj: 'GEO' | 'UTM' | 'SNSOID'; zone?: number; sphere?: number; params?: number[];
  dims?: Record<string, number>; attrs?: Record<string, string | [string, number[]]>; fields: He5FieldSpec[];
}
export interface He5SwathSpec { name: string; dims: Record<string, number>; fields: (He5FieldSpec & { geo?: boolean })[] }
export interface He5Spec { file: string; grids?: He5GridSpec[]; swaths?: He5SwathSpec[] }

const WRITER = String.raw`
import ctypes as C, json, sys
import numpy as np
he = C.CDLL('libhe5_hdfeos.so.0')
hid, i32, f64, cp, vp, ci, hs = C.c_int64, C.c_int32, C.c_double, C.c_char_p, C.c_void_p, C.c_int, C.c_uint64
def sig(name, res, *args):
    f = getattr(he, name); f.restype = res; f.argtypes = list(args); return f
GDopen = sig('HE5_GDopen', hid, cp, C.c_uint); GDcreate = sig('HE5_GDcreate', hid, hid, cp, C.c_long, C.c_long, vp, vp)
GDdefproj = sig('HE5_GDdefproj', ci, hid, ci, ci, ci, vp); GDdefdim = sig('HE5_GDdefdim', ci, hid, cp, hs)
GDdeftile = sig('HE5_GDdeftile', ci, hid, ci, ci, vp); GDdefcomp = sig('HE5_GDdefcomp', ci, hid, ci, vp)
GDdeffield = sig('HE5_GDdeffield', ci, hid, cp, cp, cp, hid, ci); GDsetfillvalue = sig('HE5_GDsetfillvalue', ci, hid, cp, hid, vp)
GDwritefield = sig('HE5_GDwritefield', ci, hid, cp, vp, vp, vp, vp)
GDwriteattr = sig('HE5_GDwriteattr', ci, hid, cp, hid, vp, vp); GDwritelocattr = sig('HE5_GDwritelocattr', ci, hid, cp, cp, hid, vp, vp)
GDdetach = sig('HE5_GDdetach', ci, hid); GDclose = sig('HE5_GDclose', ci, hid)
SWopen = sig('HE5_SWopen', hid, cp, C.c_uint); SWcreate = sig('HE5_SWcreate', hid, hid, cp); SWdefdim = sig('HE5_SWdefdim', ci, hid, cp, hs)
SWdefgeofield = sig('HE5_SWdefgeofield', ci, hid, cp, cp, cp, hid, ci); SWdefdatafield = sig('HE5_SWdefdatafield', ci, hid, cp, cp, cp, hid, ci)
SWwritefield = sig('HE5_SWwritefield', ci, hid, cp, vp, vp, vp, vp); SWdetach = sig('HE5_SWdetach', ci, hid); SWclose = sig('HE5_SWclose', ci, hid)
NT = {'int8': 13, 'uint8': 14, 'int16': 15, 'uint16': 16, 'int32': 17, 'uint32': 18, 'float32': 10, 'float64': 11}
PROJ = {'GEO': 0, 'UTM': 1, 'SNSOID': 16}
TRUNC, RDWR = 2, 1  # H5F_ACC_TRUNC, H5F_ACC_RDWR (the 10x values are for Fortran)
def ok(r, what):
    if r < 0: raise SystemExit(what + ' failed')
    return r
def carr(t, v): return (t * len(v))(*v)
def values(f):
    n = int(np.prod(f['shape'])); i = np.arange(n, dtype=np.float64)
    return np.ascontiguousarray(np.asarray(eval(f['expr'], {'np': np, 'i': i})).astype(f['type']).reshape(f['shape']))
def attr(v):
    if isinstance(v, str):
        b = v.encode(); return 57, carr(hs, [len(b)]), C.c_char_p(b)
    a = np.array(v[1], dtype=v[0]); return NT[v[0]], carr(hs, [a.size]), a
def writefield(write, oid, f):
    a = values(f)
    ok(write(oid, f['name'].encode(), carr(C.c_int64, [0] * a.ndim), None, carr(hs, list(a.shape)), a.ctypes.data), 'write ' + f['name'])
spec = json.loads(sys.argv[1])
if spec.get('grids'):
    fid = ok(GDopen(spec['file'].encode(), TRUNC), 'HE5_GDopen')
    for g in spec['grids']:
        gid = ok(GDcreate(fid, g['name'].encode(), g['xdim'], g['ydim'], carr(f64, g['ul']), carr(f64, g['lr'])), 'HE5_GDcreate')
        ok(GDdefproj(gid, PROJ[g['proj']], g.get('zone', 0), g.get('sphere', 12), carr(f64, (g.get('params', []) + [0] * 13)[:13])), 'HE5_GDdefproj')
        for dn, dl in g.get('dims', {}).items(): ok(GDdefdim(gid, dn.encode(), dl), 'HE5_GDdefdim')
        for f in g['fields']:
            if f.get('tile'): ok(GDdeftile(gid, 1, len(f['tile']), carr(hs, f['tile'])), 'HE5_GDdeftile')
            if f.get('deflate'): ok(GDdefcomp(gid, 4, carr(ci, [f['deflate'], 0, 0, 0, 0])), 'HE5_GDdefcomp')
            if 'fill' in f:
                fv = np.array([f['fill']], dtype=f['type']); ok(GDsetfillvalue(gid, f['name'].encode(), NT[f['type']], fv.ctypes.data), 'HE5_GDsetfillvalue')
            ok(GDdeffield(gid, f['name'].encode(), f['dims'].encode(), None, NT[f['type']], 0), 'HE5_GDdeffield ' + f['name'])
            writefield(GDwritefield, gid, f)
            for k, v in (f.get('attrs') or {}).items():
                t, n, buf = attr(v); ok(GDwritelocattr(gid, f['name'].encode(), k.encode(), t, n, buf.ctypes.data if hasattr(buf, 'ctypes') else C.cast(buf, vp)), 'HE5_GDwritelocattr ' + k)
        for k, v in (g.get('attrs') or {}).items():
            t, n, buf = attr(v); ok(GDwriteattr(gid, k.encode(), t, n, buf.ctypes.data if hasattr(buf, 'ctypes') else C.cast(buf, vp)), 'HE5_GDwriteattr ' + k)
        ok(GDdetach(gid), 'HE5_GDdetach')
    ok(GDclose(fid), 'HE5_GDclose')
if spec.get('swaths'):
    fid = ok(SWopen(spec['file'].encode(), RDWR if spec.get('grids') else TRUNC), 'HE5_SWopen')
    for s in spec['swaths']:
        sid = ok(SWcreate(fid, s['name'].encode()), 'HE5_SWcreate')
        for dn, dl in s['dims'].items(): ok(SWdefdim(sid, dn.encode(), dl), 'HE5_SWdefdim')
        for f in s['fields']:
            ok((SWdefgeofield if f.get('geo') else SWdefdatafield)(sid, f['name'].encode(), f['dims'].encode(), None, NT[f['type']], 0), 'HE5_SWdef ' + f['name'])
            writefield(SWwritefield, sid, f)
        ok(SWdetach(sid), 'HE5_SWdetach')
    ok(SWclose(fid), 'HE5_SWclose')
`;

/** Null when the HDF-EOS5 library loads from python, else why not (the package to install). */
export function he5LibMissing(): string | null {
  const r = spawnSync(PY, ['-c', "import ctypes as C; C.CDLL('libhe5_hdfeos.so.0')"], { encoding: 'utf8' });
  return r.status === 0 ? null : 'libhe5_hdfeos.so.0 not found (apt-get install libhe5-hdfeos0)';
}

/** Writes `spec.file` with the HDF-EOS5 library; throws with its error output on failure. */
export function writeHe5(spec: He5Spec, cwd?: string): void {
  const r = spawnSync(PY, ['-c', WRITER, JSON.stringify(spec)], { encoding: 'utf8', cwd });
  if (r.status !== 0) throw new Error(`HDF-EOS5 writer failed for ${spec.file}: ${r.stderr || r.stdout}`);
}
