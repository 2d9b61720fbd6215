/** Every GeoWeave setting, read here through typed getters and nowhere else. */
import * as vscode from 'vscode';
import * as path from 'path';
import type { EmbedderConfig } from '../core/embed/types';
import type { SettingLayers } from '../core/net/endpoint-trust';

export type EmbedderKind = 'builtin' | 'transformers' | 'openai';

/** Settings that name a server the API key may be sent to. */
export type EndpointSetting = 'openai.baseURL' | 'llm.baseURL';

function section(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('geoweave');
}

export const config = {
  embedderKind(): EmbedderKind {
    const k = section().get<string>('embedder', 'builtin');
    return k === 'transformers' || k === 'openai' ? k : 'builtin';
  },
  transformersModel(): string {
    return section().get<string>('transformers.model', 'Xenova/all-MiniLM-L6-v2');
  },
  transformersCacheFolder(): string {
    return section().get<string>('transformers.cacheFolder', '');
  },
  transformersAllowDownload(): boolean {
    return section().get<boolean>('transformers.allowDownload', false);
  },
  openaiBaseURL(): string {
    return section().get<string>('openai.baseURL', 'https://api.openai.com/v1');
  },
  openaiModel(): string {
    return section().get<string>('openai.model', 'text-embedding-3-small');
  },
  /** Extra manifest folders, absolute (relative ones resolve against the first workspace folder). */
  manifestFolders(workspaceDir?: string): string[] {
    return section().get<string[]>('manifestFolders', []).map((d) => (path.isAbsolute(d) || !workspaceDir ? d : path.join(workspaceDir, d)));
  },
  /** Analyst flows the learned graph starts from: undefined = the shipped ones, false = none, else a task file. */
  practice(workspaceDir?: string): string | false | undefined {
    const v = section().get<string>('practiceFile', '').trim();
    if (!v) return undefined;
    if (v.toLowerCase() === 'none') return false;
    return path.isAbsolute(v) || !workspaceDir ? v : path.join(workspaceDir, v);
  },
  workingMemorySize(): number {
    return Math.max(1, Math.floor(section().get<number>('workingMemorySize', 5)));
  },
  suggestionsCount(): number {
    return Math.max(1, Math.floor(section().get<number>('suggestions.count', 10)));
  },
  /** The map's basemap tile URL template ({z}/{x}/{y}), or '' (off: offline is the default). */
  mapBasemap(): string {
    const v = section().get<string>('map.basemapUrl', '').trim();
    return /^https?:\/\/[^\s"'<>]+$/i.test(v) && /\{z\}/.test(v) && /\{x\}/.test(v) && /\{-?y\}/.test(v) ? v : '';
  },
  /** Output folder, absolute. */
  outputFolder(workspaceDir: string): string {
    const d = section().get<string>('outputFolder', '.geoweave/outputs');
    return path.isAbsolute(d) ? d : path.join(workspaceDir, d);
  },
  llmBaseURL(): string {
    return section().get<string>('llm.baseURL', '');
  },
  llmModel(): string {
    return section().get<string>('llm.model', '');
  },
  /** Timeouts and retries for remote rasters (COG URLs). */
  http(): { connectTimeoutSeconds: number; idleTimeoutSeconds: number; timeoutSeconds: number; retries: number } {
    const positive = (k: string, d: number) => {
      const v = section().get<number>(k, d);
      return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : d;
    };
    const retries = section().get<number>('http.retries', 3);
    return {
      connectTimeoutSeconds: positive('http.connectTimeoutSeconds', 10),
      idleTimeoutSeconds: positive('http.idleTimeoutSeconds', 30),
      timeoutSeconds: positive('http.timeoutSeconds', 120),
      retries: typeof retries === 'number' && Number.isFinite(retries) ? Math.min(10, Math.max(0, Math.floor(retries))) : 3,
    };
  },
  /**
   * Where an endpoint setting's value comes from. In an untrusted workspace VS Code ignores the
   * workspace's value of a restricted setting, and so does this.
   */
  endpointLayers(setting: EndpointSetting): SettingLayers {
    const i = section().inspect<string>(setting);
    const trusted = vscode.workspace.isTrusted;
    return {
      defaultValue: i?.defaultValue,
      globalValue: i?.globalValue,
      workspaceValue: trusted ? i?.workspaceValue : undefined,
      workspaceFolderValue: trusted ? i?.workspaceFolderValue : undefined,
    };
  },
  /** The embedder configuration for the core; the API key comes from SecretStorage. */
  embedder(defaultCacheDir: string, openaiKey?: string): EmbedderConfig {
    switch (config.embedderKind()) {
      case 'transformers':
        return { kind: 'transformers', model: config.transformersModel(), cacheDir: config.transformersCacheFolder() || defaultCacheDir, allowDownload: config.transformersAllowDownload() };
      case 'openai':
        return { kind: 'openai', baseURL: config.openaiBaseURL(), model: config.openaiModel(), apiKey: openaiKey };
      default:
        return { kind: 'builtin' };
    }
  },
  /** True when a change touches settings the engine is opened with (index, embedder, LLM). */
  affectsIndex(e: vscode.ConfigurationChangeEvent): boolean {
    return ['embedder', 'transformers', 'openai', 'manifestFolders', 'practiceFile', 'llm'].some((k) => e.affectsConfiguration(`geoweave.${k}`));
  },
};
