/** The HTTP options every command takes for remote rasters (COG URLs). */
import { ParsedArgs, UsageError, opt } from './args';

/**
 * `--http-connect-timeout S --http-idle-timeout S --http-timeout S --http-retries N` for remote
 * rasters (COG URLs); the GEOWEAVE_HTTP_* environment variables are the defaults.
 */
export function applyHttpOptions(args: ParsedArgs): void {
  const num = (name: string, integer = false): number | undefined => {
    const v = opt(args, name);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n)) || (!integer && n === 0)) {
      throw new UsageError(`--${name} must be ${integer ? 'a whole number >= 0' : 'a number of seconds > 0'}, got "${v}"`);
    }
    return n;
  };
  const o = { connectTimeoutSeconds: num('http-connect-timeout'), idleTimeoutSeconds: num('http-idle-timeout'), timeoutSeconds: num('http-timeout'), retries: num('http-retries', true) };
  // Unset options change nothing; the HTTP client (node:http and node:https) loads only when one is given or a URL is read.
  if (Object.values(o).every((v) => v === undefined)) return;
  (require('../core/raster/io/http-client') as typeof import('../core/raster/io/http-client')).setHttpOptions(o);
}
