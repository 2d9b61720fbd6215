/** The GeoWeave side panel: a webview view rendering the assistant's state (media/panel.js) and
 *  forwarding validated messages back to it. */
import * as vscode from 'vscode';
import * as crypto from 'crypto';
import type { HostToPanel, PanelStrings, PanelToHost } from '../shared/protocol';
import { panelStrings } from './panel-strings';
import { parsePanelMessage } from '../shared/protocol';
import type { Assistant } from './assistant';
import type { Log } from './log';

export const PANEL_VIEW_ID = 'geoweave.panel';

export class PanelProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view?: vscode.WebviewView;
  /** Until when a focus request waits for a panel that is still loading its script. */
  private focusPendingUntil = 0;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly extensionUri: vscode.Uri, private readonly assistant: Assistant, private readonly log: Log) {
    this.disposables.push(assistant.onDidChangeState((state) => this.post({ type: 'state', state })));
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    view.webview.options = { enableScripts: true, localResourceRoots: [media] };
    view.webview.html = this.html(view.webview, media);
    this.disposables.push(
      view.webview.onDidReceiveMessage((raw) => this.receive(raw)),
      view.onDidDispose(() => { this.view = undefined; }),
    );
  }

  private post(message: HostToPanel): Thenable<boolean> {
    return this.view?.webview.postMessage(message) ?? Promise.resolve(false);
  }

  /** Shows the panel and puts the keyboard focus in its task box. */
  async focusTask(): Promise<void> {
    this.focusPendingUntil = Date.now() + 10000;
    await vscode.commands.executeCommand(`${PANEL_VIEW_ID}.focus`);
    // A panel that was never shown (or was hidden) asks with 'ready' once its script runs.
    if (await this.post({ type: 'focusTask' })) this.focusPendingUntil = 0;
  }

  private receive(raw: unknown): void {
    const parsed = parsePanelMessage(raw);
    if (!parsed.ok) {
      this.log.warn(`panel sent an invalid message (${parsed.error}); ignored`);
      return;
    }
    void this.handle(parsed.message).catch((e) => this.log.error(`panel ${parsed.message.type}: ${(e as Error).message}`));
  }

  private async handle(m: PanelToHost): Promise<void> {
    switch (m.type) {
      case 'ready':
        await this.post({ type: 'strings', strings: panelStrings() });
        await this.post({ type: 'state', state: this.assistant.state() });
        if (Date.now() < this.focusPendingUntil) {
          this.focusPendingUntil = 0;
          await this.post({ type: 'focusTask' });
        }
        return;
      case 'describeTask': return this.assistant.describeTask(m.task);
      case 'insert': return this.assistant.insert(m.toolId, m.origin, m.run);
      case 'insertWorkflow': return this.assistant.insertWorkflow(m.workflowId);
      case 'dismiss': return this.assistant.dismiss(m.toolId, m.origin);
      case 'clearMemory': return this.assistant.clearMemory();
    }
  }

  private html(webview: vscode.Webview, media: vscode.Uri): string {
    const nonce = crypto.randomBytes(16).toString('base64');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(media, 'panel.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(media, 'panel.css'));
    const codicons = webview.asWebviewUri(vscode.Uri.joinPath(media, 'codicons', 'codicon.css'));
    const csp = `default-src 'none'; img-src ${webview.cspSource} data:; style-src ${webview.cspSource}; font-src ${webview.cspSource}; script-src 'nonce-${nonce}';`;
    const s: PanelStrings = panelStrings();
    const h = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    // Read by media/panel.js at startup (a JSON data block: not executed, so the CSP allows it).
    const table = JSON.stringify(s).replace(/</g, '\\u003c');
    return `<!DOCTYPE html>
<html lang="${h(vscode.env.language)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link href="${codicons}" rel="stylesheet">
<link href="${style}" rel="stylesheet">
<title>GeoWeave</title>
</head>
<body>
<main id="app" aria-live="polite">
  <section aria-labelledby="task-h">
    <h2 id="task-h">${h(s.task)}</h2>
    <label for="task" class="sr-only">${h(s.taskPlaceholder)}</label>
    <textarea id="task" rows="3" placeholder="${h(s.taskPlaceholder)}"></textarea>
    <div class="row"><button id="suggest" type="button" title="${h(s.suggestTitle)}"><span class="codicon codicon-search" aria-hidden="true"></span>${h(s.suggest)}</button><span id="index" class="muted"></span></div>
    <div id="status" role="status" class="muted"></div>
  </section>
  <section aria-labelledby="fwd-h"><h2 id="fwd-h">${h(s.candidates)}</h2><div id="forward"></div></section>
  <section aria-labelledby="wf-h" id="workflow-section" hidden><h2 id="wf-h">${h(s.workflowTemplate)}</h2><div id="workflow"></div></section>
  <section aria-labelledby="comp-h"><h2 id="comp-h">${h(s.nextSteps)}</h2><div id="complementary"></div></section>
  <section aria-labelledby="mem-h">
    <div class="row"><h2 id="mem-h">${h(s.memory)}</h2><button id="clear" type="button" class="secondary" title="${h(s.clearTitle)}"><span class="codicon codicon-clear-all" aria-hidden="true"></span>${h(s.clear)}</button></div>
    <ol id="memory"></ol>
  </section>
</main>
<script type="application/json" id="gw-strings">${table}</script>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}
