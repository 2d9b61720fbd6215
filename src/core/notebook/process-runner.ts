/** Runs a manifest's `process` runner (an external command such as gdalwarp) with templated
 *  arguments. The caller decides whether running external commands is allowed (workspace trust).
 *  The command writes into a private staging folder; its output reaches the output folder only
 *  when it exits 0 and the file exists. */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import type { ToolManifest } from '../manifests/types';
import type { OutputRef, RunOptions, ToolRunResult } from '../raster/types';
import { RunStaging } from '../raster/io/run-staging';
import { aliasOf } from '../raster/arg-aliases';
import { VECTOR_FILE } from '../raster/vector/formats';
import { provenanceItems, startRunRecord } from '../raster/provenance';
import { finishRasterOutput } from './process-style';

const EXT: Record<OutputRef['type'], string> = { raster: '.tif', vector: '.geojson', table: '.csv' };
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const PATH_TYPES = new Set(['raster', 'vector', 'table']);

/** Argument error of a process tool: names the tool and the argument. */
export class ProcessArgumentError extends Error {}

/** `args[name]` if the cell gave it: a name such as "__proto__" or "toString" is not read from the prototype. */
export function own(args: Record<string, unknown>, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(args, name) ? args[name] : undefined;
}

/**
 * Fills `{name}` with argument values and `{out}` with the output path; unknown names are an error.
 * A template that is exactly `{name}` with a list value gives one argv element per item.
 * A value may not become an option: one that starts an argv element with "-" must be a number.
 */
export function expandArgv(template: string, args: Record<string, unknown>, out: string, tool = 'tool'): string[] {
  const whole = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(template);
  const text = (name: string, v: unknown): string => {
    const s = typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
    if (/[\0\r\n]/.test(s)) throw new ProcessArgumentError(`${tool}: argument "${name}" contains a line break or NUL character`);
    return s;
  };
  const checkOption = (name: string, s: string) => {
    if (s.startsWith('-') && !NUMBER.test(s)) {
      throw new ProcessArgumentError(`${tool}: argument "${name}" is "${s.slice(0, 40)}", which starts with "-" and would be read as an option of the command; give a value that does not start with "-" (paths: prefix ./)`);
    }
  };
  if (whole && whole[1] !== 'out') {
    const name = whole[1];
    const v = own(args, name);
    if (v === undefined) throw new ProcessArgumentError(`${tool}: argument "${name}" is needed by the command template "${template}"`);
    const items = Array.isArray(v) ? v.map((x) => text(name, x)) : [text(name, v)];
    items.forEach((s) => checkOption(name, s));
    return items;
  }
  const s = template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    if (name === 'out') return out;
    const v = own(args, name);
    if (v === undefined) throw new ProcessArgumentError(`${tool}: argument "${name}" is needed by the command template "${template}"`);
    const value = Array.isArray(v) ? v.map((x) => text(name, x)).join(' ') : text(name, v);
    // Inside a longer element (an SQL statement, KEY=VALUE) a quote or backslash could end the quoting.
    if (/["'\\`]/.test(value)) throw new ProcessArgumentError(`${tool}: argument "${name}" may not contain quotes or backslashes (it is placed inside "${template}")`);
    return value;
  });
  if (s.startsWith('-') && !template.startsWith('-')) checkOption(/\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(template)?.[1] ?? '?', s);
  return [s];
}

/** Kept for callers that expand one element: the element, or an error when the template spreads a list. */
export function expandTemplate(template: string, args: Record<string, unknown>, out: string): string {
  return expandArgv(template, args, out).join(' ');
}

/** Arguments as the command (or the service, http-runner.ts) sees them: declared file inputs as
 *  absolute paths, numbers and choices checked, unknown names refused, defaults filled in. */
export function commandArgs(manifest: ToolManifest, args: Record<string, unknown>, cwd: string): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  const declared = new Map((manifest.inputs ?? []).map((p) => [p.name, p]));
  const used = new Set<string>();
  const templates = manifest.runner?.type === 'process' ? manifest.runner.args : manifest.runner?.type === 'http' ? [manifest.runner.url] : [];
  for (const a of templates) for (const m of a.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) used.add(m[1]);
  for (const [k, v] of Object.entries(args ?? {})) {
    if (!declared.has(k) && !used.has(k)) {
      throw new ProcessArgumentError(`${manifest.id}: unknown argument "${k}"; ${manifest.id} takes ${[...new Set([...declared.keys(), ...used])].filter((n) => n !== 'out').join(', ') || 'no arguments'}`);
    }
    const spec = declared.get(k) ?? { name: k, type: 'string' as const };
    if (v === undefined || v === null || v === '') continue;
    const isLocal = (s: string) => !/^(https?:\/\/|\/vsi)/i.test(s);
    if (PATH_TYPES.has(spec.type)) out[k] = typeof v === 'string' && isLocal(v) ? path.resolve(cwd, v) : v;
    else if (spec.type === 'array' && Array.isArray(v)) out[k] = v.map((x) => (typeof x === 'string' && isLocal(x) && (/\.(tiff?|vrt|jp2|j2k)$/i.test(x) || VECTOR_FILE.test(x)) ? path.resolve(cwd, x) : x));
    else if (spec.type === 'number') {
      const n = typeof v === 'number' ? v : typeof v === 'string' && NUMBER.test(v.trim()) ? Number(v) : NaN;
      if (!Number.isFinite(n)) throw new ProcessArgumentError(`${manifest.id}: argument "${k}" must be a number, got ${JSON.stringify(v).slice(0, 60)}`);
      out[k] = n;
    } else if (spec.enum && !spec.enum.includes(String(v))) {
      throw new ProcessArgumentError(`${manifest.id}: argument "${k}" must be one of ${spec.enum.join(', ')}, got ${JSON.stringify(v).slice(0, 60)}`);
    } else out[k] = v;
  }
  for (const p of manifest.inputs ?? []) if (out[p.name] === undefined && p.default !== undefined) out[p.name] = p.default;
  return out;
}

/** An output name in outDir that no earlier run used ("<id>_<stamp>.tif", then "_2", "_3", ...). */
export function freshName(outDir: string, id: string, ext: string): string {
  const stamp = new Date().toISOString().replace(/[-:.TZ]/g, '').slice(0, 14);
  for (let k = 1; ; k++) {
    // A team's id may hold a ':' (QGIS-style "native:buffer"), which no Windows file name may.
    const name = `${id.replace(/[^A-Za-z0-9_.-]/g, '_')}_${stamp}${k > 1 ? `_${k}` : ''}${ext}`;
    if (!fs.existsSync(path.join(outDir, name))) return name;
  }
}

export async function runProcessTool(manifest: ToolManifest, args: Record<string, unknown>, opts: RunOptions): Promise<ToolRunResult> {
  const runner = manifest.runner;
  if (!runner || runner.type !== 'process') throw new Error(`${manifest.id} has no process runner`);
  const first = manifest.outputs?.[0];
  const type = (first?.type === 'vector' || first?.type === 'table' ? first.type : 'raster') as OutputRef['type'];
  const cwd = path.resolve(opts.cwd ?? process.cwd());
  const outDir = path.resolve(cwd, opts.outDir);
  // `image:` for a tool whose input is `dem` (and the like) is that input under another tool's name.
  const params = (manifest.inputs ?? []).map((p) => p.name);
  const named = Object.fromEntries(Object.entries(args).map(([k, v]) => [aliasOf(k, params) ?? k, v]));
  const values = commandArgs(manifest, named, cwd);
  // Check every argument before anything is created or run.
  runner.args.forEach((a) => expandArgv(a, values, path.join(outDir, 'out'), manifest.id));
  // How the output was made, as builtin runs record it: inputs hashed beside the command.
  const record = startRunRecord(manifest, args, values);
  const staging = await RunStaging.create(outDir);
  try {
    const name = freshName(outDir, manifest.id, EXT[type]);
    const staged = path.join(staging.dir, name);
    const argv = runner.args.flatMap((a) => expandArgv(a, values, staged, manifest.id));
    opts.onProgress?.(0, `${runner.command} ${argv.join(' ')}`);
    const stderr = await new Promise<string>((resolve, reject) => {
      const child = spawn(runner.command, argv, { cwd, signal: opts.signal, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d: Buffer) => { err = (err + d.toString()).slice(-4000); });
      child.on('error', (e) => {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') reject(new Error(`${manifest.id}: command "${runner.command}" was not found on PATH; install it (GDAL) or remove the manifest`));
        else if (e.name === 'AbortError') reject(new Error(`${manifest.id}: cancelled`));
        else reject(new Error(`${manifest.id}: ${runner.command} failed to run (${e.message})`));
      });
      child.on('close', (code, sig) => {
        if (code === 0) resolve(err);
        else reject(new Error(`${manifest.id}: ${runner.command} ${code === null ? `was stopped by ${sig}` : `exited with code ${code}`}: ${err.trim().split('\n').slice(-3).join(' ') || 'no message'}`));
      });
    });
    if (!fs.existsSync(staged)) {
      throw new Error(`${manifest.id}: ${runner.command} exited with code 0 but did not write ${name}; check the manifest's "{out}" argument${stderr.trim() ? ` (${stderr.trim().split('\n').pop()})` : ''}`);
    }
    const provenance = await record.provenance();
    // Like a builtin output (unless GeoWeave cannot read what the command wrote: then the file alone).
    const styled = type === 'raster' && /\.tiff?$/i.test(staged) ? await finishRasterOutput(staged, provenance, opts) : undefined;
    await staging.commit();
    const out = path.join(outDir, name);
    const produced = (runner.outputs?.length ? runner.outputs : [first?.name ?? 'output']);
    const outputs: Record<string, OutputRef> = {};
    const moved = (f: string) => path.join(outDir, path.basename(f));
    outputs[produced[0]] = { path: out, type, ...(first?.bands ? { roles: first.bands } : {}), ...(styled ? { style: moved(styled.style) } : {}) };
    opts.onProgress?.(1);
    const note = stderr.trim() ? ` (${stderr.trim().split('\n').pop()})` : '';
    return {
      tool: manifest.id, outputs, stats: styled?.stats ?? {}, summary: `${runner.command} wrote ${name}${note}.`, provenance,
      ...(styled ? { quicklook: moved(styled.quicklook) } : {}),
    };
  } catch (e) {
    record.stop();
    await staging.discard();
    throw e;
  }
}
