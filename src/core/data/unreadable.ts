/** Why a data file could not be read, as readiness quotes it after the file's name. Its own module:
 *  the extension loads it at activation, before the raster engine is needed. */

/** A reader's message without the file's path it starts with. */
export function whyUnreadable(e: unknown, abs: string): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.startsWith(abs + ': ') ? m.slice(abs.length + 2) : m;
}
