/** Memory kept per notebook: plain JSON so the notebook metadata can store it. */

export interface StepOutput {
  name: string;
  type: 'raster' | 'vector' | 'table' | 'number' | 'string' | 'object';
  path?: string;
  /** Roles the output carries (e.g. 'index', 'mask', 'class', 'dem'). */
  roles?: string[];
}

export interface MemoryStep {
  tool: string;
  /** Short human summary of the arguments ("image=scene.tif, sensor=sentinel2_l2a"). */
  argSummary: string;
  /** The engine's summary of the result: findings with numbers. */
  resultSummary: string;
  outputs: StepOutput[];
  ok: boolean;
  /** ISO time of the run. */
  time: string;
  /** Id of the notebook cell whose run this is: re-running that cell replaces the step. */
  cell?: string;
}

export interface MemoryState {
  /** Session memory: the analyst's task. */
  task: string;
  /** The full trace, oldest first; working memory is its last `windowSize` steps. */
  trace: MemoryStep[];
  windowSize: number;
}
