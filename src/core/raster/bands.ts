/** Band-role resolution: explicit arguments, band descriptions, sensor presets, or {role: path} mappings. */
import { planetLayout } from './planet-names';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openRaster, RasterDataset, RasterError } from './io/dataset';
import { guessSensor, sampleBands, SensorGuess } from './sensor-guess';
import { SENSORS, Sensor, SENSOR_NAMES, presetLayout, presetMismatch, roleForSensor } from './sensor-presets';
import { wavelengthRoles } from './wavelength-roles';
import type { RasterArg } from './tools/types';
import { bandFileOf, productInFolder, sentinel2Offset, siblingBandFiles } from './band-files';
import { S2Scaling, sentinel2FromMetadata } from './s2-metadata';

export { SENSORS } from './sensor-presets';
export type { Sensor } from './sensor-presets';

/** A resolved band; `scale`/`offset` convert readWindow values to physical units (reflectance, kelvin) when a preset says so. */
export interface ResolvedBand {
  dataset: RasterDataset; band: number; scale?: number; offset?: number; how?: string;
  /** Product metadata that was ignored (malformed, too large), named; the run went on without it. */
  warnings?: string[];
}

/** Lower-case description aliases per role (codes only where they are unambiguous across sensors). */
const ALIASES: Record<string, string[]> = {
  blue: ['blue', 'b02', 'b2', 'sr_b2', 'band 2 blue'],
  green: ['green', 'b03', 'b3', 'sr_b3'],
  red: ['red', 'b04', 'b4', 'sr_b4'],
  rededge: ['rededge', 'red edge', 'red_edge', 're1', 'rededge1', 'b05'],
  nir: ['nir', 'near infrared', 'near-infrared', 'b08', 'b8', 'b8a', 'sr_b5', 'nir08'],
  swir1: ['swir1', 'swir 1', 'swir16', 'b11', 'sr_b6'],
  swir2: ['swir2', 'swir 2', 'swir22', 'b12', 'sr_b7'],
  thermal: ['thermal', 'tir', 'lwir', 'lwir11', 'st_b10', 'b10'],
  qa: ['qa', 'scl', 'qa_pixel', 'fmask'],
  dem: ['dem', 'elevation', 'height', 'altitude'],
};

/** Role names a {role: path} mapping may use (what tools ask resolveBands for). */
export const BAND_ROLES: readonly string[] = [...Object.keys(ALIASES), 'coastal', 'band', 'mask', 'class', 'index'];

const REFLECTANCE_ROLES = new Set(['blue', 'green', 'red', 'rededge', 'nir', 'swir1', 'swir2', 'coastal']);

/** Role inferred from a band description, or undefined. */
export function roleFromDescription(desc: string | null | undefined): string | undefined {
  if (!desc) return undefined;
  const d = desc.trim().toLowerCase();
  for (const [role, names] of Object.entries(ALIASES)) if (names.includes(d)) return role;
  return undefined;
}

/**
 * A band's role (0-based `i`): where the product's own layout says it (a MODIS/VIIRS reflectance
 * scene, whose fields are named sur_refl_b01, not "red"), else its description as `naming` reads it.
 */
export function roleOfBand(ds: RasterDataset, i: number, naming: Sensor | undefined): string | undefined {
  return ds.bandRoles?.[i] ?? roleForSensor(ds.bandDescriptions[i], naming, roleFromDescription);
}

/**
 * The Landsat generation a file's USGS Collection 2 band names imply. Landsat 4-7 name their bands
 * SR_B1-SR_B5, SR_B7 and ST_B6 (red is SR_B3, NIR SR_B4); Landsat 8-9 SR_B1-SR_B7 and ST_B10 (red is
 * SR_B4, NIR SR_B5). Earth Engine exports and stacks of the USGS files carry these names, so a
 * Landsat 7 stack read with 8/9 names would give an NDVI of NIR and SWIR1. A set that cannot tell
 * (SR_B4 and SR_B5 alone) is read as 8/9, the common case.
 */
export function landsatFromNames(descriptions: readonly (string | null)[]): Sensor | undefined {
  const d = new Set(descriptions.map((x) => x?.trim().toLowerCase() ?? ''));
  if (d.has('st_b6') || (d.has('sr_b7') && !d.has('sr_b6'))) return 'landsat457_c2l2';
  if ([...d].some((x) => /^(sr_b[1-7]|st_b10)$/.test(x))) return 'landsat89_c2l2';
  return undefined;
}

/**
 * Sensor implied by a USGS Collection 2 Level-2 band name on uint16 data: SR_B1..SR_B7 and ST_B10
 * DNs need their offset (−0.2, +149 K) even when no sensor is given. Float bands with those names are
 * taken as already converted.
 */
function c2l2FromName(ds: RasterDataset, band: number, role: string): Sensor | undefined {
  if (ds.dtype !== 'uint16') return undefined;
  const d = ds.bandDescriptions[band - 1]?.trim().toLowerCase() ?? '';
  if ((/^sr_b[1-7]$/.test(d) && REFLECTANCE_ROLES.has(role)) || (/^st_b(10|6)$/.test(d) && role === 'thermal')) return landsatFromNames(ds.bandDescriptions);
  return undefined;
}

/** Physical scale/offset a preset (or a C2 L2 band name) implies for a role when the file itself declares none. */
function presetScale(sensor: Sensor | undefined, role: string, ds: RasterDataset, band: number, s2?: S2Scaling): { scale: number; offset: number; how: string } | undefined {
  if (ds.scales[band - 1] !== 1 || ds.offsets[band - 1] !== 0) return undefined;
  const named = sensor ? undefined : c2l2FromName(ds, band, role);
  sensor = sensor ?? named;
  if (!sensor) return undefined;
  if (sensor === 'landsat89_c2l2' || sensor === 'landsat457_c2l2') {
    const why = named ? ` (band name ${ds.bandDescriptions[band - 1]})` : '';
    if (REFLECTANCE_ROLES.has(role)) return { scale: 0.0000275, offset: -0.2, how: `Landsat C2 L2 reflectance DN×0.0000275−0.2${why}` };
    if (role === 'thermal') return { scale: 0.00341802, offset: 149.0, how: `Landsat C2 L2 ST DN×0.00341802+149 K${why}` };
  }
  if ((sensor === 'sentinel2_l2a' || sensor === 'sentinel2_l1c') && REFLECTANCE_ROLES.has(role)) {
    // Baseline 04.00 (25 Jan 2022) added 1000 to every DN; NDVI and the other ratios are not
    // invariant to an offset, so it must come off before the ratio (REFERENCE: apply offsets).
    const off = s2;
    const product = off?.level ? `Sentinel-2 ${off.level}` : SENSOR_NAMES[sensor];
    const scale = off?.scale ?? 0.0001, q = Math.round(1 / scale);
    if (off?.offset) return { scale, offset: off.offset * scale, how: `${product} reflectance (DN ${off.offset < 0 ? '−' : '+'} ${Math.abs(off.offset)})/${q}, ${off.why}` };
    return { scale, offset: 0, how: `${product} reflectance DN/${q}${off ? `, ${off.why}` : ' (no product metadata, and no baseline or sensing date in the file name: no offset assumed; products since 25 Jan 2022 store DN + 1000)'}` };
  }
  return undefined;
}

/**
 * The Sentinel-2 add-offset of a band: from the product's metadata (SAFE MTD, STAC item) when there
 * is any, else from the file name, then checked against the values. With the offset stored, valid
 * DNs sit at 1000 and above (reflectance 0) and only negative reflectance (dark water, shadow noise)
 * falls below; harmonised exports (Earth Engine's S2_SR_HARMONIZED, for one) have it removed already.
 * A name is weak evidence, so 1% of DNs below 1000 overrules it. Metadata is the product's own word,
 * but a harmonised re-export can keep the old STAC JSON beside it: it is overruled only when most
 * sampled DNs are below 1000, which no product storing the offset shows outside open water.
 */
async function sentinel2OffsetChecked(ds: RasterDataset, band: number, warn: (message: string) => void): Promise<S2Scaling | undefined> {
  const local = !/^[a-z][a-z0-9+.-]*:\/\//i.test(ds.source);
  const meta = local ? sentinel2FromMetadata(ds.source, bandFileOf(ds.source)?.token, warn) : undefined;
  const byName = sentinel2Offset(ds.source);
  const off: S2Scaling | undefined = meta ?? (byName && { ...byName, scale: 0.0001, source: 'name' });
  if (!off?.offset) return off;
  const w = Math.min(256, ds.width), h = Math.min(256, ds.height);
  const a = await ds.readWindow(band, Math.floor((ds.width - w) / 2), Math.floor((ds.height - h) / 2), w, h);
  const floor = -off.offset;
  let valid = 0, below = 0;
  for (let i = 0; i < a.length; i++) {
    const v = a[i];
    if (v !== v || v === 0) continue;
    valid++;
    if (v < floor) below++;
  }
  const limit = off.source === 'metadata' ? 0.5 : 0.01;
  if (valid && below / valid > limit) {
    const pct = `${(100 * below / valid).toFixed(0)}% of sampled DNs are below ${floor}`;
    return off.source === 'metadata'
      ? { ...off, offset: 0, why: `${off.why} says the DNs carry the offset, but ${pct} (negative reflectance): the values decided, read as harmonised (offset already removed)` }
      : { ...off, offset: 0, why: `${off.why.replace(/: BOA_ADD_OFFSET −1000$/, '')} implies an offset of −1000, but ${pct}: read as harmonised (offset already removed), DN/10000` };
  }
  return off;
}

/** The sensor a uint16 single-band file's name implies (…_SR_B4.TIF, …_B04_10m.tif), for its scaling. */
function sensorFromFileName(ds: RasterDataset, role: string): Sensor | undefined {
  if (ds.dtype !== 'uint16' || ds.bandCount !== 1) return undefined;
  const b = bandFileOf(ds.source);
  return b && b.role === role ? b.sensor : undefined;
}

/**
 * `image` as the files of one product: a folder an analyst downloaded, or one band file of a product
 * delivered a file per band when `roles` needs bands it does not hold (the others are taken from beside
 * it). Anything else is returned as given.
 */
async function asProductFiles(image: RasterArg, roles: string[], open: (p: string) => Promise<RasterDataset>): Promise<RasterArg> {
  if (typeof image !== 'string' || /^[a-z][a-z0-9+.-]*:\/\//i.test(image)) return image;
  let st: fs.Stats | undefined;
  try { st = fs.statSync(image); } catch { return image; }
  const wanted = roles.filter((r) => r !== 'band');
  if (st.isDirectory()) {
    const inFolder = productInFolder(image, wanted);
    await assertOneGrid(image, inFolder, wanted, open);
    return inFolder;
  }
  const me = bandFileOf(image);
  if (!me || roles.every((r) => r === me.role || r === 'band')) return image;
  // A stack that happens to be named like a band file is read as the stack it is.
  if ((await open(image)).bandCount !== 1) return image;
  const files = siblingBandFiles(image, wanted);
  const missing = roles.filter((r) => !files[r]);
  if (missing.length) {
    throw new Error(`argument "image": ${path.basename(image)} is band ${me.token} (${me.role}) of a ${SENSOR_NAMES[me.sensor]} product delivered a file per band, and ${path.dirname(image)} has no file of that product for ${missing.join(', ')}; put the band files together, or give them as --arg image='{"${me.role}": "…", "${missing[0]}": "…"}'`);
  }
  await assertOneGrid(path.dirname(image), files, wanted, open);
  return Object.fromEntries(roles.map((r) => [r, files[r]]));
}

/**
 * The band files a product's folder gives for `roles` share one grid, or an error that says what to
 * do: a download of Sentinel-2's 10 m bands and B11 alone has green only at 10 m and SWIR1 only at
 * 20 m, and MNDWI cannot pair them pixel by pixel. The tool's own grid check would name the two files
 * and an align step, but not how a folder given as `image` takes an aligned band.
 */
async function assertOneGrid(where: string, files: Record<string, string>, roles: string[], open: (p: string) => Promise<RasterDataset>): Promise<void> {
  const used = roles.filter((r) => files[r]).map((role) => ({ role, file: files[role] }));
  if (used.length < 2) return;
  const grids = await Promise.all(used.map(async (u) => {
    const ds = await open(u.file);
    return { ...u, size: Math.abs(ds.geo.geoTransform[1]) };
  }));
  const fine = grids.reduce((a, b) => (b.size < a.size ? b : a));
  const coarse = grids.filter((g) => Math.abs(g.size - fine.size) > 1e-9 * fine.size);
  if (!coarse.length) return;
  const m = (v: number) => `${Number(v.toPrecision(6))} m`;
  const parts = grids.map((g) => `${g.role} ${path.basename(g.file)} at ${m(g.size)}`).join(', ');
  const aligns = coarse.map((g) => `align image=${path.basename(g.file)} reference=${path.basename(fine.file)}`).join('; ');
  const sensor = bandFileOf(fine.file)?.sensor;
  const lines = [...grids.map((g) => `--arg ${g.role}=${coarse.includes(g) ? `<${path.basename(g.file)} aligned>` : g.file}`), ...(sensor ? [`--arg sensor=${sensor}`] : [])].join(' and ');
  throw new Error(`argument "image": the band files of ${path.basename(where)} are not on one grid (${parts}) and no one resolution holds ${roles.join(', ')}: `
    + `put the product's ${m(coarse[0].size)} files of ${grids.filter((g) => !coarse.includes(g)).map((g) => g.role).join(', ')} beside them (a SAFE's R${Math.round(coarse[0].size)}m folder holds them), `
    + `or align onto the ${m(fine.size)} grid (${aligns}, resampling=bilinear) and give the bands as files instead of image: pass ${lines}`);
}

function parseSensor(v: unknown): Sensor | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const s = String(v).toLowerCase();
  if (!(SENSORS as readonly string[]).includes(s)) throw new Error(`argument "sensor": unknown sensor "${v}"; use one of ${SENSORS.join(', ')}`);
  return s as Sensor;
}

function describeBands(ds: RasterDataset): string {
  const d = ds.bandDescriptions.map((x, i) => `${i + 1}=${x ?? '(none)'}`).join(', ');
  return `${ds.bandCount} band${ds.bandCount === 1 ? '' : 's'}: ${d}`;
}

function bandForRole(ds: RasterDataset, role: string, explicit: unknown, sensor: Sensor | undefined): { band: number; how: string } {
  const file = ds.source;
  // Band names are read as the given sensor names them, else as the file's own names imply.
  const naming = sensor ?? landsatFromNames(ds.bandDescriptions);
  if (explicit !== undefined && explicit !== null && explicit !== '') {
    const n = typeof explicit === 'number' ? explicit : /^\s*\d+\s*$/.test(String(explicit)) ? Number(explicit) : NaN;
    if (Number.isFinite(n)) {
      if (!Number.isInteger(n) || n < 1 || n > ds.bandCount) {
        throw new Error(`argument "${role}": band ${explicit} is out of range for ${file} (${describeBands(ds)})`);
      }
      return { band: n, how: `--arg ${role}=${n}` };
    }
    const name = String(explicit).trim().toLowerCase();
    const direct = ds.bandDescriptions.findIndex((d) => d?.trim().toLowerCase() === name);
    if (direct >= 0) return { band: direct + 1, how: `description "${ds.bandDescriptions[direct]}"` };
    const asRole = Object.prototype.hasOwnProperty.call(ALIASES, name) ? name : undefined;
    if (asRole) {
      const r = ds.bandDescriptions.findIndex((_, i) => roleOfBand(ds, i, naming) === asRole);
      if (r >= 0) return { band: r + 1, how: `description "${ds.bandDescriptions[r]}"` };
      if (sensor) return bandForRole(ds, asRole, undefined, sensor);
    }
    throw new Error(`argument "${role}": no band named "${explicit}" in ${file} (${describeBands(ds)}); pass a 1-based index, e.g. --arg ${role}=4`);
  }
  const byDesc = ds.bandDescriptions.findIndex((_, i) => roleOfBand(ds, i, naming) === role);
  if (byDesc >= 0) return { band: byDesc + 1, how: ds.bandRoles?.[byDesc] ? `field ${ds.bandDescriptions[byDesc]} (the product's band table)` : `description "${ds.bandDescriptions[byDesc]}"` };
  if (ds.missingRole && !sensor) throw new RasterError(ds.missingRole(role));
  // An imaging spectrometer's bands named by wavelength: the one nearest the role's centre.
  const byWavelength = [...wavelengthRoles(ds.bandDescriptions)].find(([, r]) => r === role)?.[0];
  if (byWavelength !== undefined && !sensor) return { band: byWavelength, how: `wavelength "${ds.bandDescriptions[byWavelength - 1]}"` };
  // A Planet product's name says its layout (planet-names.ts) where its bands say nothing.
  const planet = !sensor && ds.bandDescriptions.every((d) => !roleFromDescription(d)) ? planetLayout(file, ds.bandCount) : undefined;
  if (planet?.bands[role] !== undefined) return { band: planet.bands[role], how: `${planet.label} band ${planet.bands[role]} (by the product's file name)` };
  if (sensor) {
    const idx = presetLayout(sensor, ds.bandCount)?.[role];
    if (idx !== undefined && idx <= ds.bandCount) return { band: idx, how: `${sensor} preset band ${idx}` };
    throw new Error(`band role "${role}" is not available in ${file} with sensor=${sensor} (${describeBands(ds)}); pass --arg ${role}=<band index>`);
  }
  if (ds.bandCount === 1 && (role === 'band' || role === 'dem' || role === 'qa' || role === 'mask')) return { band: 1, how: 'single band' };
  throw new BandRoleError(ds, role, {});
}

/**
 * A band role the file does not describe and no argument gives. Carries the bands a guessed sensor
 * would put the needed roles in, so a caller can say what to add in its own syntax (the message
 * itself is command-line syntax; notebook cells rephrase it, see notebook/cell-errors.ts).
 */
export class BandRoleError extends Error {
  readonly file: string;
  readonly bandCount: number;
  /** True when no band of the file has a description. */
  readonly undescribed: boolean;
  constructor(ds: RasterDataset, readonly role: string, readonly guessed: Record<string, number>, readonly guess?: SensorGuess) {
    const args = Object.entries(guessed).map(([r, b]) => `--arg ${r}=${b}`).join(' ');
    const hint = guessed[role] !== undefined && guess
      ? `pass ${args} (a guess: the file looks like ${guess.label}, ${guess.why})`
      : `pass --arg ${role}=<1-based band index>`;
    super(`missing band role "${role}" in ${ds.source} (${describeBands(ds)}): ${hint} or --arg sensor=${SENSORS.join('|')}`);
    this.name = 'BandRoleError';
    this.file = ds.source;
    this.bandCount = ds.bandCount;
    this.undescribed = ds.bandDescriptions.every((d) => !d);
  }
}

export function isBandRoleError(e: unknown): e is BandRoleError {
  return e instanceof Error && e.name === 'BandRoleError' && typeof (e as BandRoleError).role === 'string';
}

/** The error for a role no band describes, with the bands a guessed sensor gives each of `roles`. */
async function withGuess(e: BandRoleError, ds: RasterDataset, roles: string[], args: Record<string, unknown>): Promise<BandRoleError> {
  let guess: SensorGuess | undefined;
  try {
    guess = guessSensor(await sampleBands(ds));
  } catch {
    return e;
  }
  if (!guess || guess.bands[e.role] === undefined) return e;
  const given = (r: string) => args[r] !== undefined && args[r] !== null && args[r] !== '';
  const described = (r: string) => ds.bandDescriptions.some((d) => roleFromDescription(d) === r);
  const guessed: Record<string, number> = {};
  for (const r of [e.role, ...roles.filter((x) => x !== e.role)]) {
    if (!given(r) && !described(r) && guess.bands[r] !== undefined) guessed[r] = guess.bands[r];
  }
  return new BandRoleError(ds, e.role, guessed, guess);
}

/**
 * Resolves each role to a dataset and a 1-based band. `image` is a validated raster argument (see
 * engine.ts coerceArg): a path or URL, or a map of lower-case roles to paths. `args` holds `sensor`
 * and per-role band arguments. Datasets are opened once per file; close them with closeResolved.
 * Throws naming the role, the file, and how to fix it.
 */
export async function resolveBands(
  image: RasterArg, roles: string[], args: Record<string, unknown>, opts: { cwd: string; signal?: AbortSignal },
): Promise<Record<string, ResolvedBand>> {
  const sensor = parseSensor(args.sensor);
  const opened = new Map<string, RasterDataset>();
  const open = async (p: string) => {
    const key = /^https?:/i.test(p) ? p : path.resolve(opts.cwd, p);
    let ds = opened.get(key);
    if (!ds) { ds = await openRaster(p, { cwd: opts.cwd, signal: opts.signal }); opened.set(key, ds); }
    return ds;
  };
  const out: Record<string, ResolvedBand> = {};
  const checked = new Set<RasterDataset>();
  const picks: { role: string; ds: RasterDataset; pick: { band: number; how: string }; as: Sensor | undefined }[] = [];
  try {
    image = await asProductFiles(image, roles, open);
    for (const role of roles) {
      let ds: RasterDataset;
      let pick: { band: number; how: string };
      if (typeof image === 'object') {
        const file = image[role];
        if (!file) {
          throw new Error(`argument "image": the mapping has no file for band role "${role}" (it has ${Object.keys(image).join(', ') || 'nothing'}); add "${role}": "<file.tif>"`);
        }
        ds = await open(file);
        const explicit = args[role];
        pick = explicit !== undefined && explicit !== '' && /^\s*\d+\s*$/.test(String(explicit))
          ? bandForRole(ds, role, explicit, sensor)
          : { band: 1, how: `file ${path.basename(file)}` };
      } else {
        ds = await open(image);
        if (sensor && !checked.has(ds)) { checked.add(ds); await checkPreset(ds, sensor); }
        try {
          pick = bandForRole(ds, role, args[role], sensor);
        } catch (e) {
          throw e instanceof BandRoleError ? await withGuess(e, ds, roles, args) : e;
        }
      }
      picks.push({ role, ds, pick, as: sensor ?? (typeof image === 'object' ? sensorFromFileName(ds, role) : undefined) });
    }
    // One Sentinel-2 offset for all the bands of a run: NDVI from one band with the offset taken off
    // and one without would be wrong everywhere. The darkest band decides (see sentinel2OffsetChecked).
    const s2Bands = picks.filter((p) => (p.as === 'sentinel2_l2a' || p.as === 'sentinel2_l1c') && REFLECTANCE_ROLES.has(p.role)
      && p.ds.scales[p.pick.band - 1] === 1 && p.ds.offsets[p.pick.band - 1] === 0);
    let s2: S2Scaling | undefined;
    const warnings = new Map<RasterDataset, string[]>();
    const own = new Map<RasterDataset, S2Scaling | undefined>();
    for (const p of s2Bands) {
      const d = await sentinel2OffsetChecked(p.ds, p.pick.band, (m) => { const w = warnings.get(p.ds) ?? []; if (!w.includes(m)) w.push(m); warnings.set(p.ds, w); });
      own.set(p.ds, d);
      if (!s2 || (d && !d.offset)) s2 = d;
      if (d && !d.offset) break;
    }
    for (const { role, ds, pick, as } of picks) {
      // Each band's own source is named when it agrees with the run's offset; else the band that decided.
      const mine = own.get(ds);
      const ps = presetScale(as, role, ds, pick.band, mine && s2 && mine.offset === s2.offset && mine.scale === s2.scale ? mine : s2);
      // The file's own GDAL scale/offset are applied by readWindow itself (io/dataset.ts); say so.
      const declared = ds.scales[pick.band - 1] !== 1 || ds.offsets[pick.band - 1] !== 0
        ? `; the file's own scale ${ds.scales[pick.band - 1]} offset ${ds.offsets[pick.band - 1]} (GDAL_METADATA)` : '';
      const w = warnings.get(ds);
      out[role] = { dataset: ds, band: pick.band, how: pick.how + (ps ? `; ${ps.how}` : declared), ...(ps ? { scale: ps.scale, offset: ps.offset } : {}), ...(w?.length ? { warnings: w } : {}) };
    }
    if (typeof image === 'object' && !sensor) await assertOneUnit(picks.map((p) => ({ role: p.role, as: p.as, r: out[p.role] })));
    return out;
  } catch (e) {
    await Promise.all([...opened.values()].map((d) => d.close().catch(() => undefined)));
    throw e;
  }
}

/**
 * Bands given a file each are read in one unit, or refused: a Sentinel-2 or Landsat band file is
 * scaled to reflectance by its name, and a band beside it that its name says nothing of (B11 after an
 * align step: `…_B11_20m_aligned.tif`, float DNs) would be read raw, so MNDWI of 0.06 and 1800 comes
 * out −1 everywhere without a word. A band whose values already look like reflectance is left alone.
 */
async function assertOneUnit(bands: { role: string; as: Sensor | undefined; r: ResolvedBand }[]): Promise<void> {
  const spectral = bands.filter((b) => REFLECTANCE_ROLES.has(b.role));
  const scaled = spectral.find((b) => b.r.scale !== undefined);
  if (!scaled?.as) return;
  const raw: typeof spectral = [];
  for (const b of spectral) {
    const ds = b.r.dataset;
    if (b.r.scale !== undefined || ds.scales[b.r.band - 1] !== 1 || ds.offsets[b.r.band - 1] !== 0) continue;
    const w = Math.min(256, ds.width), h = Math.min(256, ds.height);
    const a = await ds.readWindow(b.r.band, Math.floor((ds.width - w) / 2), Math.floor((ds.height - h) / 2), w, h);
    let max = -Infinity;
    for (const v of a) if (v > max) max = v; // nodata reads as NaN
    if (max > 2) raw.push(b);
  }
  if (!raw.length) return;
  const file = (b: { r: ResolvedBand }) => path.basename(b.r.dataset.source);
  throw new Error(`the bands are not in one unit: ${scaled.role} (${file(scaled)}) is read as ${SENSOR_NAMES[scaled.as]} reflectance by its file name, `
    + `${raw.map((b) => `${b.role} (${file(b)})`).join(', ')} as the raw values ${raw.length === 1 ? 'it holds' : 'they hold'}, which are not reflectance (above 2), and an index of the two would be wrong; `
    + `pass --arg sensor=${scaled.as} to read every band as ${SENSOR_NAMES[scaled.as]} DNs, or give bands that are all reflectance`);
}

/** A sensor preset that does not fit the file it was given for. */
export class PresetMismatchError extends Error {
  constructor(message: string) { super(message); this.name = 'PresetMismatchError'; }
}

/** Refuses `sensor` for `ds` when the file's band count, descriptions or values do not fit it. */
export async function checkPreset(ds: RasterDataset, sensor: Sensor): Promise<void> {
  const sample = await sampleBands(ds);
  const why = presetMismatch(sensor, { ...sample, descriptions: ds.bandDescriptions }, roleFromDescription);
  if (why) throw new PresetMismatchError(`argument "sensor": ${SENSOR_NAMES[sensor]} (sensor=${sensor}) does not fit ${ds.source}: ${why}`);
}

/** Closes every distinct dataset in a resolveBands result. */
export async function closeResolved(r: Record<string, ResolvedBand>): Promise<void> {
  const set = new Set(Object.values(r).map((b) => b.dataset));
  await Promise.all([...set].map((d) => d.close().catch(() => undefined)));
}

/** Reads a resolved band window with preset scale/offset applied. */
export async function readResolved(b: ResolvedBand, x: number, y: number, w: number, h: number, signal?: AbortSignal): Promise<Float32Array> {
  const a = await b.dataset.readWindow(b.band, x, y, w, h, signal);
  if (b.scale !== undefined && (b.scale !== 1 || (b.offset ?? 0) !== 0)) {
    const s = b.scale, o = b.offset ?? 0;
    for (let i = 0; i < a.length; i++) a[i] = a[i] * s + o;
  }
  return a;
}
