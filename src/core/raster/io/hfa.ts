/**
 * ERDAS Imagine rasters (`.img`, HFA): NLCD land cover, older Landsat scenes and classifications
 * from ERDAS. Read as GDAL's HFA driver (3.6) reads them: one band per `Eimg_Layer` node of the
 * root (layers of another size are left out, as GDAL does), its blocks from the layer's block table
 * in the .img or a spill file (.ige), uncompressed or run-length compressed, decoded only where a
 * window reads; u1/u2/u4/u8 as uint8, s8 as int8 (GDAL 3.6 says Byte with PIXELTYPE=SIGNEDBYTE),
 * u16…f64 as themselves, complex refused. Band descriptions are the layer names, nodata the
 * layer's Eimg_NonInitializedValue, the colour table (Red/Green/Blue of the layer's
 * Descriptor_Table, 0–1 reals) as GDAL's colour table, class names from its Class_Names column
 * (GDAL's raster attribute table) or the PAM sidecar GDAL writes category names to. The
 * geotransform and CRS come from hfa-georef.ts. Overviews are read from the .img or the .rrd beside it.
 */
import * as path from 'node:path';
import * as fs from 'node:fs';
import type { GeoInfo, RasterDataset } from './dataset';
import { MAX_RASTER_PIXELS, MAX_RASTER_SIDE, overviewGeo, toFloat } from './dataset';
import type { CategoryNames, ColorTable } from './color-table';
import { MAX_CATEGORIES, MAX_CATEGORY_CHARS, readCategoryNames } from './color-table';
import type { HfaBaseData, HfaRecord, HfaValue } from './hfa-dictionary';
import { BoundedFile, HfaFile, child, childOfType, path as nodePath, type HfaNode } from './hfa-file';
import { EPT, blockBytes, blockTableFromSpill, blockTableFromState, decodeRaw, decodeRle, type HfaBlockTable } from './hfa-blocks';
import { hfaCrs, mapInfoGeoTransform } from './hfa-georef';
import { CTORS, type DType, type TypedArray } from './samples';
import { windowTarget } from './window-check';

export { isHfa } from './hfa-file';

/** Largest block side read (ERDAS and GDAL write 64; 512 is the most seen). */
const MAX_BLOCK_SIDE = 1 << 13;
/** Largest block read (4 M samples: 32 MB of f64). */
const MAX_BLOCK_SAMPLES = 1 << 22;
/** A descriptor column read at most (65 536 class names of 256 characters). */
const MAX_COLUMN_BYTES = 16 << 20;
/** Decoded blocks kept per dataset. */
const CACHE_BYTES = 64 << 20;
/** Consecutive blocks of a window read in one go, up to this many bytes. */
const MAX_RUN_BYTES = 16 << 20;

interface Layer { node: HfaNode; table?: Promise<HfaBlockTable> }

const int = (r: HfaRecord, k: string) => (typeof r[k] === 'number' ? (r[k] as number) : NaN);

export class HfaDataset implements RasterDataset {
  width = 0; height = 0; bandCount = 0; blockWidth = 0; blockHeight = 0;
  dtype: DType = 'uint8'; geo!: GeoInfo; nodata: number | null = null;
  bandDescriptions: (string | null)[] = []; scales: number[] = []; offsets: number[] = [];
  colorTable?: ColorTable; categoryNames?: CategoryNames; warnings?: string[];
  private hfa: HfaFile;
  /** False for an overview, which reads through its dataset's open file. */
  private owner = true;
  private overviewList?: Promise<HfaDataset[]>;
  /** .rrd files overviews are in, by name. */
  private dependents = new Map<string, Promise<HfaFile | undefined>>();
  private ept = 3;
  private layers: Layer[] = [];
  private spills = new Map<string, Promise<BoundedFile>>();
  private cache = new Map<number, TypedArray>();
  private cacheBytes = 0;
  private closed = false;

  constructor(readonly source: string, private fail: (message: string) => Error) {
    this.hfa = new HfaFile(source, fail);
  }

  private bad(why: string): Error { return this.hfa.bad(why); }
  private warn(why: string): void { (this.warnings ??= []).push(`${this.source}: ${why}`); }

  async init(signal?: AbortSignal): Promise<void> {
    await this.hfa.open();
    try {
      const all = this.hfa.root.children.filter((n) => n.type === 'Eimg_Layer');
      if (!all.length) throw this.bad('an ERDAS Imagine file without raster layers (no Eimg_Layer node); it may hold vectors or annotations only');
      const records: HfaRecord[] = [];
      for (const n of all) { signal?.throwIfAborted(); records.push(await this.hfa.record(n)); }
      const first = records[0];
      const name = all[0].name;
      this.grid(first, name);
      for (let i = 0; i < all.length; i++) {
        const r = records[i];
        if (int(r, 'width') !== this.width || int(r, 'height') !== this.height) { this.warn(`layer ${all[i].name} is ${int(r, 'width')}×${int(r, 'height')}, not ${this.width}×${this.height} as the first; it is left out, as GDAL does`); continue; }
        if (this.pixelType(r, all[i].name) !== this.ept || int(r, 'blockWidth') !== this.blockWidth || int(r, 'blockHeight') !== this.blockHeight) {
          throw this.bad(`layer ${all[i].name} holds ${String(r.pixelType)} in ${int(r, 'blockWidth')}×${int(r, 'blockHeight')} blocks where ${name} holds ${EPT[this.ept].name} in ${this.blockWidth}×${this.blockHeight}; GeoWeave reads layers of one type and blocking (gdal_translate -ot can make them so)`);
        }
        this.layers.push({ node: all[i] });
      }
      this.bandCount = this.layers.length;
      this.dtype = EPT[this.ept].dtype!;
      this.scales = new Array(this.bandCount).fill(1);
      this.offsets = new Array(this.bandCount).fill(0);
      this.bandDescriptions = this.layers.map((l) => l.node.name || null);
      this.nodata = await this.noData(this.layers[0].node);
      // A damaged projection or descriptor table leaves the samples readable: placed without a CRS
      // (or not at all), without colours or names, and the warning says why (GDAL opens such files too).
      const none: GeoInfo = { geographic: false, geoTransform: [0, 1, 0, 0, 0, 1], ungeoreferenced: { gcps: [] } };
      this.geo = await this.georef(this.layers[0].node).catch((e) => this.lenient(e, none));
      await this.descriptors(signal).catch((e) => this.lenient(e, undefined));
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  /** Size, blocking and sample type from an Eimg_Layer (or Eimg_Layer_SubSample) record, checked. */
  private grid(r: HfaRecord, name: string): void {
    this.width = int(r, 'width'); this.height = int(r, 'height');
    this.blockWidth = int(r, 'blockWidth'); this.blockHeight = int(r, 'blockHeight');
    if (!(this.width > 0 && this.height > 0 && this.width <= MAX_RASTER_SIDE && this.height <= MAX_RASTER_SIDE && this.width * this.height <= MAX_RASTER_PIXELS)) {
      throw this.bad(`layer ${name} is ${this.width}×${this.height}; GeoWeave reads sides of 1–${MAX_RASTER_SIDE} and at most ${MAX_RASTER_PIXELS} pixels; cut a window first (gdal_translate -srcwin X Y W H ${path.basename(this.source)} part.tif)`);
    }
    if (!(this.blockWidth > 0 && this.blockHeight > 0 && this.blockWidth <= MAX_BLOCK_SIDE && this.blockHeight <= MAX_BLOCK_SIDE)) {
      throw this.bad(`layer ${name} has ${this.blockWidth}×${this.blockHeight} blocks; blocks of 1–${MAX_BLOCK_SIDE} a side are read`);
    }
    if (this.blockWidth * this.blockHeight > MAX_BLOCK_SAMPLES) throw this.bad(`layer ${name} has blocks of ${this.blockWidth}×${this.blockHeight} samples; at most ${MAX_BLOCK_SAMPLES} a block are read`);
    this.ept = this.pixelType(r, name);
  }

  /**
   * The overviews, largest first: those each band's RRDNamesList names (`nlcd.rrd(:Layer_1:_ss_2_)`,
   * in a .rrd beside the file as ERDAS and `gdaladdo --config HFA_USE_RRD YES` write them, or in the
   * .img itself), else its Eimg_Layer_SubSample children (`gdaladdo` into the .img). A level some
   * band lacks, of another type, or in a .rrd that is not there or is damaged is left out. Opened
   * once, on the first call.
   */
  overviews(signal?: AbortSignal): Promise<RasterDataset[]> {
    this.overviewList ??= this.loadOverviews(signal).catch((e) => { this.overviewList = undefined; throw e; });
    return this.overviewList;
  }

  private async loadOverviews(signal?: AbortSignal): Promise<HfaDataset[]> {
    if (this.closed || !this.owner) return [];
    const perBand: { file: HfaFile; node: HfaNode }[][] = [];
    for (const l of this.layers) perBand.push(await this.overviewNodes(l.node, signal));
    const out: HfaDataset[] = [];
    for (let k = 0; k < perBand[0].length; k++) {
      const level = perBand.map((list) => list[k]);
      const { file, node } = level[0];
      if (level.some((e) => !e || e.file !== file || e.node.type !== 'Eimg_Layer_SubSample')) continue;
      const o = new HfaDataset(this.source, this.fail);
      o.hfa = file; o.owner = false;
      try { o.grid(await file.record(node), `${this.layers[0].node.name}/${node.name}`); } catch { continue; }
      if (o.ept !== this.ept || o.width > this.width || o.height > this.height) continue;
      o.layers = level.map((e) => ({ node: e.node }));
      o.bandCount = this.bandCount; o.dtype = this.dtype; o.nodata = this.nodata;
      o.scales = this.scales; o.offsets = this.offsets; o.bandDescriptions = this.bandDescriptions;
      o.colorTable = this.colorTable; o.categoryNames = this.categoryNames;
      o.geo = overviewGeo(this.geo, this.width, this.height, o.width, o.height);
      out.push(o);
    }
    return out.sort((a, b) => b.width - a.width);
  }

  /** The overview layers of one band and the file each is in. */
  private async overviewNodes(layer: HfaNode, signal?: AbortSignal): Promise<{ file: HfaFile; node: HfaNode }[]> {
    const list = child(layer, 'RRDNamesList');
    if (!list) return layer.children.filter((c) => c.type === 'Eimg_Layer_SubSample').map((node) => ({ file: this.hfa, node }));
    let names: HfaRecord[] = [];
    try { names = ((await this.hfa.record(list, 'Eimg_RRDNamesList')).nameList ?? []) as HfaRecord[]; } catch { return []; }
    const out: { file: HfaFile; node: HfaNode }[] = [];
    for (const n of names.slice(0, 64)) {
      signal?.throwIfAborted();
      const text = String(n?.string ?? '');
      // "file(:Layer_1:_ss_2_)": a few dozen characters; a longer one is not a name (and not searched).
      const m = text.length <= 4096 ? /^(.*)\(:(.*)\)$/.exec(text) : null;
      if (!m) continue;
      const name = path.basename(m[1].replace(/\\/g, '/'));
      const file = name.toLowerCase() === path.basename(this.source).toLowerCase() ? this.hfa : await this.dependent(name);
      const node = file && child(file.root, m[2].split(':').filter(Boolean).join('.'));
      if (file && node) out.push({ file, node });
    }
    return out;
  }

  /** A .rrd beside the file, opened once (undefined when it is not there or is not an HFA file). */
  private async dependent(name: string): Promise<HfaFile | undefined> {
    let f = this.dependents.get(name.toLowerCase());
    if (!f) {
      const dir = path.dirname(this.source);
      let at: string | undefined;
      try { at = fs.readdirSync(dir).find((e) => e.toLowerCase() === name.toLowerCase()); } catch { /* no folder listing: no overviews */ }
      const file = at ? new HfaFile(path.join(dir, at), this.fail) : undefined;
      f = file ? file.open().then(() => file, () => undefined) : Promise.resolve(undefined);
      this.dependents.set(name.toLowerCase(), f);
    }
    return f;
  }

  /** `fallback` with a warning for a RasterError (damaged metadata); anything else (an abort) goes on. */
  private lenient<T>(e: unknown, fallback: T): T {
    if (!(e instanceof Error) || e.name === 'AbortError' || !e.message.startsWith(this.source)) throw e;
    (this.warnings ??= []).push(`${e.message}; it is ignored`);
    return fallback;
  }

  /** The layer's EPT code; complex and unknown types refused by name. */
  private pixelType(r: HfaRecord, layer: string): number {
    const i = EPT.findIndex((t) => t.name === r.pixelType);
    if (i < 0) throw this.bad(`layer ${layer} has pixel type ${String(r.pixelType)}, not one of u1…c128; the file is damaged`);
    if (!EPT[i].dtype) throw this.bad(`layer ${layer} holds complex ${EPT[i].name} samples, which GeoWeave does not read; take their magnitude first (gdal_translate -ot Float32 reads the real part)`);
    return i;
  }

  /** Eimg_NonInitializedValue's first value, as GDAL reports the band's nodata. */
  private async noData(layer: HfaNode): Promise<number | null> {
    const n = child(layer, 'Eimg_NonInitializedValue');
    if (!n) return null;
    const bd = (await this.hfa.record(n)).valueBD as HfaBaseData | null;
    return bd && bd.values.length ? bd.values[0] : null;
  }

  private async georef(layer: HfaNode): Promise<GeoInfo> {
    const none: GeoInfo = { geographic: false, geoTransform: [0, 1, 0, 0, 0, 1], ungeoreferenced: { gcps: [] } };
    const mapInfo = child(layer, 'Map_Info') ?? childOfType(layer, 'Eprj_MapInfo');
    if (!mapInfo) return none;
    const placed = mapInfoGeoTransform(await this.hfa.record(mapInfo, 'Eprj_MapInfo'));
    if (!placed) { this.warn('its Map_Info has no upper-left, lower-right and pixel size; the raster is read without a place on the map'); return none; }
    const proNode = child(layer, 'Projection');
    const pro = proNode ? await this.hfa.record(proNode, 'Eprj_ProParameters') : undefined;
    const datumNode = proNode && (child(proNode, 'Datum') ?? childOfType(proNode, 'Eprj_Datum'));
    const datum = datumNode ? await this.hfa.record(datumNode, 'Eprj_Datum') : undefined;
    const { crs, warning } = hfaCrs(pro, datum, await this.peString(layer), placed.units);
    if (warning) this.warn(warning);
    return { ...(crs ?? { geographic: false }), geoTransform: placed.gt };
  }

  /** The ESRI PE string GDAL writes in `ProjectionX` (found as GDAL finds it: 30 bytes after "PE_COORDSYS,."). */
  private async peString(layer: HfaNode): Promise<string | undefined> {
    const n = child(layer, 'ProjectionX');
    // A PE string is a few hundred bytes; a node of megabytes is not one.
    if (!n || n.dataSize > 1 << 16) return undefined;
    const s = (await this.hfa.data(n)).toString('latin1');
    const at = s.indexOf('PE_COORDSYS,.');
    if (at < 0 || at + 30 >= s.length) return undefined;
    const pe = s.slice(at + 30).split('\0')[0].trim();
    return pe || undefined;
  }

  /** Colour tables and class names from each layer's Descriptor_Table. */
  private async descriptors(signal?: AbortSignal): Promise<void> {
    const names: CategoryNames = [];
    for (let b = 0; b < this.bandCount; b++) {
      signal?.throwIfAborted();
      const layer = this.layers[b].node;
      if (b === 0) this.colorTable = await this.colors(layer);
      names.push(await this.classNames(layer));
    }
    // GDAL keeps the category names it is given in the PAM sidecar (<file>.img.aux.xml): those win, as GDAL's GetCategoryNames gives them.
    const pam = readCategoryNames(this.source, this.bandCount, (m) => (this.warnings ??= []).push(m));
    if (pam) pam.forEach((n, b) => { if (n) names[b] = n; });
    if (names.some((n) => n)) this.categoryNames = names;
  }

  /** A column of a Descriptor_Table: its rows as numbers or strings. */
  private async column(layer: HfaNode, name: string): Promise<{ rows: number; values: (number | string)[] } | undefined> {
    const n = child(layer, `Descriptor_Table.${name}`);
    if (!n) return undefined;
    const c = await this.hfa.record(n, 'Edsc_Column');
    const rows = Number(c.numRows), at = Number(c.columnDataPtr), type = String(c.dataType);
    if (!(Number.isInteger(rows) && rows >= 0 && rows <= MAX_CATEGORIES)) { this.warn(`${nodePath(n)} has ${c.numRows} rows (at most ${MAX_CATEGORIES} are read); it is ignored`); return undefined; }
    if (type === 'string') {
      const chars = Number(c.maxNumChars);
      if (!(Number.isInteger(chars) && chars > 0 && rows * chars <= MAX_COLUMN_BYTES)) { this.warn(`${nodePath(n)} has strings of ${c.maxNumChars} characters; it is ignored`); return undefined; }
      const b = await this.hfa.read(at, rows * chars, nodePath(n));
      return { rows, values: Array.from({ length: rows }, (_, i) => b.toString('utf8', i * chars, (i + 1) * chars).split('\0')[0]) };
    }
    const size = type === 'integer' ? 4 : type === 'real' ? 8 : 0;
    if (!size) return undefined;
    const b = await this.hfa.read(at, rows * size, nodePath(n));
    return { rows, values: Array.from({ length: rows }, (_, i) => (size === 4 ? b.readInt32LE(4 * i) : b.readDoubleLE(8 * i))) };
  }

  /** The colour table as GDAL builds it: each 0–1 component × 256, floored, at most 255. */
  private async colors(layer: HfaNode): Promise<ColorTable | undefined> {
    const cols = [await this.column(layer, 'Red'), await this.column(layer, 'Green'), await this.column(layer, 'Blue')];
    if (cols.some((c) => !c)) return undefined;
    const count = cols[0]!.rows;
    if (!count || cols.some((c) => c!.rows !== count)) return undefined;
    const rgb = new Uint8Array(3 * count);
    for (let v = 0; v < count; v++) {
      for (let k = 0; k < 3; k++) {
        const x = Number(cols[k]!.values[v]);
        rgb[3 * v + k] = Number.isFinite(x) ? Math.max(0, Math.min(255, Math.floor(x * 256))) : 0;
      }
    }
    return { rgb, count };
  }

  private async classNames(layer: HfaNode): Promise<string[] | null> {
    const c = await this.column(layer, 'Class_Names');
    if (!c) return null;
    const names = c.values.map((v) => String(v).replace(/[\u0000-\u001f\u007f]/g, ' ').trim().slice(0, MAX_CATEGORY_CHARS));
    return names.some((n) => n) ? names : null;
  }

  private get across(): number { return Math.ceil(this.width / this.blockWidth); }
  private get down(): number { return Math.ceil(this.height / this.blockHeight); }

  /** The block table of band `b` (0-based), read on first use. */
  private table(b: number): Promise<HfaBlockTable> {
    const l = this.layers[b];
    l.table ??= this.loadTable(l.node).catch((e) => { l.table = undefined; throw e; });
    return l.table;
  }

  private async loadTable(layer: HfaNode): Promise<HfaBlockTable> {
    const blocks = this.across * this.down;
    const bad = (why: string) => this.bad(`layer ${layer.name}: ${why}`);
    const dms = child(layer, 'RasterDMS');
    if (dms) return blockTableFromState(this.hfa.dictionary, await this.hfa.data(dms), blocks, bad);
    const ext = child(layer, 'ExternalRasterDMS');
    if (!ext) throw bad('no block table (RasterDMS or ExternalRasterDMS node); the file is damaged');
    const r = await this.hfa.record(ext, 'ImgExternalRaster');
    const big = (v: HfaValue) => (Array.isArray(v) ? Number(v[0]) + Number(v[1] ?? 0) * 2 ** 32 : Number(v));
    const fileName = String((r.fileName as HfaRecord | null)?.string ?? '');
    const spill = this.spillPath(fileName);
    if (!spill) throw bad(`its blocks are in the spill file "${fileName}", which is not beside it; keep the .ige with the .img`);
    const f = await this.spill(spill);
    const head = await f.read(0, 26, 'the spill file header');
    if (head.toString('latin1', 0, 25) !== 'ERDAS_IMG_EXTERNAL_RASTER') throw this.fail(`${spill}: not an ERDAS spill file (no ERDAS_IMG_EXTERNAL_RASTER header)`);
    const info = { fileName, flagsAt: big(r.layerStackValidFlagsOffset), dataAt: big(r.layerStackDataOffset), stackCount: Number(r.layerStackCount), stackIndex: Number(r.layerStackIndex) };
    if (!(info.stackCount >= 1 && info.stackIndex >= 0 && info.stackIndex < info.stackCount)) throw bad(`its spill layer ${info.stackIndex} of ${info.stackCount} is not valid`);
    const size = blockBytes(this.blockWidth, this.blockHeight, this.ept);
    const end = info.dataAt + size * blocks * info.stackCount;
    if (end > f.size) throw this.fail(`${spill}: ${f.size} bytes, where ${blocks} blocks of ${this.bandCount} layers need ${end}; the spill file is cut short`);
    const flags = await f.read(info.flagsAt, Math.ceil(this.across / 8) * this.down + 20, 'the spill file\'s block flags');
    return blockTableFromSpill(info, flags, this.across, this.down, size, spill);
  }

  /** The spill file beside the .img: its stored name, else the .img's name with its extension (GDAL's HFAGetIGEFilename). */
  private spillPath(stored: string): string | undefined {
    const dir = path.dirname(this.source);
    const base = path.basename(stored.replace(/\\/g, '/'));
    const tries = [base && path.join(dir, base), path.join(dir, `${path.basename(this.source, path.extname(this.source))}${path.extname(base) || '.ige'}`)];
    return tries.find((p) => { try { return !!p && fs.statSync(p).isFile(); } catch { return false; } });
  }

  private spill(file: string): Promise<BoundedFile> {
    let f = this.spills.get(file);
    if (!f) {
      const bf = new BoundedFile(file, this.fail);
      f = bf.openFile().then(() => bf);
      this.spills.set(file, f);
    }
    return f;
  }

  async readWindowRaw(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal, into?: ArrayLike<number>): Promise<TypedArray> {
    const out = windowTarget(this, !this.closed, this.fail, band, x, y, w, h, into);
    const { blockWidth: bw, blockHeight: bh } = this;
    const bx0 = Math.floor(x / bw), bx1 = Math.floor((x + w - 1) / bw);
    for (let by = Math.floor(y / bh); by <= Math.floor((y + h - 1) / bh); by++) {
      signal?.throwIfAborted();
      const row = await this.blockRow(band - 1, by, bx0, bx1, signal);
      const r0 = Math.max(y, by * bh), r1 = Math.min(y + h, (by + 1) * bh);
      for (let bx = bx0; bx <= bx1; bx++) {
        const blk = row[bx - bx0];
        const c0 = Math.max(x, bx * bw), c1 = Math.min(x + w, (bx + 1) * bw);
        for (let r = r0; r < r1; r++) {
          const from = (r - by * bh) * bw + (c0 - bx * bw);
          out.set(blk.subarray(from, from + c1 - c0), (r - y) * w + (c0 - x));
        }
      }
    }
    return out;
  }

  /** Blocks bx0..bx1 of block row `by`, from the cache or read (runs stored one after another in one read) and decoded. */
  private async blockRow(b: number, by: number, bx0: number, bx1: number, signal?: AbortSignal): Promise<TypedArray[]> {
    const t = await this.table(b);
    const blocks = this.across * this.down;
    const out: TypedArray[] = [];
    const todo: number[] = [];
    for (let bx = bx0; bx <= bx1; bx++) {
      const i = by * this.across + bx;
      const hit = this.cache.get(b * blocks + i);
      if (hit) { this.cache.delete(b * blocks + i); this.cache.set(b * blocks + i, hit); }
      else if (!t.valid[i]) this.keep(b * blocks + i, this.nullBlock());
      else todo.push(i);
    }
    // What a block may hold: an uncompressed one at least its samples (only those are read), a
    // compressed one at most 13 bytes of header and a 4-byte count and value per sample.
    const need = blockBytes(this.blockWidth, this.blockHeight, this.ept);
    const most = 13 + this.blockWidth * this.blockHeight * (4 + Math.ceil(EPT[this.ept].bits / 8));
    const len = (i: number) => (t.compressed[i] ? t.sizes[i] : need);
    for (const i of todo) {
      if (!t.compressed[i] && t.sizes[i] < need) throw this.bad(`block ${i} of layer ${this.layers[b].node.name} holds ${t.sizes[i]} bytes where ${this.blockWidth}×${this.blockHeight} ${EPT[this.ept].name} samples need ${need}; the file is damaged`);
      if (t.compressed[i] && !(t.sizes[i] > 0 && t.sizes[i] <= most)) throw this.bad(`block ${i} of layer ${this.layers[b].node.name} claims ${t.sizes[i]} compressed bytes (at most ${most} for its samples); the file is damaged`);
    }
    for (let k = 0; k < todo.length;) {
      signal?.throwIfAborted();
      let e = k + 1;
      while (e < todo.length && t.offsets[todo[e]] === t.offsets[todo[e - 1]] + t.sizes[todo[e - 1]] && t.offsets[todo[e]] + len(todo[e]) - t.offsets[todo[k]] <= MAX_RUN_BYTES) e++;
      const start = t.offsets[todo[k]], runBytes = t.offsets[todo[e - 1]] + len(todo[e - 1]) - start;
      const f = t.external ? await this.spill(t.external) : this.hfa;
      const bytes = await f.read(start, runBytes, `blocks ${todo[k]}–${todo[e - 1]} of layer ${this.layers[b].node.name}`);
      for (let j = k; j < e; j++) {
        const i = todo[j];
        const at = t.offsets[i] - start;
        this.keep(b * blocks + i, this.decode(bytes.subarray(at, at + len(i)), t.compressed[i] === 1, b, i));
      }
      k = e;
    }
    for (let bx = bx0; bx <= bx1; bx++) out.push(this.cache.get(b * blocks + by * this.across + bx)!);
    return out;
  }

  private decode(bytes: Uint8Array, compressed: boolean, b: number, i: number): TypedArray {
    const n = this.blockWidth * this.blockHeight;
    const where = `block ${i} of layer ${this.layers[b].node.name}`;
    if (!compressed) return decodeRaw(bytes, n, this.ept);
    const r = decodeRle(bytes, n, this.ept);
    if (typeof r === 'string') throw this.bad(`${where}: ${r}`);
    return r;
  }

  /** A block the table marks as not written: nodata where the band has one, else 0 (GDAL's NullBlock). */
  private nullBlock(): TypedArray {
    const a = new (CTORS[this.dtype])(this.blockWidth * this.blockHeight);
    if (this.nodata !== null && this.nodata !== 0) a.fill(this.nodata);
    return a;
  }

  private keep(key: number, a: TypedArray): void {
    this.cache.set(key, a);
    this.cacheBytes += a.byteLength;
    // The oldest go first, but never below the block row being read (its blocks are returned from the cache).
    for (const [k, v] of this.cache) {
      if (this.cacheBytes <= CACHE_BYTES || this.cache.size <= this.across + 1) break;
      this.cache.delete(k);
      this.cacheBytes -= v.byteLength;
    }
  }

  async readWindow(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal): Promise<Float32Array> {
    return toFloat(await this.readWindowRaw(band, x, y, w, h, signal), this.nodata, 1, 0, this.dtype === 'float32');
  }

  async close(): Promise<void> {
    this.closed = true;
    this.cache.clear();
    this.cacheBytes = 0;
    const overviews = this.overviewList;
    this.overviewList = undefined;
    if (overviews) for (const o of await overviews.catch(() => [])) await o.close();
    for (const f of this.spills.values()) await f.then((s) => s.close(), () => undefined);
    this.spills.clear();
    for (const f of this.dependents.values()) await (await f)?.close();
    this.dependents.clear();
    if (this.owner) await this.hfa.close();
  }
}
