/**
 * HDF4 test files made by the HDF4 and HDF-EOS2 libraries themselves (Debian's libhdfeos0, which
 * brings libhdf4-0-alt), called from python through ctypes: no compiler, no package beyond those.
 * Grids and swaths through the HDF-EOS API (GDcreate/GDdefproj/GDdeftile/GDdefcomp/GDwritefield,
 * as MODIS's production code writes them), plain scientific data sets through the SD API
 * (compressed, chunked with partial edge chunks, grown along an unlimited dimension = linked blocks).
 * Values come from numpy expressions of `i` (the flat index) so the tests need no data files.
 */
import { spawnSync } from 'node:child_process';
import { PY } from './raster-gdal';

/** An HDF-EOS grid field: its dimension list, type, numpy value expression, tiling/compression and SD attributes. */
export interface EosFieldSpec {
  name: string; dims: string; type: string; shape: number[]; expr: string;
  tile?: number[]; comp?: number; level?: number; fill?: number;
  attrs?: Record<string, string | [string, number[]]>;
}
export interface EosGridSpec {
  name: string; xdim: number; ydim: number; ul?: [number, number]; lr?: [number, number];
  proj: 'GEO' | 'UTM' | 'SNSOID' | 'LAMAZ' | 'PS' | 'ISINUS'; zone?: number; sphere?: number; params?: number[];
  dims?: Record<string, number>; fields: EosFieldSpec[];
}
export interface SwathSpec { name: string; dims: Record<string, number>; maps?: [string, string, number, number][]; fields: (EosFieldSpec & { geo?: boolean })[] }
/** A plain SDS: `grow` rows at a time along an unlimited first dimension (in linked blocks of `blockSize` bytes); `compress` [coder, parameter]; `chunk` extents, compressed with `chunkComp`. */
export interface SdsSpec {
  name: string; type: string; shape: number[]; expr: string;
  grow?: number; blockSize?: number; compress?: [number, number]; chunk?: number[]; chunkComp?: [number, number]; fill?: number;
  attrs?: Record<string, string | [string, number[]]>; write?: [number[], number[]];
}
export interface Hdf4Spec { file: string; grids?: EosGridSpec[]; swaths?: SwathSpec[]; sds?: SdsSpec[]; globals?: Record<string, string | [string, number[]]> }

const WRITER = String.raw`
import ctypes as C, json, sys
import numpy as np
C.CDLL('libdfalt.so.0', mode=C.RTLD_GLOBAL)
mf = C.CDLL('libmfhdfalt.so.0', mode=C.RTLD_GLOBAL)
eos = C.CDLL('libhdfeos.so.0')
df = C.CDLL('libdfalt.so.0')
i32, f64, cp, vp, ci = C.c_int32, C.c_double, C.c_char_p, C.c_void_p, C.c_int
def sig(lib, name, res, *args):
    f = getattr(lib, name); f.restype = res; f.argtypes = list(args); return f
class ChunkDef(C.Structure):
    _fields_ = [('lengths', i32 * 32), ('comp_type', i32), ('model_type', i32), ('info', i32 * 16)]
GDopen = sig(eos, 'GDopen', i32, cp, ci); GDcreate = sig(eos, 'GDcreate', i32, i32, cp, i32, i32, vp, vp)
GDdefproj = sig(eos, 'GDdefproj', ci, i32, i32, i32, i32, vp); GDdefdim = sig(eos, 'GDdefdim', ci, i32, cp, i32)
GDdeftile = sig(eos, 'GDdeftile', ci, i32, i32, i32, vp); GDdefcomp = sig(eos, 'GDdefcomp', ci, i32, i32, vp)
GDdeffield = sig(eos, 'GDdeffield', ci, i32, cp, cp, i32, i32); GDwritefield = sig(eos, 'GDwritefield', ci, i32, cp, vp, vp, vp, vp)
GDsetfillvalue = sig(eos, 'GDsetfillvalue', ci, i32, cp, vp); GDdetach = sig(eos, 'GDdetach', ci, i32); GDclose = sig(eos, 'GDclose', ci, i32)
SWcreate = sig(eos, 'SWcreate', i32, i32, cp); SWdefdim = sig(eos, 'SWdefdim', ci, i32, cp, i32)
SWdefdimmap = sig(eos, 'SWdefdimmap', ci, i32, cp, cp, i32, i32); SWdefgeofield = sig(eos, 'SWdefgeofield', ci, i32, cp, cp, i32, i32)
SWdefdatafield = sig(eos, 'SWdefdatafield', ci, i32, cp, cp, i32, i32); SWwritefield = sig(eos, 'SWwritefield', ci, i32, cp, vp, vp, vp, vp)
SWdetach = sig(eos, 'SWdetach', ci, i32)
EHidinfo = sig(eos, 'EHidinfo', ci, i32, vp, vp)
SDstart = sig(mf, 'SDstart', i32, cp, i32); SDcreate = sig(mf, 'SDcreate', i32, i32, cp, i32, i32, vp)
SDwritedata = sig(mf, 'SDwritedata', ci, i32, vp, vp, vp, vp); SDsetcompress = sig(mf, 'SDsetcompress', ci, i32, i32, vp)
SDsetchunk = sig(mf, 'SDsetchunk', ci, i32, ChunkDef, i32); SDsetfillvalue = sig(mf, 'SDsetfillvalue', ci, i32, vp); SDsetblocksize = sig(mf, 'SDsetblocksize', ci, i32, i32)
SDnametoindex = sig(mf, 'SDnametoindex', i32, i32, cp); SDselect = sig(mf, 'SDselect', i32, i32, i32)
SDsetattr = sig(mf, 'SDsetattr', ci, i32, cp, i32, i32, vp); SDendaccess = sig(mf, 'SDendaccess', ci, i32); SDend = sig(mf, 'SDend', ci, i32)
NT = {'int8': 20, 'uint8': 21, 'int16': 22, 'uint16': 23, 'int32': 24, 'uint32': 25, 'float32': 5, 'float64': 6}
PROJ = {'GEO': 0, 'UTM': 1, 'PS': 6, 'LAMAZ': 11, 'SNSOID': 16, 'ISINUS': 99}
def ok(r, what):
    if r < 0:
        libc = C.CDLL('libc.so.6'); df.HEprint(C.c_void_p.in_dll(libc, 'stderr'), 0); libc.fflush(None)
        raise SystemExit(what + ' failed')
    return r
def carr(t, v): return (t * len(v))(*v)
def values(f):
    n = int(np.prod(f['shape'])); i = np.arange(n, dtype=np.float64)
    return np.ascontiguousarray(np.asarray(eval(f['expr'], {'np': np, 'i': i})).astype(f['type']).reshape(f['shape']))
def setattrs(obj, attrs):
    for k, v in (attrs or {}).items():
        if isinstance(v, str):
            b = v.encode(); ok(SDsetattr(obj, k.encode(), 4, len(b), b), 'attr ' + k)
        else:
            a = np.array(v[1], dtype=v[0]); ok(SDsetattr(obj, k.encode(), NT[v[0]], a.size, a.ctypes.data), 'attr ' + k)
spec = json.loads(sys.argv[1])
if spec.get('grids') or spec.get('swaths'):
    fid = ok(GDopen(spec['file'].encode(), 4), 'GDopen')
    for g in spec.get('grids', []):
        gid = ok(GDcreate(fid, g['name'].encode(), g['xdim'], g['ydim'], carr(f64, g['ul']) if g.get('ul') else None, carr(f64, g['lr']) if g.get('lr') else None), 'GDcreate')
        ok(GDdefproj(gid, PROJ[g['proj']], g.get('zone', 0), g.get('sphere', 12), carr(f64, (g.get('params', []) + [0] * 13)[:13])), 'GDdefproj')
        for dn, dl in g.get('dims', {}).items(): ok(GDdefdim(gid, dn.encode(), dl), 'GDdefdim')
        for f in g['fields']:
            if f.get('tile'): ok(GDdeftile(gid, 1, len(f['tile']), carr(i32, f['tile'])), 'GDdeftile')
            else: ok(GDdeftile(gid, 0, 0, None), 'GDdeftile')
            ok(GDdefcomp(gid, f.get('comp', 0), carr(ci, [f.get('level', 6), 0, 0, 0, 0])), 'GDdefcomp')
            ok(GDdeffield(gid, f['name'].encode(), f['dims'].encode(), NT[f['type']], 0), 'GDdeffield ' + f['name'])
            if 'fill' in f:
                fv = np.array([f['fill']], dtype=f['type']); ok(GDsetfillvalue(gid, f['name'].encode(), fv.ctypes.data), 'GDsetfillvalue')
            a = values(f)
            ok(GDwritefield(gid, f['name'].encode(), None, None, None, a.ctypes.data), 'GDwritefield ' + f['name'])
        ok(GDdetach(gid), 'GDdetach')
    for s in spec.get('swaths', []):
        sid = ok(SWcreate(fid, s['name'].encode()), 'SWcreate')
        for dn, dl in s['dims'].items(): ok(SWdefdim(sid, dn.encode(), dl), 'SWdefdim')
        for gd, dd, o, inc in s.get('maps', []): ok(SWdefdimmap(sid, gd.encode(), dd.encode(), o, inc), 'SWdefdimmap')
        for f in s['fields']:
            ok((SWdefgeofield if f.get('geo') else SWdefdatafield)(sid, f['name'].encode(), f['dims'].encode(), NT[f['type']], 0), 'SWdef ' + f['name'])
            a = values(f)
            ok(SWwritefield(sid, f['name'].encode(), None, None, None, a.ctypes.data), 'SWwritefield ' + f['name'])
        ok(SWdetach(sid), 'SWdetach')
    hdf, sdid = i32(), i32()
    ok(EHidinfo(fid, C.byref(hdf), C.byref(sdid)), 'EHidinfo')
    for g in spec.get('grids', []):
        for f in g['fields']:
            if f.get('attrs'):
                s = ok(SDselect(sdid.value, ok(SDnametoindex(sdid.value, f['name'].encode()), 'SDnametoindex')), 'SDselect')
                setattrs(s, f['attrs']); SDendaccess(s)
    setattrs(sdid.value, spec.get('globals'))
    ok(GDclose(fid), 'GDclose')
else:
    sd = ok(SDstart(spec['file'].encode(), 4), 'SDstart')
    setattrs(sd, spec.get('globals'))
    grown = []
    for f in spec.get('sds', []):
        shape = list(f['shape'])
        dims = carr(i32, [0 if f.get('grow') else shape[0]] + shape[1:])
        s = ok(SDcreate(sd, f['name'].encode(), NT[f['type']], len(shape), dims), 'SDcreate ' + f['name'])
        if 'fill' in f:
            fv = np.array([f['fill']], dtype=f['type']); ok(SDsetfillvalue(s, fv.ctypes.data), 'SDsetfillvalue')
        if f.get('blockSize'): ok(SDsetblocksize(s, f['blockSize']), 'SDsetblocksize')
        if f.get('compress'): ok(SDsetcompress(s, f['compress'][0], carr(i32, [f['compress'][1], 0, 0, 0, 0, 0, 0, 0])), 'SDsetcompress')
        if f.get('chunk'):
            cd = ChunkDef()
            for k, v in enumerate(f['chunk']): cd.lengths[k] = v
            flags = 1
            if f.get('chunkComp'): cd.comp_type = f['chunkComp'][0]; cd.info[0] = f['chunkComp'][1]; flags = 3
            ok(SDsetchunk(s, cd, flags), 'SDsetchunk')
        a = values(f)
        setattrs(s, f.get('attrs'))
        if f.get('grow'):
            grown.append((s, f, a)); continue
        if f.get('write'):
            st, ed = f['write']; sub = np.ascontiguousarray(a[tuple(slice(o, o + e) for o, e in zip(st, ed))])
            ok(SDwritedata(s, carr(i32, st), None, carr(i32, ed), sub.ctypes.data), 'SDwritedata')
        else:
            ok(SDwritedata(s, carr(i32, [0] * len(shape)), None, carr(i32, shape), a.ctypes.data), 'SDwritedata')
        SDendaccess(s)
    # SDS along an unlimited dimension grown in turns: each append lands after the others' and
    # HDF4 links the pieces (linked blocks), as a product appended to over time is stored.
    for r0 in range(0, max([f['shape'][0] for _, f, _ in grown] or [0]), max([f['grow'] for _, f, _ in grown] or [1])):
        for s, f, a in grown:
            part = np.ascontiguousarray(a[r0:r0 + f['grow']])
            if part.shape[0]: ok(SDwritedata(s, carr(i32, [r0] + [0] * (a.ndim - 1)), None, carr(i32, list(part.shape)), part.ctypes.data), 'SDwritedata')
    for s, _, _ in grown: SDendaccess(s)
    ok(SDend(sd), 'SDend')
`;

/** Null when the HDF4/HDF-EOS libraries load from python, else why not (the package to install). */
export function hdf4LibsMissing(): string | null {
  const r = spawnSync(PY, ['-c', "import ctypes as C; C.CDLL('libdfalt.so.0', mode=C.RTLD_GLOBAL); C.CDLL('libmfhdfalt.so.0', mode=C.RTLD_GLOBAL); C.CDLL('libhdfeos.so.0')"], { encoding: 'utf8' });
  return r.status === 0 ? null : 'libhdfeos.so.0 not found (apt-get install libhdfeos0)';
}

/** Writes `spec.file` with the HDF4/HDF-EOS libraries; throws with their error stack on failure. */
export function writeHdf4(spec: Hdf4Spec, cwd?: string): void {
  const r = spawnSync(PY, ['-c', WRITER, JSON.stringify(spec)], { encoding: 'utf8', cwd });
  if (r.status !== 0) throw new Error(`HDF4 writer failed for ${spec.file}: ${r.stderr || r.stdout}`);
}
