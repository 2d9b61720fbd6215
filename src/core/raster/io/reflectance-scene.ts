/**
 * A MODIS or VIIRS surface-reflectance file read as one multi-band scene: the reflectance fields of
 * one grid (MOD09A1's sur_refl_b01…b07, MCD43A4's Nadir_Reflectance_Band1…7, MOD13Q1's red, NIR,
 * blue and MIR reflectance, VNP09GA's SurfReflect_I1…I3) stacked in band order, each
 * band's role from the sensor's band table (reflectance-bands.ts), so `ndvi` and `band_math` take
 * the file whole as they take a Landsat stack. The products store one field per band and GDAL reads
 * them one subdataset at a time (an analyst stacks them with `gdalbuildvrt -separate`); fields of
 * another grid (MOD09GA's 1 km fields, VNP09GA's M bands beside its I bands) are on another pixel
 * size and are never stacked with them: each grid is its own scene, named as `file#GRID`.
 */
import * as path from 'node:path';
import type { GeoInfo, RasterDataset } from './dataset';
import type { DType, TypedArray } from './samples';
import { type ReflectanceBand, bandLabel, reflectanceBand } from '../reflectance-bands';

/** A grid field of an HDF4 or HDF-EOS5 file as the scene sees it: its name after `#`, its grid and the grid's size. */
export interface GridField { id: string; field: string; grid: string; xdim: number; ydim: number }

/** The fields a scene stacks, in band order, and the other grids that hold reflectance fields. */
export interface SceneChoice { grid: string; bands: { id: string; field: string; band: ReflectanceBand }[]; others: { grid: string; bands: ReflectanceBand[]; fields: string[] }[] }

/** Band order: MODIS by number, VIIRS I bands before M bands, each by number. */
const order = (b: ReflectanceBand) => (b.band.startsWith('M') ? 100 : 0) + Number(b.band.slice(1));

/**
 * The reflectance scene of a file's grid fields: of the grid `named`, else of the grid with most
 * pixels among those holding red and NIR (VNP09GA's 500 m I bands rather than its 1 km M bands),
 * else of the one holding most reflectance bands; undefined when no grid holds two (MOD11, MCD12Q1:
 * those files are read a field at a time) or `named` is no grid with reflectance fields.
 */
export function sceneFields(fields: GridField[], named?: string): SceneChoice | undefined {
  const grids = new Map<string, { size: number; bands: SceneChoice['bands'] }>();
  for (const f of fields) {
    const band = reflectanceBand(f.field, f.grid);
    if (!band) continue;
    const g = grids.get(f.grid) ?? { size: f.xdim * f.ydim, bands: [] };
    // The same band twice on one grid (MOD09GA's later observations carry other suffixes): the first.
    if (!g.bands.some((b) => b.band.band === band.band)) g.bands.push({ id: f.id, field: f.field, band });
    grids.set(f.grid, g);
  }
  const has = (g: { bands: SceneChoice['bands'] }, role: string) => g.bands.some((b) => b.band.role === role);
  const ranked = [...grids.entries()]
    .filter(([, g]) => g.bands.length >= 2)
    .sort(([, a], [, b]) => Number(has(b, 'red') && has(b, 'nir')) - Number(has(a, 'red') && has(a, 'nir')) || b.size - a.size || b.bands.length - a.bands.length);
  const pick = named !== undefined ? (grids.has(named) ? named : undefined) : ranked[0]?.[0];
  if (pick === undefined) return undefined;
  const bands = grids.get(pick)!.bands.sort((a, b) => order(a.band) - order(b.band));
  const others = [...grids.entries()].filter(([g]) => g !== pick).map(([grid, g]) => ({ grid, bands: g.bands.map((b) => b.band), fields: g.bands.map((b) => b.field) }));
  return { grid: pick, bands, others };
}

/** One dataset of several single-band fields on one grid: band k is the k-th field. */
export class FieldStack implements RasterDataset {
  width = 0; height = 0; bandCount = 0; blockWidth = 0; blockHeight = 0;
  dtype: DType = 'int16'; geo!: GeoInfo; nodata: number | null = null;
  bandDescriptions: (string | null)[] = []; scales: number[] = []; offsets: number[] = [];
  bandRoles: (string | null)[] = [];
  units?: (string | null)[];
  warnings?: string[];
  private members: RasterDataset[] = [];

  /** The name that opens this scene again (`file`, or `file#GRID` for a grid named): the pipeline reopens inputs by it. */
  readonly source: string;

  /**
   * `open(id)` opens one field (`file#id`) as a dataset; `named`: the grid as the path named it;
   * `release`: frees what the fields share (hdf4.ts: the one parse and handle of the file), on
   * close or a failed init. Call init().
   */
  constructor(private file: string, readonly scene: SceneChoice, private open: (id: string) => Promise<RasterDataset>, private fail: (m: string) => Error, named?: string, private release?: () => Promise<void>) {
    this.source = named === undefined ? file : `${file}#${named}`;
  }

  async init(signal?: AbortSignal): Promise<void> {
    const base = path.basename(this.file), grid = this.scene.grid;
    const oneAtATime = `read its fields one at a time (${base}#${this.scene.bands[0].id}), or download the file again`;
    try {
      for (const b of this.scene.bands) {
        signal?.throwIfAborted();
        let ds: RasterDataset;
        try {
          ds = await this.open(b.id);
        } catch (e) {
          if (signal?.aborted) throw e;
          throw this.fail(`${this.source}: its reflectance fields on grid "${grid}" cannot be read as one scene: ${(e as Error).message.replace(`${this.file}: `, '')}; ${oneAtATime}`);
        }
        this.members.push(ds);
        const first = this.members[0];
        if (ds.bandCount !== 1 || ds.width !== first.width || ds.height !== first.height || ds.geo.geoTransform.some((v, i) => v !== first.geo.geoTransform[i])) {
          throw this.fail(`${this.source}: its reflectance fields on grid "${grid}" are not one grid: "${b.id}" is ${ds.width}×${ds.height}${ds.bandCount !== 1 ? ` in ${ds.bandCount} bands` : ''}, "${this.scene.bands[0].id}" ${first.width}×${first.height}; ${oneAtATime}`);
        }
        if (ds.dtype !== first.dtype || ds.nodata !== first.nodata) {
          throw this.fail(`${this.source}: its reflectance fields on grid "${grid}" differ in type or fill ("${b.id}": ${ds.dtype}, fill ${ds.nodata}; "${this.scene.bands[0].id}": ${first.dtype}, fill ${first.nodata}), so they cannot be one scene; ${oneAtATime}`);
        }
      }
      const first = this.members[0];
      Object.assign(this, { width: first.width, height: first.height, blockWidth: first.blockWidth, blockHeight: first.blockHeight, dtype: first.dtype, geo: first.geo, nodata: first.nodata });
      this.bandCount = this.members.length;
      this.bandDescriptions = this.scene.bands.map((b) => b.field);
      this.bandRoles = this.scene.bands.map((b) => b.band.role ?? null);
      this.scales = this.members.map((m) => m.scales[0]);
      this.offsets = this.members.map((m) => m.offsets[0]);
      const units = this.members.map((m) => m.units?.[0] ?? null);
      if (units.some((u) => u)) this.units = units;
      const warnings = [...new Set(this.members.flatMap((m) => m.warnings ?? []))];
      if (warnings.length) this.warnings = warnings;
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  /** Why no band has `role`, and where the product keeps it: another grid's scene, or nowhere in this file. */
  missingRole(role: string): string {
    const have = this.scene.bands.map((b) => `${b.field} (${b.band.role ?? bandLabel(b.band)})`).join(', ');
    const elsewhere = this.scene.others.find((o) => o.bands.some((b) => b.role === role));
    const base = path.basename(this.file);
    const where = elsewhere
      ? `its ${role} band, ${bandLabel(elsewhere.bands.find((b) => b.role === role)!)}, is on grid "${elsewhere.grid}", another pixel size: name that grid's scene as ${base}#${elsewhere.grid}`
      // MOD13 keeps four bands by design: its file is complete, the band is in MOD09 of the same tile.
      : this.scene.bands[0].band.vi
        ? `MOD13/MYD13 keeps only red, NIR, blue and MIR reflectance (MODIS bands 1, 2, 3, 7) beside its NDVI and EVI; take ${role} from a MOD09A1 file of the same tile and period, as a mapping (image='{"${role}": "MOD09A1….hdf#sur_refl_b0…", …}')`
        : `the file holds no ${role} band (${this.scene.bands[0].band.sensor === 'MODIS' ? 'MODIS' : 'VIIRS'} surface reflectance is expected to carry it); use a complete product file, or give the band from another file as a mapping (image='{"${role}": "…", …}')`;
    return `${this.source}: no band of the reflectance scene on grid "${this.scene.grid}" is ${role} (it holds ${have}); ${where}`;
  }

  async readWindow(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal): Promise<Float32Array> {
    return this.member(band).readWindow(1, x, y, w, h, signal);
  }

  async readWindowRaw(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal, into?: ArrayLike<number>): Promise<TypedArray> {
    return await this.member(band).readWindowRaw(1, x, y, w, h, signal, into) as TypedArray;
  }

  private member(band: number): RasterDataset {
    const m = this.members[band - 1];
    if (!m || !Number.isInteger(band)) throw this.fail(`${this.source}: band ${band} is out of range (the scene has ${this.members.length} bands)`);
    return m;
  }

  tileCacheUse(): { tiles: number; bytes: number } {
    return this.members.reduce((s, m) => { const u = m.tileCacheUse?.() ?? { tiles: 0, bytes: 0 }; return { tiles: s.tiles + u.tiles, bytes: s.bytes + u.bytes }; }, { tiles: 0, bytes: 0 });
  }

  async close(): Promise<void> {
    const ms = this.members, release = this.release;
    this.members = [];
    this.release = undefined;
    await Promise.all(ms.map((m) => m.close().catch(() => undefined)));
    await release?.().catch(() => undefined);
  }
}
