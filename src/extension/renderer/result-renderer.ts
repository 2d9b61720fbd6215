// Notebook renderer for application/vnd.geoweave.result+json (src/shared/result-protocol.ts): the
// result of a tool cell (map, key statistics, tables, charts, the card with the raw JSON collapsed),
// a running cell's progress, or a stopped cell. The JSON may come from a notebook file, so every
// string goes into the DOM as text. Bundled by webpack into dist/result-renderer.js (ES module).
import type { HostMessage, OutputView, ProgressView, ResultView, StoppedView, TableView } from '../../shared/result-protocol';
import { fill, resultStrings, term, RESULT_STRINGS, type ResultStrings } from '../../shared/result-strings';
import { RESULT_VIEW_VERSION } from '../../shared/result-protocol';
import { el, formatNumber } from './dom';
import { ensureStyle } from './style';
import { renderTable } from './tables';
import { renderHistogram, renderSeries } from './charts';
import { renderMap, type MapHandle, type Request } from './map-view';

/** What VS Code passes to activate() (the parts used here). */
interface RendererContext {
  postMessage?(message: unknown): void;
  onDidReceiveMessage?(listener: (message: unknown) => void): { dispose(): void };
}
interface OutputItem { id: string; json(): unknown }

const REQUEST_MS = 30_000;

function requester(ctx: RendererContext): Request | undefined {
  if (!ctx.postMessage || !ctx.onDidReceiveMessage) return undefined;
  let next = 1;
  const pending = new Map<number, { resolve(m: HostMessage): void; reject(e: Error): void; timer: ReturnType<typeof setTimeout> }>();
  ctx.onDidReceiveMessage((raw) => {
    const m = raw as HostMessage;
    const p = m && typeof m === 'object' ? pending.get(m.id) : undefined;
    if (!p) return;
    pending.delete(m.id);
    clearTimeout(p.timer);
    if (m.type === 'error') p.reject(new Error(m.message)); else p.resolve(m);
  });
  return ((msg) => new Promise((resolve, reject) => {
    const id = next++;
    const timer = setTimeout(() => { pending.delete(id); reject(new Error(RESULT_STRINGS.en.noAnswer)); }, REQUEST_MS);
    pending.set(id, { resolve: resolve as (m: HostMessage) => void, reject, timer });
    ctx.postMessage!({ ...msg, id });
  })) as Request;
}

function renderProgress(v: ProgressView): HTMLElement {
  const root = el('div', 'gw-result gw-running');
  const bar = el('progress');
  bar.max = 1;
  bar.value = Math.max(0, Math.min(1, Number(v.fraction) || 0));
  const pct = `${Math.round(bar.value * 100)}%`;
  root.append(el('span', 'gw-tool', String(v.tool)), document.createTextNode(' '), bar, el('span', 'gw-pct', ` ${pct}`));
  if (v.stage) root.appendChild(el('span', 'gw-muted', ` · ${String(v.stage)}`));
  root.dataset.fraction = String(bar.value);
  return root;
}

function renderStopped(v: StoppedView): HTMLElement {
  const root = el('div', 'gw-result gw-stopped');
  root.append(el('span', 'gw-muted', '⏹ '), el('span', undefined, String(v.message)));
  return root;
}

function renderCard(v: ResultView): HTMLElement {
  const S = resultStrings(v.lang);
  const card = el('div', 'gw-card');
  const outputs = Array.isArray(v.outputs) ? v.outputs : [];
  if (outputs.length) {
    const list = el('ul', 'gw-outputs');
    for (const o of outputs) {
      const li = el('li');
      li.append(el('span', 'gw-name', String(o.name)), el('span', 'gw-arrow', '→'));
      const p = el('span', 'gw-path', String(o.path));
      p.title = `${String(o.type)}: ${String(o.path)}`;
      li.appendChild(p);
      list.appendChild(li);
    }
    card.appendChild(list);
  }
  if (v.args) card.appendChild(el('div', 'gw-args', fill(S.arguments, String(v.args))));
  if (typeof v.provenance === 'string' && v.provenance) {
    const p = el('div', 'gw-provenance gw-muted', fill(S.provenance, v.provenance));
    p.title = v.provenance;
    card.appendChild(p);
  }
  const details = el('details', 'gw-json');
  details.appendChild(el('summary', undefined, S.jsonResult));
  details.appendChild(el('pre', undefined, JSON.stringify(v.raw ?? {}, null, 2)));
  card.appendChild(details);
  return card;
}

/** Key numbers and the map (or the saved preview) of a result, or of one batch item. */
function renderDetail(root: HTMLElement, tool: string, keyStats: unknown, map: ResultView['map'], preview: string | undefined, request: Request | undefined, handles: MapHandle[], S: ResultStrings, lang: ResultView['lang']): void {
  const v = { tool, map, preview };
  const kpis = (Array.isArray(keyStats) ? keyStats : []) as ResultView['keyStats'];
  if (kpis.length) {
    const strip = el('div', 'gw-kpis');
    for (const k of kpis) {
      const box = el('div', 'gw-kpi');
      const value = el('span', 'gw-value', typeof k.value === 'number' ? formatNumber(k.value, k.unit === '%' ? '%' : undefined) : String(k.value));
      if (k.unit && k.unit !== '%') value.appendChild(el('span', 'gw-unit', String(k.unit)));
      box.append(el('span', 'gw-label', term(String(k.label), lang)), value);
      strip.appendChild(box);
    }
    root.appendChild(strip);
  }

  if (v.map) {
    const mapBox = el('div', 'gw-mapholder');
    root.appendChild(mapBox);
    // The map's height is kept from the start, so the notebook does not re-lay out when it arrives.
    const fallback = (why: string) => {
      mapBox.classList.add('gw-nomap');
      mapBox.replaceChildren();
      if (v.preview && /^data:image\/png;base64,/.test(v.preview)) {
        const p = el('div', 'gw-preview');
        const img = el('img');
        img.src = v.preview;
        img.alt = fill(S.previewOf, String(v.tool));
        p.appendChild(img);
        mapBox.appendChild(p);
      }
      mapBox.appendChild(el('div', 'gw-note', why));
    };
    if (!request) fallback(S.mapNeedsExtension);
    else {
      renderMap(mapBox, v.map, request, S).then((h) => handles.push(h), (e: Error) => fallback(fill(S.noMap, e.message)));
    }
  } else if (v.preview) {
    const p = el('div', 'gw-preview');
    const img = el('img');
    img.src = v.preview;
    p.appendChild(img);
    root.appendChild(p);
  }

}

/** The result view; the map is drawn asynchronously into its box (or the saved preview instead). */
export function renderResult(v: ResultView, request: Request | undefined, handles: MapHandle[]): HTMLElement {
  const S = resultStrings(v.lang);
  const root = el('div', 'gw-result');
  root.lang = v.lang === 'zh' ? 'zh-CN' : 'en';
  const head = el('div', 'gw-head');
  // The tool's name in the card's language (name_zh) when the host gave one, before its id: the id
  // (.gw-tool) stays as the cell writes it, and is what finds a tool's card.
  const toolName = typeof v.toolName === 'string' && v.toolName ? v.toolName : String(v.tool);
  if (toolName !== String(v.tool)) head.appendChild(el('span', 'gw-tool-name', toolName));
  head.appendChild(el('span', 'gw-tool', String(v.tool)));
  const outputs = Array.isArray(v.outputs) ? v.outputs : [];
  // A run that wrote nothing (raster_info, statistics, the raster viewer) says nothing about outputs.
  if (outputs.length) head.appendChild(el('span', 'gw-muted', outputs.length === 1 ? S.output : fill(S.outputs, outputs.length)));
  root.appendChild(head);
  root.appendChild(el('div', 'gw-summary', `${toolName}: ${String(v.summary)}`));
  if (v.restored) root.appendChild(el('div', 'gw-note', fill(S.savedAt, String(v.restored))));
  if (v.version > RESULT_VIEW_VERSION) { root.appendChild(el('div', 'gw-note', S.newer)); return root; }

  // A batch: which item the map and numbers show, and a picker for the others.
  const batch = v.batch && typeof v.batch === 'object' && Array.isArray(v.batch.details) ? v.batch : undefined;
  const detail = el('div', 'gw-detail');
  // A batch item's own tables go with its map and numbers; a single run's tables follow below.
  const itemTables = el('div', 'gw-item-tables');
  const showDetail = (keyStats: unknown, map: ResultView['map'], preview: string | undefined, histogram = v.histogram, series = v.series, tables: unknown[] = []) => {
    handles.splice(0).forEach((h) => h.dispose());
    detail.replaceChildren();
    renderDetail(detail, String(v.tool), keyStats, map, preview, request, handles, S, v.lang);
    const charts = el('div', 'gw-charts');
    if (histogram && Array.isArray(histogram.counts)) charts.appendChild(renderHistogram(histogram, S, v.lang));
    if (series && Array.isArray(series.y)) charts.appendChild(renderSeries(series, v.lang));
    if (charts.childElementCount) detail.appendChild(charts);
    itemTables.replaceChildren(...(tables as TableView[]).filter((t) => t && Array.isArray(t.rows) && Array.isArray(t.columns)).map((t) => renderTable(t, S, v.lang)));
  };
  let card = renderCard(v);
  if (batch) {
    const bar = el('div', 'gw-batch');
    bar.appendChild(el('span', 'gw-muted', fill(S.batchOf, Number(batch.total) || 0, `${String(batch.args)}: ${String(batch.source)}`) + (batch.failed ? fill(S.batchFailed, Number(batch.failed)) : '') + S.showing));
    const pick = el('select', 'gw-batch-pick');
    pick.setAttribute('aria-label', S.batchPick);
    batch.details.forEach((d, i) => {
      const o = el('option', undefined, `${String(d.name)}${d.ok ? '' : S.itemFailed}`);
      o.value = String(i);
      if (i === batch.shown) o.selected = true;
      pick.appendChild(o);
    });
    const itemSummary = el('div', 'gw-muted gw-item-summary');
    const choose = (i: number) => {
      const d = batch.details[i];
      if (!d) return;
      itemSummary.textContent = `${String(d.name)} (${String(d.input)}): ${String(d.summary)}`;
      // The saved preview belongs to the first item shown; so do the top-level tables of a view
      // saved before items carried their own.
      const tables = Array.isArray(d.tables) ? d.tables : i === batch.shown && Array.isArray(v.tables) ? v.tables.slice(1) : [];
      showDetail(d.keyStats, d.map, i === batch.shown ? v.preview : undefined, d.histogram, d.series, tables);
      // The card's output files are the item's; the provenance line is the first item's only.
      const next = renderCard({ ...v, outputs: Array.isArray(d.outputs) ? d.outputs : [], ...(i === batch.shown ? {} : { provenance: undefined }) });
      card.replaceWith(next);
      card = next;
    };
    pick.addEventListener('change', () => choose(Number(pick.value)));
    bar.appendChild(pick);
    if (Number(batch.total) > batch.details.length) bar.appendChild(el('span', 'gw-muted', fill(S.batchFirst, batch.details.length)));
    // The table of items first (it is the batch's result); then the item shown in full.
    const first = Array.isArray(v.tables) ? v.tables[0] : undefined;
    if (first && Array.isArray(first.rows) && Array.isArray(first.columns)) root.appendChild(renderTable(first, S, v.lang));
    root.append(bar, itemSummary, detail, itemTables);
    choose(batch.shown);
  } else {
    root.appendChild(detail);
    showDetail(v.keyStats, v.map, v.preview);
    for (const t of Array.isArray(v.tables) ? v.tables : []) if (Array.isArray(t.rows) && Array.isArray(t.columns)) root.appendChild(renderTable(t, S, v.lang));
  }

  // A batch's card was already swapped for the item shown; it goes last either way.
  root.appendChild(card);
  return root;
}

export function activate(ctx: RendererContext) {
  const request = requester(ctx);
  const maps = new Map<string, MapHandle[]>();
  const release = (id: string) => { maps.get(id)?.forEach((h) => h.dispose()); maps.delete(id); };
  return {
    renderOutputItem(item: OutputItem, element: HTMLElement) {
      release(item.id);
      let data: OutputView;
      try {
        data = item.json() as OutputView;
      } catch (e) {
        element.replaceChildren(el('div', 'gw-result', `GeoWeave: the result is not valid JSON (${(e as Error).message}); use "Change Presentation" to see it raw.`));
        return;
      }
      ensureStyle(element);
      if (!data || typeof data !== 'object') { element.replaceChildren(el('div', 'gw-result', 'GeoWeave: empty result')); return; }
      if (data.view === 'progress') { element.replaceChildren(renderProgress(data)); return; }
      if (data.view === 'stopped') { element.replaceChildren(renderStopped(data)); return; }
      const handles: MapHandle[] = [];
      maps.set(item.id, handles);
      element.replaceChildren(renderResult(data as ResultView, request, handles));
    },
    disposeOutputItem(id?: string) {
      if (id) release(id);
      else { for (const k of [...maps.keys()]) release(k); }
    },
  };
}
