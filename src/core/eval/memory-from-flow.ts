/** The working memory a flow of tool ids leaves, as evaluation and fitting replay it. */
import type { GeoWeave } from '../geoweave';
import type { MemoryState } from '../memory/types';
import { outputsFromManifest } from '../retrieval/backward';

/** Memory after running `flow` (outputs as the manifests declare them; no result summaries). */
export function memoryFromFlow(gw: Pick<GeoWeave, 'getTool'>, task: string, flow: string[], resultSummary = ''): MemoryState {
  return {
    task,
    windowSize: 5,
    trace: flow.map((tool, i) => ({
      tool,
      argSummary: '',
      resultSummary: i === flow.length - 1 ? resultSummary : '',
      outputs: outputsFromManifest(gw.getTool(tool)).map((o) => ({ ...o, path: `${tool}.${o.name}` })),
      ok: true,
      time: new Date(0).toISOString(),
    })),
  };
}
