/** Opens the retrieval engine (GeoWeave) on first use, with progress, and keeps the index state
 *  (status bar, Problems view) in sync. The heavy modules (hnswlib, embedders) load only here. */
import * as vscode from 'vscode';
import * as fs from 'fs';
import * as path from 'path';
import type { GeoWeave } from '../core/geoweave';
import type { EmbedderConfig } from '../core/embed/types';
import type { ManifestProblem } from '../core/manifests/types';
import { formatProblem, problemMessage } from '../core/manifests/problem';
import { problemLines } from '../core/manifests/problem-line';
import { describeReach } from '../core/retrieval/reach';
import { config } from './config';
import { coreLogger, Log } from './log';
import { keyForEndpoint, knownSecrets } from './secrets';
import { redactText } from '../core/net/redact';

export interface RetrievalDeps {
  extensionPath: string;
  storageDir: string;
  secrets: vscode.SecretStorage;
  globalState: vscode.Memento;
  log: Log;
}

export class RetrievalService implements vscode.Disposable {
  private opening?: Promise<GeoWeave>;
  private readonly changed = new vscode.EventEmitter<GeoWeave | undefined>();
  /** Fires after the engine opened, reloaded or closed. */
  readonly onDidChange = this.changed.event;
  private readonly problems = vscode.languages.createDiagnosticCollection('geoweave-manifests');
  private current?: GeoWeave;
  /** The background fit of the engine now open; a reopened engine stops it (one fit at a time). */
  private refitAbort = new AbortController();
  private notedWorkspaceState = false;

  constructor(private readonly deps: RetrievalDeps) {}

  workspaceDir(): string | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  /** The engine if it is already open (for cheap reads such as the status bar). */
  peek(): GeoWeave | undefined {
    return this.current;
  }

  get(): Promise<GeoWeave> {
    if (!this.opening) {
      this.opening = this.open(false).catch((e) => {
        this.opening = undefined;
        throw e;
      });
    }
    return this.opening;
  }

  private async open(rebuildIndex: boolean): Promise<GeoWeave> {
    const { log } = this.deps;
    const started = Date.now();
    const workspaceDir = this.workspaceDir();
    // The key goes only to endpoints the user chose ('' = send none; see secrets.ts).
    const keyDeps = { secrets: this.deps.secrets, globalState: this.deps.globalState, log };
    const embedderKey = config.embedderKind() === 'openai' ? await keyForEndpoint(keyDeps, 'openai.baseURL') : '';
    let embedder = config.embedder(path.join(this.deps.storageDir, 'models'), embedderKey);
    // The LLM is optional: both settings set turns it on; the core falls back on any failure.
    const llm = config.llmBaseURL() && config.llmModel() ? { baseURL: config.llmBaseURL(), model: config.llmModel(), apiKey: await keyForEndpoint(keyDeps, 'llm.baseURL') } : undefined;
    const missing = embedder.kind === 'transformers' ? this.transformersRuntimeMissing() : undefined;
    if (missing) {
      void vscode.window.showWarningMessage(
        vscode.l10n.t('GeoWeave: the "transformers" embedder needs transformers.js with onnxruntime for {0}, and {1}. Install the GeoWeave package built for this platform, or set "geoweave.embedder" to "builtin". Using the builtin embedder for now.', `${process.platform}-${process.arch}`, missing));
      log.warn(`transformers embedder requested but ${missing}; falling back to builtin`);
      embedder = { kind: 'builtin' };
    }
    const { GeoWeave } = await import('../core/geoweave');
    const gw = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('GeoWeave: loading the tool index'), cancellable: true },
      async (progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        let last = 0;
        const openWith = (e: EmbedderConfig) => GeoWeave.open({
          builtinManifestDir: path.join(this.deps.extensionPath, 'tool-manifests'),
          extraManifestDirs: config.manifestFolders(workspaceDir),
          practice: config.practice(workspaceDir),
          workspaceDir,
          stateDir: path.join(this.deps.storageDir, 'state'),
          embedder: e,
          llm,
          rebuildIndex,
          // The fit runs in the background below; the rebuilt index is usable at once.
          refitOnRebuild: false,
          log: coreLogger(log),
          signal: abort.signal,
          onProgress: (fraction, message) => {
            const pct = Math.round(fraction * 100);
            progress.report({ increment: Math.max(0, pct - last), message });
            last = Math.max(last, pct);
          },
        });
        try {
          return await openWith(embedder);
        } catch (e) {
          // A model that does not load (not downloaded, wrong folder) must not leave the panel without
          // suggestions: say why and use the builtin embedder, as when the runtime is missing.
          if (embedder.kind !== 'transformers' || abort.signal.aborted) throw e;
          const why = redactText(e instanceof Error ? e.message : String(e), knownSecrets());
          void vscode.window.showWarningMessage(vscode.l10n.t('GeoWeave: the "transformers" embedder could not load: {0}. Using the builtin embedder for now; fix the geoweave.transformers.* settings, then run "GeoWeave: Rebuild Tool Index".', why));
          log.warn(`transformers embedder failed to load (${why}); falling back to builtin`);
          return openWith({ kind: 'builtin' });
        }
      });
    this.noteWorkspaceState(workspaceDir);
    const s = gw.stats();
    log.info(`tool index ready in ${Date.now() - started} ms: ${s.tools} tools, ${s.workflows} workflows, embedder ${s.embedder} (${s.dimension}d), ${s.indexFile}`);
    this.current = gw;
    this.publishProblems(gw.problems);
    this.changed.fire(gw);
    this.refitInBackground(gw);
    return gw;
  }

  /** Fits the fusion weights to this catalog and its flows when none fit them yet; suggestions use the current weights meanwhile. */
  private refitInBackground(gw: GeoWeave): void {
    this.refitAbort.abort();
    const abort = (this.refitAbort = new AbortController());
    if (!gw.fusionNeedsFit()) return;
    const started = Date.now();
    this.deps.log.info('fitting the fusion weights to this catalog and its flows in the background');
    gw.refitFusion({ signal: abort.signal, onProgress: () => undefined }).then(
      (st) => {
        this.deps.log.info(st.report ? `fusion weights fitted on ${st.report.flows} flows in ${Math.round((Date.now() - started) / 100) / 10} s (out-of-fold next hit@3 ${st.report.next.before['hit@3']} → ${st.report.next.after['hit@3']}${st.report.nextPrior ? `; next-step weights: prior, ${st.report.nextPrior}` : ''})` : `fusion weights: prior kept (${st.reason})`);
        // Why a folder's tools are rarely suggested: the team's flows seldom run them.
        for (const f of gw.stats().folders) if (f.reach < 1) this.deps.log.info(`manifest folder ${describeReach(f)}`);
      },
      (e) => { if (!abort.signal.aborted) this.deps.log.warn(`fusion fit failed: ${e instanceof Error ? e.message : String(e)}`); },
    );
  }

  /**
   * A `.geoweave-state` folder in the workspace is the CLI's; a cloned repository can ship one, so
   * the extension never reads it (its own state lives in the extension's storage). Said once.
   */
  private noteWorkspaceState(workspaceDir: string | undefined): void {
    if (this.notedWorkspaceState || !workspaceDir) return;
    const cliState = path.join(workspaceDir, '.geoweave-state');
    if (!fs.existsSync(cliState)) return;
    this.notedWorkspaceState = true;
    this.deps.log.info(`${cliState} (the CLI's state folder) is ignored: the extension keeps its index and learned state in ${path.join(this.deps.storageDir, 'state')}, so state shipped with a repository is never loaded`);
  }

  /** What of the transformers runtime is missing: the packaged one sits in dist/node_modules (see
   *  webpack.config.js), a development checkout has it in node_modules. Undefined when all is there. */
  private transformersRuntimeMissing(): string | undefined {
    const roots = ['dist/node_modules', 'node_modules'].map((r) => path.join(this.deps.extensionPath, r));
    const has = (...p: string[]) => roots.some((r) => fs.existsSync(path.join(r, ...p)));
    if (!has('@huggingface', 'transformers', 'package.json')) return 'transformers.js is not in this installation';
    if (!has('onnxruntime-node', 'bin', 'napi-v6', process.platform, process.arch, 'onnxruntime_binding.node')) return `onnxruntime-node has no binary for ${process.platform}-${process.arch} in this installation`;
    return undefined;
  }

  /** Re-reads manifests after a change on disk; the index updates incrementally. */
  async reload(): Promise<void> {
    if (!this.opening) return;
    const gw = await this.get();
    const r = await gw.reload();
    this.deps.log.info(`manifests reloaded: ${r.added.length} added, ${r.changed.length} changed, ${r.removed.length} removed`);
    this.publishProblems(gw.problems);
    this.changed.fire(gw);
  }

  /** Closes the engine and opens it again: after settings changed (the index is reused when its
   *  fingerprint still matches), or rebuilt from scratch when the user asks (`force`). */
  async rebuild(force = false): Promise<GeoWeave> {
    const old = this.opening;
    this.opening = undefined;
    this.current = undefined;
    if (old) await old.then((g) => g.dispose()).catch(() => undefined);
    this.changed.fire(undefined);
    this.opening = this.open(force).catch((e) => {
      this.opening = undefined;
      throw e;
    });
    return this.opening;
  }

  private publishProblems(problems: ManifestProblem[]): void {
    this.problems.clear();
    const byFile = new Map<string, vscode.Diagnostic[]>();
    // Each file read and parsed once, however many problems it has (a catalog of many tools has many).
    const lineOf = new Map<string, { lines: string[]; at: (pointer: string) => number }>();
    for (const p of problems) {
      if (!path.isAbsolute(p.file)) {
        this.deps.log.warn(`manifest problem: ${formatProblem(p)}`);
        continue;
      }
      const d = new vscode.Diagnostic(problemRange(p, lineOf), problemMessage(p),
        p.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
      d.source = 'GeoWeave';
      byFile.set(p.file, [...(byFile.get(p.file) ?? []), d]);
    }
    for (const [file, ds] of byFile) this.problems.set(vscode.Uri.file(file), ds);
  }

  dispose(): void {
    this.refitAbort.abort();
    this.problems.dispose();
    this.changed.dispose();
    void this.opening?.then((g) => g.dispose()).catch(() => undefined);
  }
}

/** The line of the deepest key the problem's path reaches (`problemLines`); the whole first line when none. */
function problemRange(p: ManifestProblem, files: Map<string, { lines: string[]; at: (pointer: string) => number }>): vscode.Range {
  try {
    let f = files.get(p.file);
    if (!f) {
      const text = fs.readFileSync(p.file, 'utf8');
      files.set(p.file, (f = { lines: text.split('\n'), at: problemLines(text) }));
    }
    const i = f.at(p.path);
    if (i >= 0) return new vscode.Range(i, 0, i, f.lines[i].length);
  } catch {
    // the file may be gone already
  }
  return new vscode.Range(0, 0, 0, 1);
}
