/** JSON-Schema validation of manifests (tool-manifests/schema.json) and structural checks of workflows. */
import * as fs from 'fs';
import * as path from 'path';
import Ajv, { ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import type { ManifestProblem, WorkflowTemplate } from './types';
import { TOOL_ID } from './tool-id';

/** Used only when schema.json cannot be found: the minimum every manifest must satisfy. */
const FALLBACK_SCHEMA = {
  type: 'object',
  required: ['id', 'description'],
  properties: {
    id: { type: 'string', pattern: TOOL_ID.source },
    name: { type: 'string' },
    description: { type: 'string', minLength: 1 },
    tags: { type: 'array', items: { type: 'string' } },
    examples: { type: 'array', items: { type: 'string' } },
    prerequisites: { type: 'array', items: { type: 'string' } },
    downstream: { type: 'array', items: { type: 'string' } },
    related: { type: 'array', items: { type: 'string' } },
    inputs: { type: 'array', items: { $ref: '#/$defs/param' } },
    outputs: { type: 'array', items: { $ref: '#/$defs/param' } },
  },
  $defs: {
    param: {
      type: 'object',
      required: ['name', 'type'],
      properties: {
        name: { type: 'string' },
        type: { enum: ['raster', 'vector', 'table', 'number', 'string', 'boolean', 'array', 'object'] },
      },
    },
  },
};

export interface ManifestValidator {
  /** Returns problems (empty when valid) for one parsed manifest. */
  validate(file: string, data: unknown): ManifestProblem[];
  /** Where the schema came from ("" when the fallback is used). */
  schemaFile: string;
}

export function createValidator(schemaFile: string | undefined, warn: (p: ManifestProblem) => void): ManifestValidator {
  let schema: Record<string, unknown> = FALLBACK_SCHEMA;
  let used = '';
  if (schemaFile && fs.existsSync(schemaFile)) {
    try {
      schema = JSON.parse(fs.readFileSync(schemaFile, 'utf8'));
      used = schemaFile;
    } catch (e) {
      warn({ file: schemaFile, path: '', severity: 'warning', message: `schema is not valid JSON (${(e as Error).message}); using the minimal built-in schema` });
    }
  }
  let fn: ValidateFunction;
  try {
    fn = compile(schema);
  } catch (e) {
    warn({ file: used || '(builtin schema)', path: '', severity: 'warning', message: `schema does not compile (${(e as Error).message}); using the minimal built-in schema` });
    fn = compile(FALLBACK_SCHEMA);
    used = '';
  }
  return {
    schemaFile: used,
    validate(file, data) {
      if (fn(data)) return [];
      return (fn.errors ?? []).map((err) => {
        let p = err.instancePath;
        if (err.keyword === 'required') p += '/' + (err.params as { missingProperty: string }).missingProperty;
        if (err.keyword === 'additionalProperties') p += '/' + (err.params as { additionalProperty: string }).additionalProperty;
        return { file, path: p, severity: 'error' as const, message: `${p || '(root)'} ${err.message ?? 'is invalid'}` };
      });
    },
  };
}

function compile(schema: Record<string, unknown>): ValidateFunction {
  const draft = String(schema.$schema ?? '');
  const opts = { allErrors: true, strict: false };
  const ajv = draft.includes('2020-12') || (!draft && '$defs' in schema) ? new Ajv2020(opts) : new Ajv(opts);
  // Schemas declaring draft-07 still resolve; unknown formats are ignored rather than failing.
  return ajv.compile(schema);
}

/** Checks a workflow file's structure; returns the template or problems. */
export function checkWorkflow(file: string, data: unknown): { workflow?: WorkflowTemplate; problems: ManifestProblem[] } {
  const problems: ManifestProblem[] = [];
  const bad = (p: string, m: string) => problems.push({ file, path: p, severity: 'error', message: `${p || '(root)'} ${m}` });
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    bad('', 'must be an object with id, description and steps');
    return { problems };
  }
  const w = data as Record<string, unknown>;
  if (typeof w.id !== 'string' || !/^[a-z0-9_.-]+$/.test(w.id)) bad('/id', 'must be a string matching [a-z0-9_.-]+');
  if (typeof w.description !== 'string' || !w.description) bad('/description', 'must be a non-empty string');
  if (!Array.isArray(w.steps) || w.steps.length === 0) bad('/steps', 'must be a non-empty array of tool ids');
  else w.steps.forEach((s, i) => { if (typeof s !== 'string') bad(`/steps/${i}`, 'must be a tool id string'); });
  if (w.examples !== undefined && (!Array.isArray(w.examples) || w.examples.some((e) => typeof e !== 'string'))) bad('/examples', 'must be an array of strings');
  if (w.name !== undefined && typeof w.name !== 'string') bad('/name', 'must be a string');
  for (const k of ['name_zh', 'description_zh']) if (w[k] !== undefined && (typeof w[k] !== 'string' || !/\S/.test(w[k] as string))) bad(`/${k}`, 'must be a non-blank string');
  if (problems.length) return { problems };
  const workflow: WorkflowTemplate = { id: w.id as string, name: w.name as string | undefined, description: w.description as string, examples: w.examples as string[] | undefined, steps: w.steps as string[] };
  if (typeof w.name_zh === 'string') workflow.name_zh = w.name_zh;
  if (typeof w.description_zh === 'string') workflow.description_zh = w.description_zh;
  return { workflow, problems };
}

export function schemaPathIn(dir: string | undefined): string | undefined {
  return dir ? path.join(dir, 'schema.json') : undefined;
}
