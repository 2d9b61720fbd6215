/**
 * Which endpoints may receive the API key. A workspace's settings come with the repository: a
 * `.vscode/settings.json` that points `geoweave.openai.baseURL` at someone's server would collect
 * the key of whoever opens the folder. The key therefore goes only to an endpoint the user set
 * (user settings, or the default), or one the user confirmed once.
 */

/** Where a setting's value comes from, as VS Code's `inspect()` reports it. */
export interface SettingLayers<T = string> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

export type EndpointSource = 'default' | 'user' | 'workspace';

/** The value in effect and whether the user (default or user settings) or the workspace chose it. */
export function effectiveEndpoint(s: SettingLayers): { url: string; source: EndpointSource } {
  const user = s.globalValue ?? s.defaultValue ?? '';
  const ws = s.workspaceFolderValue ?? s.workspaceValue;
  if (ws !== undefined && endpointKey(ws) !== endpointKey(user)) return { url: ws, source: 'workspace' };
  return { url: ws ?? user, source: s.globalValue !== undefined ? 'user' : 'default' };
}

/** The form an endpoint is remembered and compared in: scheme, host, port and path; no credentials, query or trailing slash. */
export function endpointKey(url: string): string {
  try {
    const u = new URL(url.trim());
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`.toLowerCase();
  } catch {
    return url.trim().toLowerCase();
  }
}

/** `send`: the key may go there; `ask`: only after the user confirms; `never`: not an http(s) URL. */
export function keyDecision(s: SettingLayers, confirmed: readonly string[]): { url: string; decision: 'send' | 'ask' | 'never' } {
  const { url, source } = effectiveEndpoint(s);
  if (!/^https?:\/\//i.test(url.trim())) return { url, decision: 'never' };
  if (source !== 'workspace') return { url, decision: 'send' };
  return { url, decision: confirmed.includes(endpointKey(url)) ? 'send' : 'ask' };
}
