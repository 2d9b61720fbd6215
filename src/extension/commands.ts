/** Every GeoWeave command in one table: id → factory. Titles and the "GeoWeave" category are in
 *  package.json `contributes.commands`, which lists the same ids. */
import * as vscode from 'vscode';
import * as fs from 'fs';
import * as path from 'path';
import { config } from './config';
import type { Log } from './log';
import type { RetrievalService } from './retrieval-service';
import type { Assistant } from './assistant';
import { runCells } from './assistant';
import { mcpInputs, promptOpenaiKey, promptServiceKey } from './secrets';
import { isUsableServer, readMcpConfig, MCP_CONFIG_FILES } from '../core/notebook/mcp-config';
import { serverCatalog, serverCatalogFile } from '../core/notebook/mcp-runner';
import { serviceOrigin } from '../core/notebook/http-runner';
import { createNotebookFile, currentNotebook } from './notebook-session';
import { stableStringify } from '../core/notebook/notebook-file';
import { PANEL_VIEW_ID } from './panel';
import { writeFileAtomic } from '../core/index/fs-util';
import { exportNotebook } from './export-command';
import type { ToolManifest } from '../core/manifests/types';
import { displayName, toolDescription } from '../core/manifests/display';
import { summaryLanguage } from '../core/results/summary-language';
import type { WorkspaceData } from './workspace-data';
import { extractArchiveCommand } from './archive-command';

export interface CommandDeps {
  retrieval: RetrievalService;
  assistant: Assistant;
  log: Log;
  secrets: vscode.SecretStorage;
  /** The side panel: the Describe Task command puts the focus in its task box. */
  panel: { focusTask(): Promise<void> };
  data: WorkspaceData;
}

type Factory = (d: CommandDeps) => (...args: unknown[]) => unknown;

export const COMMANDS: Record<string, Factory> = {
  'geoweave.newNotebook': (d) => async () => {
    const dir = d.retrieval.workspaceDir();
    if (!dir) return vscode.window.showErrorMessage(vscode.l10n.t('GeoWeave: open a folder first; notebooks and outputs live in the workspace.'));
    await createNotebookFile(dir, d.assistant.task(), config.workingMemorySize());
  },
  // The task is typed in the panel (Enter submits); a string argument (a link, a keybinding) sets it directly.
  'geoweave.describeTask': (d) => async (task?: unknown) => {
    if (typeof task === 'string') {
      await vscode.commands.executeCommand(`${PANEL_VIEW_ID}.focus`);
      await d.assistant.describeTask(task);
      return;
    }
    await d.panel.focusTask();
  },
  'geoweave.findTool': (d) => () => findTool(d),
  'geoweave.suggestNext': (d) => async () => {
    await vscode.commands.executeCommand(`${PANEL_VIEW_ID}.focus`);
    await d.assistant.suggestNext();
  },
  'geoweave.insertToolCell': (d) => async (toolId?: unknown) => {
    const id = typeof toolId === 'string' ? toolId : await pickTool(d, vscode.l10n.t('Insert a tool cell'));
    if (id) await d.assistant.insert(id, 'forward', false);
  },
  'geoweave.runAll': () => async () => {
    const nb = currentNotebook();
    if (!nb) return vscode.window.showInformationMessage(vscode.l10n.t('GeoWeave: no GeoWeave notebook is open.'));
    const tools = nb.getCells().filter((c) => c.kind === vscode.NotebookCellKind.Code);
    if (!tools.length) return;
    await runCells(nb, tools[0].index, nb.cellCount);
  },
  'geoweave.exportNotebook': () => (format?: unknown, target?: unknown) => exportNotebook(format, target),
  'geoweave.rebuildIndex': (d) => async () => {
    const gw = await d.retrieval.rebuild(true);
    const s = gw.stats();
    void vscode.window.showInformationMessage(vscode.l10n.t('GeoWeave: index rebuilt: {0} tools, embedder {1}.', s.tools, s.embedder));
  },
  'geoweave.openManifest': (d) => async (toolId?: unknown) => {
    const id = typeof toolId === 'string' ? toolId : await pickTool(d, vscode.l10n.t('Open a tool manifest'));
    if (!id) return;
    const gw = await d.retrieval.get();
    const loaded = gw.tools.find((t) => t.manifest.id === id);
    if (!loaded) return vscode.window.showErrorMessage(vscode.l10n.t('GeoWeave: no manifest for "{0}".', id));
    await vscode.window.showTextDocument(vscode.Uri.file(loaded.file));
  },
  'geoweave.newManifest': (d) => () => newManifest(d),
  'geoweave.setOpenAIKey': (d) => async () => {
    if (await promptOpenaiKey(d.secrets) && config.embedderKind() === 'openai') await d.retrieval.rebuild();
  },
  'geoweave.setServiceKey': (d) => async () => {
    // The addresses of the catalog's services that say they take a key come first.
    const gw = await d.retrieval.get();
    const origins = new Set<string>();
    for (const t of gw.tools) {
      const r = t.manifest.runner;
      const origin = r?.type === 'http' && r.auth ? serviceOrigin(r) : undefined;
      if (origin) origins.add(origin);
    }
    await promptServiceKey(d.secrets, [...origins].sort());
  },
  'geoweave.addMcpTools': (d) => () => addMcpTools(d),
  'geoweave.clearMemory': (d) => () => d.assistant.clearMemory(),
  'geoweave.showLog': (d) => () => d.log.show(),
  'geoweave.createSample': (d) => () => createSample(d),
  'geoweave.extractArchive': (d) => (target?: unknown) => extractArchiveCommand(d.data, d.log, target),
};

/**
 * The tools of the workspace's MCP servers (`.vscode/mcp.json` and the like) into the catalog: each
 * chosen server is started once and asked for its tools, which are written to
 * `.geoweave/tools/mcp-<server>.json` ({"server", "tools"}); cells then run them through the server.
 */
async function addMcpTools(d: CommandDeps): Promise<void> {
  const dir = d.retrieval.workspaceDir();
  if (!dir) {
    void vscode.window.showErrorMessage(vscode.l10n.t('GeoWeave: open a folder first; workspace manifests live in .geoweave/tools/.'));
    return;
  }
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showErrorMessage(vscode.l10n.t('GeoWeave starts MCP servers only in a trusted workspace: use "Workspaces: Manage Workspace Trust"'));
    return;
  }
  const cfg = readMcpConfig(dir);
  for (const p of cfg.problems) d.log.warn(p);
  const usable = [...cfg.servers.values()].filter((s) => isUsableServer(s.raw));
  if (!usable.length) {
    void vscode.window.showErrorMessage(cfg.problems[0] ?? vscode.l10n.t('GeoWeave: no MCP server that runs as a command or is reached at an address (Streamable HTTP or HTTP+SSE) is configured in this workspace ({0}).', MCP_CONFIG_FILES.join(', ')));
    return;
  }
  const picked = usable.length === 1 ? usable : await vscode.window.showQuickPick(usable.map((s) => ({ label: s.name, description: typeof s.raw.command === 'string' ? [s.raw.command, ...(Array.isArray(s.raw.args) ? s.raw.args : [])].join(' ') : String(s.raw.url), detail: path.relative(dir, s.file), picked: true, s })), { canPickMany: true, title: vscode.l10n.t('GeoWeave: Add Tools from MCP Servers') }).then((items) => items?.map((i) => i.s));
  if (!picked?.length) return;
  const added: string[] = [];
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('GeoWeave: asking MCP servers for their tools'), cancellable: true }, async (progress, token) => {
    const ac = new AbortController();
    token.onCancellationRequested(() => ac.abort());
    for (const s of picked) {
      if (ac.signal.aborted) break;
      progress.report({ message: s.name });
      try {
        const { tools } = await serverCatalog(dir, s.name, { signal: ac.signal, input: mcpInputs(d.secrets, dir) });
        const file = serverCatalogFile(dir, s.name);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        writeFileAtomic(file, stableStringify({ server: s.name, tools }) + '\n');
        added.push(vscode.l10n.t('{0} tools from {1}', tools.length, s.name));
        d.log.info(`MCP server "${s.name}": ${tools.length} tools written to ${file}`);
      } catch (e) {
        if (ac.signal.aborted) break;
        d.log.warn(`MCP server "${s.name}": ${(e as Error).message}`);
        void vscode.window.showErrorMessage(vscode.l10n.t('GeoWeave: the tools of {0} were not added: {1}', s.name, (e as Error).message));
      }
    }
  });
  if (added.length) {
    await d.retrieval.rebuild();
    void vscode.window.showInformationMessage(vscode.l10n.t('GeoWeave: added {0}.', added.join(', ')));
  }
}

export function registerCommands(deps: CommandDeps): vscode.Disposable {
  return vscode.Disposable.from(...Object.entries(COMMANDS).map(([id, make]) => vscode.commands.registerCommand(id, make(deps))));
}

/** A tool as a quick pick shows it: id, then name and description in the display language
 *  (name_zh and description_zh in a Chinese editor, when the manifest has them). */
function toolPickItem(m: ToolManifest): { label: string; description: string; detail: string } {
  const lang = summaryLanguage(vscode.env.language, undefined);
  return { label: m.id, description: lang === 'zh' ? displayName(m, 'zh') : m.name ?? '', detail: toolDescription(m, lang) };
}

async function pickTool(d: CommandDeps, title: string): Promise<string | undefined> {
  const gw = await d.retrieval.get();
  const pick = await vscode.window.showQuickPick(
    gw.tools.map((t) => toolPickItem(t.manifest)),
    { title: `GeoWeave: ${title}`, matchOnDescription: true, matchOnDetail: true });
  return pick?.label;
}

/** A QuickPick that ranks manifests semantically as the user types (searchTools), debounced. */
async function findTool(d: CommandDeps): Promise<void> {
  const gw = await d.retrieval.get();
  const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { id: string }>();
  qp.title = vscode.l10n.t('GeoWeave: Find Tool');
  qp.placeholder = vscode.l10n.t('Describe what you want to do, e.g. "water surface from optical imagery"');
  // Items come ranked by the index and carry alwaysShow, so label filtering does not hide them.
  qp.matchOnDescription = true;
  const openButton = { iconPath: new vscode.ThemeIcon('go-to-file'), tooltip: vscode.l10n.t('Open manifest') };
  const all = gw.tools.map((t) => ({ id: t.manifest.id, ...toolPickItem(t.manifest), alwaysShow: true, buttons: [openButton] }));
  qp.items = all;
  let timer: NodeJS.Timeout | undefined;
  let generation = 0;
  qp.onDidChangeValue((text) => {
    clearTimeout(timer);
    // Busy from the keystroke on, not from the search: the list on screen ranks an earlier text
    // until the search for this one lands, and a search for an older text never clears it.
    const mine = ++generation;
    if (!text.trim()) {
      qp.items = all;
      qp.busy = false;
      return;
    }
    qp.busy = true;
    timer = setTimeout(async () => {
      try {
        const hits = await gw.searchTools(text, 20);
        if (mine !== generation) return;
        qp.items = hits.map((h) => {
          const m = gw.getTool(h.id);
          const item = m ? toolPickItem(m) : { label: h.id, description: h.name, detail: undefined };
          return { id: h.id, label: h.id, description: `${item.description} · ${h.score.toFixed(3)}`, detail: item.detail, alwaysShow: true, buttons: [openButton] };
        });
      } catch (e) {
        d.log.warn(`find tool: ${(e as Error).message}`);
      } finally {
        if (mine === generation) qp.busy = false;
      }
    }, 150);
  });
  const chosen = await new Promise<string | undefined>((resolve) => {
    qp.onDidAccept(() => resolve(qp.selectedItems[0]?.id));
    qp.onDidTriggerItemButton((e) => {
      void vscode.commands.executeCommand('geoweave.openManifest', e.item.id);
      resolve(undefined);
    });
    qp.onDidHide(() => resolve(undefined));
    qp.show();
  });
  clearTimeout(timer);
  qp.dispose();
  if (chosen) await d.assistant.insert(chosen, 'forward', false);
}

async function newManifest(d: CommandDeps): Promise<void> {
  const dir = d.retrieval.workspaceDir();
  if (!dir) {
    void vscode.window.showErrorMessage(vscode.l10n.t('GeoWeave: open a folder first; workspace manifests live in .geoweave/tools/.'));
    return;
  }
  const id = await vscode.window.showInputBox({
    title: vscode.l10n.t('GeoWeave: New Tool Manifest'), prompt: vscode.l10n.t('Tool id (lower case, digits, underscores)'), placeHolder: 'my_tool',
    validateInput: (v) => (/^[a-z][a-z0-9_]*$/.test(v) ? undefined : vscode.l10n.t('use lower case letters, digits and underscores, starting with a letter')),
  });
  if (!id) return;
  const file = path.join(dir, '.geoweave', 'tools', `${id}.json`);
  if (fs.existsSync(file)) {
    await vscode.window.showTextDocument(vscode.Uri.file(file));
    return;
  }
  const scaffold = {
    id,
    name: id.replace(/_/g, ' '),
    description: 'What the tool does, on which data, and what it produces (one or two sentences).',
    category: 'custom',
    tags: ['core function', 'indicator', 'scenario'],
    inputs: [{ name: 'image', type: 'raster', required: true, description: 'Input raster' }],
    outputs: [{ name: 'output', type: 'raster', description: 'Result raster' }],
    examples: ['a task an analyst would type that this tool serves'],
    runner: { type: 'process', command: 'gdal_translate', args: ['{image}', '{out}'] },
  };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomic(file, stableStringify(scaffold));
  // Index it now: a file watcher can miss a file written into a folder it has not seen yet.
  await d.retrieval.reload().catch((e) => d.log.error(`reload after New Tool Manifest failed: ${(e as Error).message}`));
  await vscode.window.showTextDocument(vscode.Uri.file(file));
}

/** Walkthrough step: writes the sample workspace and opens a sample notebook in it. */
async function createSample(d: CommandDeps): Promise<void> {
  const ws = d.retrieval.workspaceDir();
  let dir: string;
  if (ws) dir = path.join(ws, 'geoweave-sample');
  else {
    const picked = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, openLabel: vscode.l10n.t('Write the sample here') });
    if (!picked?.[0]) return;
    dir = picked[0].fsPath;
  }
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('GeoWeave: writing the sample workspace'), cancellable: true }, async (_p, token) => {
    const abort = new AbortController();
    token.onCancellationRequested(() => abort.abort());
    const { writeSampleWorkspace } = await import('../core/raster/sample/generate');
    const res = await writeSampleWorkspace(dir, { signal: abort.signal });
    d.log.info(`sample workspace: ${res.files.length} files in ${res.dir} (${res.ms} ms)`);
  });
  await createNotebookFile(dir, 'Assess vegetation health in the Sentinel-2 scene', config.workingMemorySize(), 'sample');
  await vscode.commands.executeCommand(`${PANEL_VIEW_ID}.focus`);
  if (!ws) {
    const open = await vscode.window.showInformationMessage(vscode.l10n.t('GeoWeave: sample written to {0}.', dir), vscode.l10n.t('Open Folder'));
    if (open) await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(dir));
  }
}

