/** The result view of a batch run: a table with one row per input (its key statistics and status),
 *  then the map, numbers, tables and card of one item (the first that succeeded), with up to
 *  BATCH_DETAILS items the renderer can switch to. Pure data (src/shared/result-protocol.ts). */
import type { BatchDetail, ResultView, TableView } from '../../shared/result-protocol';
import type { BatchItemResult, BatchPlan } from '../notebook/batch';
import { batchSummary } from '../notebook/batch';
import { resultView, type ViewContext } from './view-model';
import { argSummary } from '../notebook/result-view';
import { localizeSummary, type SummaryLanguage } from './summary-language';
import type { ToolRunResult } from '../raster/types';

/** Items whose map and numbers travel in the view (the table has every item). */
export const BATCH_DETAILS = 20;

/** An item's tables, titled with its name ("b_post: Classes"). */
function ownTables(name: string, v: ResultView | undefined): TableView[] {
  return (v?.tables ?? []).map((t) => ({ ...t, title: `${name}: ${t.title}` }));
}

/**
 * `first` is the full view of the first item that succeeded (built by the caller, with its preview);
 * the other items' views are built here without previews.
 */
export function batchResultView(tool: string, plan: Pick<BatchPlan, 'args' | 'source'>, items: BatchItemResult[], first: ResultView | undefined, ctx: ViewContext = {}, lang: SummaryLanguage = 'en'): ResultView {
  // In Chinese each item's summary is its Chinese one (as a single run's), with the same numbers.
  const summaryOf = (r: ToolRunResult) => (lang === 'en' ? r : { ...r, summary: localizeSummary(r, lang).text });
  const views = items.map((r, i) => (r.result ? (first && i === items.findIndex((x) => x.result) ? { ...first, summary: summaryOf(r.result).summary } : resultView(summaryOf(r.result), r.args, ctx)) : undefined));
  const okViews = views.filter((v): v is ResultView => !!v);
  // Columns: the first one or two key statistics of the first item that has them.
  const statLabels = (okViews.find((v) => v.keyStats.length)?.keyStats ?? []).slice(0, 2).map((k) => ({ label: k.label, unit: typeof k.unit === 'string' ? k.unit : undefined }));
  const table: TableView = {
    title: lang === 'zh' ? `批处理：${items.length} 个输入（${plan.args.join(', ')}: ${plan.source}）` : `Batch: ${items.length} input${items.length === 1 ? '' : 's'} (${plan.args.join(', ')}: ${plan.source})`,
    columns: [
      { key: 'item', label: 'Item', numeric: false },
      { key: 'input', label: 'Input', numeric: false },
      ...statLabels.map((s) => ({ key: s.label.toLowerCase(), label: s.label, numeric: true, ...(s.unit ? { unit: s.unit } : {}) })),
      { key: 'status', label: 'Status', numeric: false },
    ],
    rows: items.map((r, i) => {
      const v = views[i];
      const stats = statLabels.map((s) => { const k = v?.keyStats.find((x) => x.label === s.label); return typeof k?.value === 'number' ? k.value : null; });
      return [r.name, r.input, ...stats, r.result ? (lang === 'zh' ? '成功' : 'ok') : `${lang === 'zh' ? '失败' : 'failed'}: ${r.error ?? ''}`];
    }),
    visible: 10,
  };
  const details: BatchDetail[] = items.slice(0, BATCH_DETAILS).map((r, i) => {
    const v = views[i];
    return {
      name: r.name, input: r.input, ok: !!r.result, summary: v ? v.summary : `${lang === 'zh' ? '失败' : 'failed'}: ${r.error ?? ''}`, keyStats: v?.keyStats ?? [],
      ...(v?.map ? { map: v.map } : {}), ...(v?.histogram ? { histogram: v.histogram } : {}), ...(v?.series ? { series: v.series } : {}),
      tables: ownTables(r.name, v), outputs: v?.outputs ?? [],
    };
  });
  const shownIndex = Math.max(0, details.findIndex((d) => d.ok));
  const base: ResultView = first ?? okViews[0] ?? { view: 'result', version: 1, tool, summary: '', keyStats: [], tables: [], outputs: [], args: '', raw: {} };
  const failed = items.filter((r) => !r.result).length;
  return {
    ...base,
    // The shown item's own summary is beside its map; the card's summary is the batch's.
    summary: batchSummary(tool, plan, items, false, lang),
    // The arguments as given: the batched one by its glob, list or cell, not the shown item's file.
    args: Object.entries(items.find((r) => r.result)?.args ?? {}).map(([k, x]) => (plan.args.includes(k) ? `${k}=${plan.source}` : argSummary({ [k]: x }))).join(', '),
    // The shown item's own tables say whose they are (the renderer swaps them with the item picked).
    tables: [table, ...ownTables(items.find((r) => r.result)?.name ?? '', base)],
    raw: { batch: { args: plan.args, source: plan.source, items: items.map((r) => ({ item: r.name, input: r.input, ok: !!r.result, ...(r.result ? { summary: r.result.summary } : { error: r.error }) })) }, shown: base.raw },
    batch: { args: plan.args.join(', '), source: plan.source, total: items.length, failed, details, shown: shownIndex },
    ...(lang === 'zh' ? { lang } : {}),
  };
}
