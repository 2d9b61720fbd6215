/** Run errors as a notebook cell shows them: what to add to the cell, in cell syntax (`nir: 4`), not
 *  the command line's `--arg nir=4`. */
import * as path from 'path';
import type { BandRoleError } from '../raster/bands';
import { SENSOR_PRESETS as SENSORS } from './vocabulary';

/** By name rather than `instanceof`: this module stays free of the raster engine (geotiff), which
 *  the extension loads only when a cell runs. */
function isBandRoleError(e: unknown): e is BandRoleError {
  return e instanceof Error && e.name === 'BandRoleError' && typeof (e as BandRoleError).role === 'string';
}

const ROLE_NAME: Record<string, string> = { nir: 'NIR', swir1: 'SWIR1', swir2: 'SWIR2', qa: 'QA', rededge: 'red edge' };

function roleName(r: string): string {
  return ROLE_NAME[r] ?? r;
}

function line(name: string, value: string | number): string {
  return `a line \`${name}: ${value}\``;
}

function bandRoleMessage(e: BandRoleError): string {
  const file = path.basename(e.file);
  const what = e.undescribed ? `${e.bandCount} bands, none described` : `${e.bandCount} bands, none described as ${roleName(e.role)}`;
  const guessed = Object.entries(e.guessed);
  const sensors = `or a line \`sensor: …\` if it is one of ${SENSORS.join(', ')}`;
  if (!guessed.length || !e.guess) {
    return `missing band role "${e.role}" in ${file} (${what}): add ${line(e.role, '<band number>')} to the cell, ${sensors}`;
  }
  const lines = guessed.map(([r, b]) => line(r, b)).join(' and ');
  const which = guessed.map(([r, b]) => `${roleName(r)} is band ${b}`).join(', ');
  return `missing band role "${e.role}" in ${file} (${what}): add ${lines} to the cell. ` +
    `A guess: the file looks like ${e.guess.label} (${e.guess.why}), where ${which}; ${sensors}.`;
}

/** The message a failed cell shows for `e`. */
export function cellErrorMessage(e: unknown): string {
  if (isBandRoleError(e)) return bandRoleMessage(e);
  const message = e instanceof Error ? e.message : String(e);
  // Any other hint in command-line syntax: "pass --arg k=v" → "add a line `k: v`".
  return message
    .replace(/--arg ([\w.]+)=(<[^>]*>|[^\s),;]+)/g, (_m, k: string, v: string) => line(k, v))
    .replace(/\bpass (a line `)/g, 'add $1');
}

/** Lines to add to a cell for a band-role error: `nir: 4` for every guessed role (empty without a guess). */
export function bandLines(e: unknown): string[] {
  return isBandRoleError(e) ? Object.entries(e.guessed).map(([r, b]) => `${r}: ${b}`) : [];
}
