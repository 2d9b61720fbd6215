/** Loads tool manifests and workflow templates from the builtin, extra and workspace folders. */
import { FLOW_KEYS, QUERY_KEYS } from '../eval/tasks';
import * as fs from 'fs';
import * as path from 'path';
import { DELIVERABLE_KINDS, isDeliverableKind } from './deliverables';
import type { LoadedManifest, ManifestProblem, ManifestSource, ToolManifest, WorkflowTemplate } from './types';
import { contentHash } from './canonical';
import { strayTagTranslations, withoutDisplayFields } from './display';
import { builtinManifestDir } from './package-root';
import { checkWorkflow, createValidator } from './validate';
import { readForeignFields } from './foreign-fields';
import { parseYamlManifest } from './yaml';
import { readToolId } from './tool-id';
import { isOpenApi, openApiTools } from './openapi';

export interface LoadOptions {
  /** Defaults to `tool-manifests/` of the package. */
  builtinDir?: string;
  noBuiltin?: boolean;
  extraDirs?: string[];
  /** A workspace folder; its `.geoweave/tools/` is read when present. */
  workspaceDir?: string;
  /** Schema file; defaults to `schema.json` in the builtin folder. */
  schemaFile?: string;
}

export interface Catalog {
  tools: LoadedManifest[];
  workflows: WorkflowTemplate[];
  problems: ManifestProblem[];
}

interface Folder { dir: string; source: ManifestSource; required: boolean }

/**
 * Our largest manifest is a few KB, but one file may be a whole catalog: an OpenAPI document or an
 * MCP tools/list of a service with a hundred operations is a few hundred KB. A file far larger is
 * not a tool description.
 */
export const MAX_MANIFEST_BYTES = 2 << 20;
/** Examples indexed per tool (each becomes a vector); ours have at most a handful. */
export const MAX_EXAMPLES = 50;
/** Files and bytes read from the workspace's `.geoweave/tools` (it comes with whatever repository is opened). */
export const MAX_FOLDER_FILES = 500;
export const MAX_FOLDER_BYTES = 16 << 20;
/** Ids that name members of every JavaScript object; tables keyed by tool id must never see them. */
const RESERVED_IDS = new Set(['__proto__', 'constructor', 'prototype']);

export function loadCatalog(opts: LoadOptions = {}): Catalog {
  const problems: ManifestProblem[] = [];
  const builtin = opts.builtinDir ?? builtinManifestDir();
  const folders: Folder[] = [];
  if (!opts.noBuiltin) {
    if (builtin) folders.push({ dir: builtin, source: 'builtin', required: true });
    else problems.push({ file: 'tool-manifests', path: '', severity: 'warning', message: 'builtin tool-manifests folder not found next to package.json; pass --manifests DIR' });
  }
  for (const d of opts.extraDirs ?? []) folders.push({ dir: path.resolve(d), source: 'extra', required: true });
  if (opts.workspaceDir) folders.push({ dir: path.join(opts.workspaceDir, '.geoweave', 'tools'), source: 'workspace', required: false });

  const validator = createValidator(opts.schemaFile ?? (builtin ? path.join(builtin, 'schema.json') : undefined), (p) => problems.push(p));
  const byId = new Map<string, LoadedManifest>();
  const workflowsById = new Map<string, { w: WorkflowTemplate; file: string }>();

  for (const folder of folders) {
    if (!fs.existsSync(folder.dir)) {
      if (folder.required) problems.push({ file: folder.dir, path: '', severity: 'error', message: `manifest folder does not exist: ${folder.dir}` });
      continue;
    }
    if (folder.source === 'workspace' && opts.workspaceDir && !insideFolder(folder.dir, opts.workspaceDir)) {
      problems.push({ file: folder.dir, path: '', severity: 'warning', message: `${folder.dir} leads outside the workspace (a symbolic link); not read` });
      continue;
    }
    const budget = folderBudget(folder, problems);
    const files = manifestFiles(folder.dir, budget, folder.source !== 'builtin');
    const toolsBefore = byId.size, problemsBefore = problems.length;
    for (const file of files) {
      if (/(^|\.)schema\.json$|^fusion\.json$/.test(path.basename(file))) continue;
      const raw = readManifestFile(file, problems, budget);
      if (raw === undefined) continue;
      // A team's catalog may be one file listing its tools ([...] or {"tools": [...]}); each is read as a manifest.
      for (const [where, one] of folder.source === 'builtin' ? [['', raw] as [string, unknown]] : catalogEntries(file, raw, problems, (id) => byId.has(id) || [...byId.keys()].some((k) => k.toLowerCase() === id.toLowerCase()))) {
        // Builtin manifests are ours exactly; a team's own are read in their words first (foreign-fields.ts).
        const data = folder.source === 'builtin' ? one : readForeignFields(file, one, problems, where);
        const found = validator.validate(file, data);
        if (found.length) {
          problems.push(...found.map((p) => ({ ...p, path: `${where}${p.path}` })));
          continue;
        }
        let manifest = data as ToolManifest;
        if (RESERVED_IDS.has(manifest.id)) {
          problems.push({ file, path: '/id', severity: 'error', message: `/id "${manifest.id}" is reserved; give the tool another id` });
          continue;
        }
        if (Array.isArray(manifest.examples) && manifest.examples.length > MAX_EXAMPLES) {
          problems.push({ file, path: '/examples', severity: 'warning', message: `${manifest.id} has ${manifest.examples.length} examples; only the first ${MAX_EXAMPLES} are indexed` });
          manifest = { ...manifest, examples: manifest.examples.slice(0, MAX_EXAMPLES) };
        }
        // A kind retrieval does not know says nothing: dropped, with a warning naming it.
        if (manifest.delivers) {
          const delivers = manifest.delivers;
          const unknown = delivers.filter((k) => !isDeliverableKind(k));
          unknown.forEach((k) => problems.push({ file, path: `/delivers/${delivers.indexOf(k)}`, severity: 'warning', message: `${manifest.id}: unknown deliverable "${k}" (known: ${Object.keys(DELIVERABLE_KINDS).join(', ')}); ignored` }));
          if (unknown.length) manifest = { ...manifest, delivers: delivers.filter(isDeliverableKind) };
        }
        // A Chinese tag for no tag would never show: reported, and harmless (display only).
        for (const k of strayTagTranslations(manifest)) problems.push({ file, path: `/tags_zh/${k}`, severity: 'warning', message: `${manifest.id}: tags_zh has "${k}", which is not one of its tags; it is never shown` });
        // Ids may now carry capitals: "NDVI" from a workspace must not pass for the builtin "ndvi" either.
        const previous = byId.get(manifest.id) ?? (folder.source === 'workspace' ? [...byId.values()].find((t) => t.source !== 'workspace' && t.manifest.id.toLowerCase() === manifest.id.toLowerCase()) : undefined);
        if (previous && folder.source === 'workspace' && previous.source !== 'workspace') {
          // A cloned repository must not swap a builtin tool (or its command line) for its own.
          problems.push({
            file, path: '/id', severity: 'error',
            message: `workspace manifest ${file} uses the id "${manifest.id}"${previous.manifest.id !== manifest.id ? ` (as "${previous.manifest.id}")` : ''} of the ${previous.source} tool in ${previous.file}; it is ignored (a workspace cannot replace a ${previous.source} tool${manifest.runner?.type === 'process' ? ` or run "${manifest.runner.command}" in its place` : ''}): give it another id`,
          });
          continue;
        }
        if (previous) {
          problems.push({ file, path: '/id', severity: 'warning', message: `duplicate tool id "${manifest.id}" in ${file} and ${previous.file}; using ${file}` });
        }
        // The hash fingerprints what the index embeds and the fusion was fitted on: a Chinese display
        // name is not part of it (see display.ts), so adding one re-embeds nothing.
        byId.set(manifest.id, { manifest, file, source: folder.source, folder: folder.dir, hash: contentHash(withoutDisplayFields(manifest)) });
      }
    }
    // A folder named on purpose that gave no tool and no problem (nothing in it, or only flows) says
    // so: it used to give an empty catalog in silence.
    if (folder.required && byId.size === toolsBefore && problems.length === problemsBefore) problems.push({ file: folder.dir, path: '', severity: 'error', message: `no tool manifests in ${folder.dir} or its folders: a catalog is JSON or YAML files (a tool each, a list of tools, an OpenAPI document or an MCP tools/list answer) or a JSON Lines file with a tool per line` });
    const wdir = path.join(folder.dir, 'workflows');
    if (fs.existsSync(wdir)) {
      for (const file of manifestFiles(wdir, budget)) {
        const data = readManifestFile(file, problems, budget);
        if (data === undefined) continue;
        const { workflow, problems: wp } = checkWorkflow(file, data);
        problems.push(...wp);
        if (!workflow) continue;
        // A team's template names its tools as its manifests do ("otb/BandMath"): read by the same rule.
        if (folder.source !== 'builtin') workflow.steps = workflow.steps.map(readToolId);
        const prev = workflowsById.get(workflow.id);
        if (prev) problems.push({ file, path: '/id', severity: 'warning', message: `duplicate workflow id "${workflow.id}" in ${file} and ${prev.file}; using ${file}` });
        workflowsById.set(workflow.id, { w: workflow, file });
      }
    }
  }

  const tools = [...byId.values()].sort((a, b) => a.manifest.id.localeCompare(b.manifest.id));
  for (const t of tools) {
    for (const field of ['prerequisites', 'downstream', 'related'] as const) {
      (t.manifest[field] ?? []).forEach((ref, i) => {
        if (!byId.has(ref)) problems.push({ file: t.file, path: `/${field}/${i}`, severity: 'warning', message: `${t.manifest.id}: unknown tool "${ref}" in ${field}` });
      });
    }
  }
  const workflows: WorkflowTemplate[] = [];
  for (const { w, file } of [...workflowsById.values()].sort((a, b) => a.w.id.localeCompare(b.w.id))) {
    const unknown = w.steps.filter((s) => !byId.has(s));
    unknown.forEach((s) => problems.push({ file, path: `/steps/${w.steps.indexOf(s)}`, severity: 'warning', message: `workflow ${w.id}: unknown tool "${s}"` }));
    workflows.push(w);
  }
  return { tools, workflows, problems };
}

/** True when `dir`, symlinks resolved, lies inside `root`. */
function insideFolder(dir: string, root: string): boolean {
  try {
    const rel = path.relative(fs.realpathSync.native(root), fs.realpathSync.native(dir));
    return !rel.startsWith('..') && !path.isAbsolute(rel);
  } catch {
    return false;
  }
}

/** How much more may be read from one folder (unlimited for the builtin catalog). */
interface Budget { folder: string; files: number; bytes: number; problems: ManifestProblem[]; warned: boolean }

function folderBudget(folder: Folder, problems: ManifestProblem[]): Budget {
  // Only the folder that comes with the workspace is capped: extra folders are the user's choice (large catalogs live there).
  const unlimited = folder.source !== 'workspace';
  return { folder: folder.dir, files: unlimited ? Infinity : MAX_FOLDER_FILES, bytes: unlimited ? Infinity : MAX_FOLDER_BYTES, problems, warned: false };
}

function overBudget(b: Budget, what: string): void {
  if (b.warned) return;
  b.warned = true;
  b.problems.push({ file: b.folder, path: '', severity: 'warning', message: `${b.folder}: ${what}; the rest of the folder is not read` });
}

/** The manifests in one file: the file itself, or each entry of a list of tools (JSON pointer, manifest). */
function catalogEntries(file: string, raw: unknown, problems: ManifestProblem[], taken: (id: string) => boolean = () => false): [string, unknown][] {
  // A REST service's OpenAPI (or Swagger) document: one tool per operation.
  if (isOpenApi(raw)) return openApiTools(file, raw, problems, MAX_FOLDER_FILES);
  const o = raw as Record<string, unknown> | null;
  // An MCP server's tools/list answer saved as it came: {"jsonrpc": "2.0", "id": 1, "result": {"tools": [...]}}.
  const rpc = o && typeof o === 'object' && o.jsonrpc !== undefined && o.result && typeof o.result === 'object' ? (o.result as Record<string, unknown>) : undefined;
  const [list, at] = Array.isArray(raw) ? [raw, ''] : rpc && Array.isArray(rpc.tools) ? [rpc.tools as unknown[], '/result/tools'] : o && typeof o === 'object' && o.id === undefined && Array.isArray(o.tools) ? [o.tools as unknown[], '/tools'] : [undefined, ''];
  if (!list) return [['', raw]];
  // The same cap as on files: a list must not bring in more tools than a folder of files could.
  if (list.length > MAX_FOLDER_FILES) problems.push({ file, path: at, severity: 'warning', message: `lists ${list.length} tools; only the first ${MAX_FOLDER_FILES} are read` });
  // {"server": "eo", "tools": [...]} ("GeoWeave: Add Tools from MCP Servers" writes it): a server's
  // tools/list, each tool run by that server as the workspace's MCP configuration starts it.
  const server = at === '/tools' && typeof o?.server === 'string' && o.server.trim() ? o.server : undefined;
  // A tool named as one the catalog already has (a server's "slope" beside the builtin slope) is
  // read as "<server>.<name>", as assistants' gateways name it, rather than refused.
  const served = (m: unknown, i: number): unknown => {
    if (!server || !m || typeof m !== 'object' || Array.isArray(m) || typeof (m as { name?: unknown }).name !== 'string' || (m as { runner?: unknown }).runner !== undefined) return m;
    const name = (m as { name: string }).name;
    const own = taken(name) ? `${server}.${name}` : undefined;
    if (own) problems.push({ file, path: `${at}/${i}/name`, severity: 'warning', message: `the MCP tool "${name}" of server "${server}" is read as "${own}": the catalog already has a tool "${name}"` });
    return { ...(m as Record<string, unknown>), ...(own ? { name: own } : {}), runner: { type: 'mcp', server, tool: name } };
  };
  return list.slice(0, MAX_FOLDER_FILES).map((m, i) => [`${at}/${i}`, served(m, i)]);
}

/** Manifest files: JSON, or YAML as teams often write them. */
const MANIFEST_FILE = /\.(json|ya?ml)$/i;
/** A team's catalog may also be JSON Lines, a tool per line (flows kept beside it are JSON Lines too, and are left alone). */
const JSONL_FILE = /\.jsonl$/i;
/** How deep a team's folder of manifests is read (tools/sar/s1/x.json is 2 below it). */
const MAX_NESTING = 4;
/** Manifest files read below a team's folder at most. */
const MAX_NESTED_FILES = 2000;
const YAML_FILE = /\.ya?ml$/i;

function manifestFiles(dir: string, budget: Budget, nested = false): string[] {
  const files: string[] = [];
  let capped = false;
  const walk = (d: string, depth: number): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const p = path.join(d, e.name);
      // A folder's own files are all read (a large catalog lives in one folder); what lies below it
      // is capped, so a folder given by mistake (a home folder, a repository) is not read whole.
      if (depth > 0 && files.length >= MAX_NESTED_FILES) {
        if (!capped) budget.problems.push({ file: dir, path: '', severity: 'warning', message: `${dir}: more than ${MAX_NESTED_FILES} manifest files in its folders; the rest are not read (give the folder that holds the catalog)` });
        capped = true;
        return;
      }
      if (e.isFile() && (MANIFEST_FILE.test(e.name) || (nested && JSONL_FILE.test(e.name)))) files.push(p);
      // A team's catalog is often kept in a folder per toolbox (sar/, optical/): read them too, but
      // not hidden folders (a state folder, .git), installed packages, or the workflows folder,
      // which holds templates, not tools.
      else if (nested && e.isDirectory() && depth < MAX_NESTING && !e.name.startsWith('.') && e.name !== 'node_modules' && e.name !== '__pycache__' && !(depth === 0 && e.name === 'workflows')) walk(p, depth + 1);
    }
  };
  walk(dir, 0);
  if (files.length > budget.files) {
    overBudget(budget, `more than ${MAX_FOLDER_FILES} manifest files`);
    return files.slice(0, Math.max(0, budget.files));
  }
  return files;
}

function readManifestFile(file: string, problems: ManifestProblem[], budget: Budget): unknown {
  try {
    if (budget.files <= 0 || budget.bytes <= 0) {
      overBudget(budget, budget.files <= 0 ? `more than ${MAX_FOLDER_FILES} manifest files` : `more than ${MAX_FOLDER_BYTES >> 20} MB of manifests`);
      return undefined;
    }
    // Flows kept beside a team's manifests (however long) are not a catalog: told by their first line.
    if (JSONL_FILE.test(file) && holdsFlows(file)) return undefined;
    const size = fs.statSync(file).size;
    if (size > MAX_MANIFEST_BYTES) {
      problems.push({ file, path: '', severity: 'error', message: `${size} bytes, more than a manifest may have (${MAX_MANIFEST_BYTES / 1024} KB); not read` });
      return undefined;
    }
    budget.files--;
    budget.bytes -= size;
    // A byte-order mark (Windows editors write one) is not part of the JSON.
    const text = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
    if (JSONL_FILE.test(file)) return jsonLines(file, text, problems);
    return YAML_FILE.test(file) ? parseYamlManifest(text) : JSON.parse(text);
  } catch (e) {
    problems.push({ file, path: '', severity: 'error', message: `cannot read ${YAML_FILE.test(file) ? 'YAML' : 'JSON'}: ${(e as Error).message}` });
    return undefined;
  }
}

/** The tools of a JSON Lines catalog, as a list (a line that does not parse is reported by its number and skipped). */
function jsonLines(file: string, text: string, problems: ManifestProblem[]): unknown[] | undefined {
  const out: unknown[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].trim()) continue;
    let o: unknown;
    try {
      o = JSON.parse(lines[i]);
    } catch (e) {
      problems.push({ file, path: '', severity: 'error', message: `line ${i + 1}: cannot read JSON: ${(e as Error).message}; the line is skipped` });
      continue;
    }
    out.push(o);
  }
  return out;
}

/**
 * Whether a JSON Lines file holds flows or tasks, not tools: its first line is a task as the task
 * files are read (a query and its steps), or a chat log's "messages"; no tool has them. Only the
 * first 64 KB are read.
 */
function holdsFlows(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    const first = buf.subarray(0, n).toString('utf8').replace(/^\uFEFF/, '').split(/\r?\n/).find((l) => l.trim());
    if (!first) return false;
    const o = JSON.parse(first) as unknown;
    if (!o || typeof o !== 'object' || Array.isArray(o)) return false;
    const r = o as Record<string, unknown>;
    return Array.isArray(r.messages) || (QUERY_KEYS.some((k) => typeof r[k] === 'string') && [...FLOW_KEYS, 'gold'].some((k) => r[k] !== undefined));
  } catch {
    return false;
  } finally {
    fs.closeSync(fd);
  }
}
