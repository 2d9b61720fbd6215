/**
 * The fitted fusion as state: `fusion.json` beside the learned graph, with the fingerprint of the
 * catalog and the flows it was fitted on. A fit whose fingerprint no longer matches (a manifest
 * changed, flows were added) is stale: the weights stay usable until `learn` or `index build`
 * refits them. The builtin catalog ships one fitted on its practice flows.
 */
import * as fs from 'fs';
import { createHash } from 'crypto';
import type { Weights } from '../retrieval/context';
import { DEFAULT_WEIGHTS } from '../retrieval/context';
import { FITTED_FORWARD, FITTED_NEXT } from '../retrieval/signals';
import { writeFileAtomic } from '../index/fs-util';
import type { FusionReport } from './fusion';
import { checkTreeModel, type TreeModel } from './trees';

export const FUSION_FILE = 'fusion.json';
export const FUSION_VERSION = 1;
/**
 * The fit itself, versioned: raised when the fit weighs the same flows differently (new parts, new
 * simulated queries, a task read into other terms). A fit made by an older GeoWeave is then stale,
 * and the extension refits it in the background as it does for a new catalog. Files without the
 * field were fitted by procedure 1; 2 simulates recurring tasks; 3 reads sensor names as terms;
 * 4 reads the data a task names ("S2", "Sentinel-2" alike) as one term; 5 reads Spanish, Portuguese,
 * French, German and Italian domain words as English too (and accents as optional); 6 reads
 * Chinese domain words from a larger glossary and "S1", "GRD" as SAR; 7 fits from 2 flows (the
 * next-step weights from 20 steps) and weighs the practice beside a team's flows at its share; 8
 * replays the practice in the share of the team's steps on its tools, weighs text matches by
 * their manifest folder's reach, and reads words and idf at the weight of the flows that used
 * them; 9 weighs a next step the task names (`nameNext`); 10 keeps every tool already run among a
 * next-step query's candidates and weighs how often past flows ran a tool again (`again`); 11
 * fits trees that rerank the best next steps (`trees`).
 */
export const FIT_PROCEDURE = 11;

export interface FusionState {
  version: number;
  /** sha256 of the catalog (tool ids and manifest hashes) … */
  catalog: string;
  /** … and of the flows it was fitted on (task text and tools, in order). */
  flows: string;
  /** The fit procedure that made it (FIT_PROCEDURE then; absent: 1). */
  procedure?: number;
  /** Weights of the fitted parts; empty when the prior stayed. */
  weights: Partial<Weights>;
  /** Trees that rerank the best next steps (fusion/trees.ts); absent when none helped or too few flows. */
  trees?: TreeModel;
  report?: FusionReport;
  /** Why the prior stayed, when it did. */
  reason?: string;
  fittedAt: string;
}

export interface FitFlow { query: string; tools: string[] }

export function fusionFingerprint(tools: { id: string; hash: string }[], flows: FitFlow[]): string {
  const h = createHash('sha256');
  for (const t of [...tools].sort((a, b) => a.id.localeCompare(b.id))) h.update(`${t.id}\u0000${t.hash}\n`);
  h.update('\u0001');
  for (const f of flows) h.update(`${f.query}\u0000${f.tools.join('\u0000')}\n`);
  return h.digest('hex');
}

/** Reads a fusion file; undefined when missing. Throws with the file and field named when it is malformed. */
export function readFusion(file: string): FusionState | undefined {
  if (!fs.existsSync(file)) return undefined;
  const data = JSON.parse(fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '')) as FusionState;
  if (!data || typeof data !== 'object' || data.version !== FUSION_VERSION) throw new Error(`${file}: unknown format (version ${(data as FusionState)?.version}, expected ${FUSION_VERSION})`);
  for (const k of ['catalog', 'flows'] as const) if (typeof data[k] !== 'string') throw new Error(`${file}: "${k}" must be a string (a sha256 fingerprint)`);
  if (data.procedure !== undefined && (!Number.isInteger(data.procedure) || data.procedure < 1)) throw new Error(`${file}: "procedure" must be a whole number from 1 (the fit procedure's version)`);
  if (!data.weights || typeof data.weights !== 'object' || Array.isArray(data.weights)) throw new Error(`${file}: "weights" must be an object`);
  const fitted = new Set<string>([...FITTED_FORWARD, ...FITTED_NEXT]);
  for (const [k, v] of Object.entries(data.weights)) {
    if (!fitted.has(k) || !Object.prototype.hasOwnProperty.call(DEFAULT_WEIGHTS, k)) throw new Error(`${file}: "weights.${k}" is not a fitted weight`);
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 100) throw new Error(`${file}: "weights.${k}" must be a number from 0 to 100`);
  }
  if (data.trees !== undefined) checkTreeModel(data.trees, `${file}: "trees"`);
  return data;
}

/** Whether a saved fit is the one this GeoWeave would make for a catalog and flows with these fingerprints. */
export function fusionCurrent(st: FusionState | undefined, fp: { catalog: string; flows: string }): boolean {
  return !!st && st.catalog === fp.catalog && st.flows === fp.flows && (st.procedure ?? 1) === FIT_PROCEDURE;
}

export function writeFusion(file: string, state: FusionState): void {
  // Lists of numbers (the trees' splits and leaves) on one line each: a file a person can still read.
  writeFileAtomic(file, JSON.stringify(state, null, 2).replace(/\[(?:\s*-?[\d.eE+-]+,?)+\s*\]/g, (m) => m.replace(/\s+/g, '')) + '\n');
}
