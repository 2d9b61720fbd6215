// Notebook renderer for application/vnd.geoweave.result+json: tool id, output files with their paths,
// the arguments of the run and the raw JSON collapsed. The summary and the statistics table are in the
// markdown output above it, so the card does not repeat them. The result JSON comes from the notebook
// file, so every string goes into the DOM through textContent, never as markup.
// Bundled by webpack (second config) into dist/result-renderer.js as an ES module.
import { resultCard } from '../../core/notebook/result-card';

const STYLE_ID = 'geoweave-result-style';
const CSS = `
.gw-result { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size, 13px); color: var(--vscode-foreground); line-height: 1.4; padding: 2px 0 4px; }
.gw-result .gw-head { display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; }
.gw-result .gw-tool { font-family: var(--vscode-editor-font-family); font-weight: 600; color: var(--vscode-textLink-foreground); }
.gw-result .gw-args { margin: 2px 0 0; font-family: var(--vscode-editor-font-family); font-size: 0.92em; color: var(--vscode-descriptionForeground); word-break: break-word; }
.gw-result .gw-outputs { list-style: none; margin: 4px 0 0; padding: 0; }
.gw-result .gw-outputs li { display: flex; gap: 6px; align-items: baseline; flex-wrap: wrap; }
.gw-result .gw-name { font-family: var(--vscode-editor-font-family); color: var(--vscode-textPreformat-foreground); }
.gw-result .gw-arrow, .gw-result .gw-muted { color: var(--vscode-descriptionForeground); }
.gw-result .gw-path { font-family: var(--vscode-editor-font-family); font-size: 0.92em; color: var(--vscode-descriptionForeground); word-break: break-all; }
.gw-result details { margin-top: 4px; }
.gw-result summary { cursor: pointer; color: var(--vscode-descriptionForeground); user-select: none; }
.gw-result summary:focus-visible { outline: 1px solid var(--vscode-focusBorder); }
.gw-result pre { margin: 4px 0 0; padding: 4px 6px; max-height: 360px; overflow: auto; font-family: var(--vscode-editor-font-family); font-size: 0.92em; background: var(--vscode-textCodeBlock-background, rgba(128,128,128,.1)); white-space: pre; }
`;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function ensureStyle(element) {
  const root = element.getRootNode();
  const host = root instanceof ShadowRoot ? root : document.head;
  if (host.querySelector && host.querySelector(`#${STYLE_ID}`)) return;
  const style = el('style');
  style.id = STYLE_ID;
  style.textContent = CSS;
  host.appendChild(style);
}

/** The compact view of one result (`data` is the parsed JSON); exported for the renderer only. */
export function renderCard(data) {
  const card = resultCard(data);
  const root = el('div', 'gw-result');
  const head = el('div', 'gw-head');
  head.appendChild(el('span', 'gw-tool', card.tool));
  head.appendChild(el('span', 'gw-muted', `${card.outputs.length} output${card.outputs.length === 1 ? '' : 's'}`));
  root.appendChild(head);
  if (card.outputs.length) {
    const list = el('ul', 'gw-outputs');
    for (const o of card.outputs) {
      const li = el('li');
      li.appendChild(el('span', 'gw-name', o.name));
      li.appendChild(el('span', 'gw-arrow', '→'));
      const p = el('span', 'gw-path', o.path);
      p.title = o.type ? `${o.type}: ${o.path}` : o.path;
      li.appendChild(p);
      list.appendChild(li);
    }
    root.appendChild(list);
  }
  if (card.args) root.appendChild(el('div', 'gw-args', `arguments: ${card.args}`));
  const details = el('details', 'gw-json');
  details.appendChild(el('summary', undefined, 'JSON result'));
  details.appendChild(el('pre', undefined, JSON.stringify(data, null, 2)));
  root.appendChild(details);
  return root;
}

export function activate() {
  return {
    renderOutputItem(outputItem, element) {
      let data;
      try {
        data = outputItem.json();
      } catch (e) {
        element.replaceChildren(el('div', 'gw-result', `GeoWeave: the result is not valid JSON (${e && e.message ? e.message : e}); use "Change Presentation" to see it raw.`));
        return;
      }
      ensureStyle(element);
      element.replaceChildren(renderCard(data));
    },
    disposeOutputItem() {
      // Nothing to release: the view is plain DOM that VS Code removes with the output.
    },
  };
}
