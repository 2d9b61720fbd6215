/** The tool graph: declared prerequisites/downstream/related plus the order of workflow steps. */
import type { ToolManifest, WorkflowTemplate } from './types';

export interface GraphEdge { to: string; weight: number; why: 'downstream' | 'workflow' | 'related' | 'prerequisite' }

export class ToolGraph {
  private readonly next = new Map<string, Map<string, GraphEdge>>();
  private readonly prev = new Map<string, Map<string, GraphEdge>>();
  private readonly rel = new Map<string, Set<string>>();

  constructor(tools: ToolManifest[], workflows: WorkflowTemplate[] = []) {
    const ids = new Set(tools.map((t) => t.id));
    const link = (a: string, b: string, weight: number, why: GraphEdge['why']) => {
      if (a === b || !ids.has(a) || !ids.has(b)) return;
      const out = this.next.get(a) ?? new Map<string, GraphEdge>();
      const cur = out.get(b);
      if (!cur || cur.weight < weight) out.set(b, { to: b, weight, why });
      this.next.set(a, out);
      const inn = this.prev.get(b) ?? new Map<string, GraphEdge>();
      const c2 = inn.get(a);
      if (!c2 || c2.weight < weight) inn.set(a, { to: a, weight, why });
      this.prev.set(b, inn);
    };
    for (const t of tools) {
      for (const d of t.downstream ?? []) link(t.id, d, 0.8, 'downstream');
      for (const p of t.prerequisites ?? []) link(p, t.id, 0.6, 'prerequisite');
      for (const r of t.related ?? []) {
        if (!ids.has(r) || r === t.id) continue;
        (this.rel.get(t.id) ?? this.rel.set(t.id, new Set()).get(t.id)!).add(r);
        (this.rel.get(r) ?? this.rel.set(r, new Set()).get(r)!).add(t.id);
      }
    }
    for (const w of workflows) {
      for (let i = 0; i + 1 < w.steps.length; i++) link(w.steps[i], w.steps[i + 1], 1, 'workflow');
    }
  }

  /** Tools that usually follow `id`, strongest first. */
  downstream(id: string): GraphEdge[] {
    return [...(this.next.get(id)?.values() ?? [])].sort((a, b) => b.weight - a.weight || a.to.localeCompare(b.to));
  }

  upstream(id: string): GraphEdge[] {
    return [...(this.prev.get(id)?.values() ?? [])].sort((a, b) => b.weight - a.weight || a.to.localeCompare(b.to));
  }

  related(id: string): string[] {
    return [...(this.rel.get(id) ?? [])].sort();
  }

  /** Weight of the edge a → b (0 when none). */
  edge(a: string, b: string): number {
    return this.next.get(a)?.get(b)?.weight ?? 0;
  }

  isRelated(a: string, b: string): boolean {
    return this.rel.get(a)?.has(b) ?? false;
  }
}
