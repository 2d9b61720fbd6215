/** Loads tool manifests and workflow templates from the builtin, extra and workspace folders. */
import * as fs from 'fs';
import * as path from 'path';
import type { LoadedManifest, ManifestProblem, ManifestSource, ToolManifest, WorkflowTemplate } from './types';
import { contentHash } from './canonical';
import { builtinManifestDir } from './package-root';
import { checkWorkflow, createValidator } from './validate';

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
    for (const file of jsonFiles(folder.dir)) {
      if (/(^|\.)schema\.json$/.test(path.basename(file))) continue;
      const data = readJson(file, problems);
      if (data === undefined) continue;
      const found = validator.validate(file, data);
      if (found.length) {
        problems.push(...found);
        continue;
      }
      const manifest = data as ToolManifest;
      const previous = byId.get(manifest.id);
      if (previous && folder.source === 'workspace' && previous.source !== 'workspace') {
        // A cloned repository must not swap a builtin tool (or its command line) for its own.
        problems.push({
          file, path: '/id', severity: 'error',
          message: `workspace manifest ${file} uses the id "${manifest.id}" of the ${previous.source} tool in ${previous.file}; it is ignored (a workspace cannot replace a ${previous.source} tool${manifest.runner?.type === 'process' ? ` or run "${manifest.runner.command}" in its place` : ''}): give it another id`,
        });
        continue;
      }
      if (previous) {
        problems.push({ file, path: '/id', severity: 'warning', message: `duplicate tool id "${manifest.id}" in ${file} and ${previous.file}; using ${file}` });
      }
      byId.set(manifest.id, { manifest, file, source: folder.source, hash: contentHash(manifest) });
    }
    const wdir = path.join(folder.dir, 'workflows');
    if (fs.existsSync(wdir)) {
      for (const file of jsonFiles(wdir)) {
        const data = readJson(file, problems);
        if (data === undefined) continue;
        const { workflow, problems: wp } = checkWorkflow(file, data);
        problems.push(...wp);
        if (!workflow) continue;
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

function jsonFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.json'))
    .map((e) => path.join(dir, e.name))
    .sort();
}

function readJson(file: string, problems: ManifestProblem[]): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    problems.push({ file, path: '', severity: 'error', message: `cannot read JSON: ${(e as Error).message}` });
    return undefined;
  }
}
