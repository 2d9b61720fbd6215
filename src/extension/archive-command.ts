/**
 * "GeoWeave: Extract Archive": a downloaded `.SAFE.zip`, Landsat `.tar` or zipped Shapefile
 * extracted beside itself (core/data/archive), from the Explorer's context menu, the command
 * palette (a pick of the workspace's archives that hold data) or the offer readiness makes when
 * a tool's data is only inside one. Cancellable; a cancelled or failed extraction leaves nothing.
 */
import * as vscode from 'vscode';
import * as path from 'path';
import type { Log } from './log';
import type { WorkspaceData } from './workspace-data';
import { ARCHIVE_FILE, describeArchive, extractArchive } from '../core/data/archive/archive';

export async function extractArchiveCommand(data: WorkspaceData, log: Log, target?: unknown): Promise<void> {
  const file = target instanceof vscode.Uri ? target.fsPath : typeof target === 'string' ? path.resolve(data.dir() ?? '.', target) : await pickArchive(data);
  if (!file) return;
  if (!ARCHIVE_FILE.test(file)) {
    void vscode.window.showErrorMessage(vscode.l10n.t('GeoWeave: {0} is not an archive GeoWeave extracts (.zip, .tar, .tar.gz, .tgz).', path.basename(file)));
    return;
  }
  const name = path.basename(file);
  try {
    const s = await describeArchive(file);
    const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('GeoWeave: extracting {0}', name), cancellable: true }, async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      let last = 0;
      return extractArchive(file, {
        signal: abort.signal,
        onProgress: (done, total) => {
          const pct = total ? (100 * done) / total : 0;
          if (pct - last >= 1) { progress.report({ increment: pct - last, message: `${Math.floor(pct)}%` }); last = pct; }
        },
      });
    });
    data.refresh();
    log.info(`extracted ${file} (${s.holds}) to ${r.target}: ${r.files} files, ${r.bytes} bytes${r.skipped.length ? `; skipped ${r.skipped.join('; ')}` : ''}`);
    const reveal = vscode.l10n.t('Reveal in Explorer');
    const picked = await vscode.window.showInformationMessage(vscode.l10n.t('GeoWeave: {0} extracted to {1} ({2} files).', name, path.basename(r.target), r.files) + (r.skipped.length ? ' ' + vscode.l10n.t('{0} entries skipped (see the log).', r.skipped.length) : ''), reveal);
    if (picked === reveal) await vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(r.target));
  } catch (e) {
    log.warn((e as Error).message);
    void vscode.window.showErrorMessage(`GeoWeave: ${(e as Error).message}`);
  }
}

async function pickArchive(data: WorkspaceData): Promise<string | undefined> {
  const dir = data.dir();
  const archives = await data.archives();
  if (!dir || !archives.length) {
    void vscode.window.showInformationMessage(vscode.l10n.t('GeoWeave: no archive holding data that is not extracted yet in this workspace.'));
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(archives.map((a) => ({ label: a.path, detail: a.holds })), { title: vscode.l10n.t('GeoWeave: Extract Archive') });
  return picked && path.resolve(dir, picked.label);
}
