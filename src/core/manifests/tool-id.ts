/**
 * Tool ids as other systems write them. A team's catalog may name tools "Zonal Statistics" or
 * "otb/BandMath"; a tool cell's header, output file names and the index need ids without spaces
 * or slashes. Such an id is read as ours by one rule, applied alike to manifests and to the flows
 * and task files that name the tools, so both sides still meet.
 */

/** What an id may hold (schema.json's pattern). */
export const TOOL_ID = /^[A-Za-z0-9_][A-Za-z0-9_.:-]*$/;

/**
 * The id as ours: each run of characters an id cannot hold becomes "_", leading punctuation and
 * trailing "_" are dropped. An id that is already ours, or that has no letter or digit we could keep (a name in
 * another script), comes back unchanged for the validator to judge.
 */
export function readToolId(raw: string): string {
  const s = raw.trim();
  if (TOOL_ID.test(s)) return s;
  const t = s.replace(/[^A-Za-z0-9_.:-]+/g, '_').replace(/^[^A-Za-z0-9]+/, '').replace(/_+$/, '');
  return /[A-Za-z0-9]/.test(t) && TOOL_ID.test(t) ? t : raw;
}
