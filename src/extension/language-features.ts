/** IntelliSense for tool cells: the pure logic in core/notebook/language.ts, positioned for VS Code. */
import * as vscode from 'vscode';
import type { LanguageCatalog, CompletionKind } from '../core/notebook/language';
import { completionsAt, diagnose, hoverAt } from '../core/notebook/language';
import { BAND_ROLES, SENSOR_PRESETS } from '../core/notebook/vocabulary';
import { parseToolCell, cellName } from '../core/notebook/tool-cell';
import { runFromMetadata } from '../core/notebook/session';
import type { RetrievalService } from './retrieval-service';
import type { WorkspaceData } from './workspace-data';
import { rasterEngine } from './raster-service';
import { TOOL_LANGUAGE } from './notebook-serializer';
import { shownOutputs } from '../core/notebook/batch';
import { summaryLanguage } from '../core/results/summary-language';

const KINDS: Record<CompletionKind, vscode.CompletionItemKind> = {
  tool: vscode.CompletionItemKind.Function,
  argument: vscode.CompletionItemKind.Property,
  value: vscode.CompletionItemKind.Value,
  file: vscode.CompletionItemKind.File,
  reference: vscode.CompletionItemKind.Reference,
  role: vscode.CompletionItemKind.EnumMember,
  sensor: vscode.CompletionItemKind.Constant,
};

export class ToolCellLanguage implements vscode.Disposable {
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('geoweave-cells');
  private readonly disposables: vscode.Disposable[] = [];
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly retrieval: RetrievalService, private readonly data: WorkspaceData) {
    const selector: vscode.DocumentSelector = { language: TOOL_LANGUAGE };
    this.disposables.push(
      this.diagnostics,
      vscode.languages.registerCompletionItemProvider(selector, { provideCompletionItems: (doc, pos) => this.complete(doc, pos) }, ':', ' ', '$', '/'),
      vscode.languages.registerHoverProvider(selector, { provideHover: (doc, pos) => this.hover(doc, pos) }),
      vscode.languages.registerCodeActionsProvider(selector, { provideCodeActions: (doc, range, ctx) => this.fixes(doc, range, ctx) },
        { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }),
      vscode.workspace.onDidOpenTextDocument((d) => this.schedule(d)),
      vscode.workspace.onDidChangeTextDocument((e) => this.schedule(e.document)),
      vscode.workspace.onDidCloseTextDocument((d) => this.diagnostics.delete(d.uri)),
      retrieval.onDidChange(() => this.refreshAll()),
    );
    this.refreshAll();
  }

  /** The catalog as seen from one cell: tools, engine specs, files and the cells above it. */
  private async catalog(doc: vscode.TextDocument): Promise<LanguageCatalog> {
    const gw = await this.retrieval.get();
    const engine = await rasterEngine();
    const builtin = new Set(engine.listBuiltinTools().map((s) => s.id));
    const lang = summaryLanguage(vscode.env.language, undefined);
    const earlier: LanguageCatalog['earlier'] = [];
    const nb = vscode.workspace.notebookDocuments.find((n) => n.getCells().some((c) => c.document === doc));
    if (nb) {
      for (const cell of nb.getCells()) {
        if (cell.document === doc) break;
        if (cell.kind !== vscode.NotebookCellKind.Code) continue;
        const { call } = parseToolCell(cell.document.getText());
        if (!call) continue;
        const run = runFromMetadata(cell.metadata);
        const outputs = run
          ? Object.entries(shownOutputs(run)).map(([name, o]) => ({ name, type: o.type, description: run.batch ? vscode.l10n.t('per item, e.g. {0}', o.path) : o.path }))
          // Before a run: the unit, else what the output is, in the editor's language (output description_zh).
          : (gw.getTool(call.tool)?.outputs ?? []).map((o) => ({ name: o.name, type: o.type, description: o.unit ?? (lang === 'zh' ? o.description_zh : undefined) ?? o.description }));
        earlier.push({ name: cellName(call), tool: call.tool, outputs });
      }
    }
    // The files the cell names, described: a scene without band descriptions gets the lines to add.
    const named = parseToolCell(doc.getText()).layout.args.map((a) => a.value).filter((v): v is string => typeof v === 'string');
    return {
      tools: gw.tools.map((t) => t.manifest),
      spec: (id) => (builtin.has(id) ? engine.getToolSpec(id)?.params : undefined),
      bandRoles: [...BAND_ROLES],
      sensors: [...SENSOR_PRESETS],
      files: await this.data.listFiles(),
      earlier,
      data: await this.data.describeFiles(named),
      lang,
    };
  }

  private async complete(doc: vscode.TextDocument, pos: vscode.Position): Promise<vscode.CompletionItem[]> {
    const catalog = await this.catalog(doc);
    return completionsAt(doc.getText(), pos.line, pos.character, catalog).map((e, i) => {
      const item = new vscode.CompletionItem(e.label, KINDS[e.kind]);
      item.detail = e.detail;
      if (e.documentation) item.documentation = new vscode.MarkdownString(e.documentation);
      item.insertText = e.insertText;
      item.range = new vscode.Range(e.range.line, e.range.start, e.range.line, Math.max(e.range.end, pos.character));
      item.sortText = String(i).padStart(4, '0');
      if (e.kind === 'argument') item.command = { command: 'editor.action.triggerSuggest', title: 'values' };
      return item;
    });
  }

  private async hover(doc: vscode.TextDocument, pos: vscode.Position): Promise<vscode.Hover | undefined> {
    const h = hoverAt(doc.getText(), pos.line, pos.character, await this.catalog(doc));
    return h ? new vscode.Hover(new vscode.MarkdownString(h.markdown), new vscode.Range(h.range.line, h.range.start, h.range.line, h.range.end)) : undefined;
  }

  /** Quick fixes (Ctrl+.) for the problems under the cursor that know their fix. */
  private async fixes(doc: vscode.TextDocument, range: vscode.Range, ctx: vscode.CodeActionContext): Promise<vscode.CodeAction[]> {
    const problems = diagnose(doc.getText(), await this.catalog(doc));
    const actions: vscode.CodeAction[] = [];
    for (const p of problems) {
      if (!p.fix) continue;
      const at = new vscode.Range(p.line, p.start, p.line, Math.max(p.end, p.start + 1));
      if (!at.intersection(range) && !(range.start.line === p.line)) continue;
      const action = new vscode.CodeAction(p.fix.title, vscode.CodeActionKind.QuickFix);
      action.edit = new vscode.WorkspaceEdit();
      for (const e of p.fix.edits) action.edit.replace(doc.uri, new vscode.Range(e.line, e.start, e.line, e.end), e.text);
      action.diagnostics = ctx.diagnostics.filter((d) => d.message === p.message);
      action.isPreferred = true;
      actions.push(action);
    }
    return actions;
  }

  private schedule(doc: vscode.TextDocument): void {
    if (doc.languageId !== TOOL_LANGUAGE) return;
    const key = doc.uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(key, setTimeout(() => {
      this.timers.delete(key);
      void this.check(doc);
    }, 250));
  }

  private refreshAll(): void {
    if (!this.retrieval.peek()) return;
    for (const doc of vscode.workspace.textDocuments) if (doc.languageId === TOOL_LANGUAGE) void this.check(doc);
  }

  private async check(doc: vscode.TextDocument): Promise<void> {
    if (doc.isClosed) return;
    const problems = diagnose(doc.getText(), await this.catalog(doc));
    this.diagnostics.set(doc.uri, problems.map((p) => {
      const d = new vscode.Diagnostic(new vscode.Range(p.line, p.start, p.line, Math.max(p.end, p.start + 1)), p.message,
        p.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
      d.source = 'GeoWeave';
      return d;
    }));
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.disposables.forEach((d) => d.dispose());
  }
}
