/** The fixed words of hovers and completion details in tool cells, in the editor's language.
 *  Kept apart from language.ts so the wording can be reviewed (and tested) as one table. */
import type { SummaryLanguage } from '../results/summary-language';

export interface EditorWords {
  catalogOnly: string;
  args: string;
  outputs: string;
  standsFor: string;
  /** Joined after the kind: "raster, required", "栅格，必填". */
  required: string;
  default: string;
  sensorPreset: string;
  bandRole: string;
  workspaceFile: string;
  workspaceRaster: string;
  /** "output of {tool}" (the tool's id stays: it is what the cell above names). */
  outputOf: (tool: string) => string;
  /** Between "output of ndvi" and what the output is. */
  outputSep: string;
  defaultValue: string;
}

export const EDITOR_WORDS: Record<SummaryLanguage, EditorWords> = {
  en: {
    catalogOnly: ' — catalog only (no runner)', args: 'Arguments: ', outputs: 'Outputs: ', standsFor: ' stands for ',
    required: ', required', default: ', default ', sensorPreset: 'sensor preset',
    bandRole: 'band role (resolved from band descriptions or the sensor preset)', workspaceFile: 'workspace file',
    workspaceRaster: 'workspace raster', outputOf: (tool) => `output of ${tool}`, outputSep: ': ', defaultValue: 'default',
  },
  zh: {
    catalogOnly: ' — 仅在目录中（无运行器）', args: '参数：', outputs: '输出：', standsFor: ' 即 ',
    required: '，必填', default: '，默认 ', sensorPreset: '传感器预设',
    bandRole: '波段角色（由波段描述或传感器预设确定）', workspaceFile: '工作区文件',
    workspaceRaster: '工作区栅格', outputOf: (tool) => `${tool} 的输出`, outputSep: '：', defaultValue: '默认值',
  },
};

/** An argument's kind (the engine's ToolParamKind or the manifest's ParamType) as a Chinese analyst
 *  reads it. A kind not listed (a team's own) is shown as written. */
const KIND_ZH: Record<string, string> = {
  raster: '栅格', raster_list: '栅格列表', vector: '矢量', zones: '分区（分类栅格或多边形）', crs: '坐标参考系',
  number: '数值', integer: '整数', string: '字符串', boolean: '布尔值', band: '波段', number_list: '数值列表',
  string_list: '字符串列表', bbox: '范围框', table: '表格', array: '列表', object: '对象',
};

export function kindWord(kind: string, lang: SummaryLanguage): string {
  return lang === 'zh' ? KIND_ZH[kind] ?? kind : kind;
}

/** "band, required, default 1" / "波段，必填，默认 1": what an argument completion's detail says. */
export function argDetail(a: { kind: string; required: boolean; default?: unknown }, lang: SummaryLanguage): string {
  const w = EDITOR_WORDS[lang];
  return `${kindWord(a.kind, lang)}${a.required ? w.required : ''}${a.default !== undefined ? `${w.default}${JSON.stringify(a.default)}` : ''}`;
}
