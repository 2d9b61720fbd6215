/**
 * The OpenAI API key lives in SecretStorage only, never in settings or logs, and goes only to an
 * endpoint the user chose: the default or user settings, or one the user confirmed once.
 */
import * as vscode from 'vscode';
import { endpointKey, keyDecision } from '../core/net/endpoint-trust';
import { redactUrl } from '../core/net/redact';
import { config, EndpointSetting } from './config';
import type { McpInputResolver } from '../core/notebook/mcp-config';

const KEY = 'geoweave.openai.apiKey';
/** globalState: endpoints (see endpointKey) the user allowed to receive the key. */
const CONFIRMED = 'geoweave.keyEndpoints';

/** Keys read in this session, masked in every log line. */
const known = new Set<string>();
/** Endpoints refused in this session: asked once, not at every reload. */
const declined = new Set<string>();

export function knownSecrets(): string[] {
  const serviceKeys = Object.entries(process.env).filter(([k]) => k.startsWith('GEOWEAVE_SERVICE_KEY_') || k.startsWith('GEOWEAVE_MCP_INPUT_')).map(([, v]) => v ?? '');
  return [...known, process.env.OPENAI_API_KEY ?? '', ...serviceKeys].filter(Boolean);
}

/** SecretStorage name of the key for the service at `origin` (scheme://host[:port]). */
const serviceKeyName = (origin: string) => `geoweave.serviceKey:${origin}`;

/** The user's key for the service at `origin`, if one was set (the environment is the runner's fallback). */
export async function serviceKey(secrets: vscode.SecretStorage, origin: string): Promise<string | undefined> {
  const key = await secrets.get(serviceKeyName(origin));
  if (key) known.add(key);
  return key || undefined;
}

/**
 * Fills `${input:ID}` of a workspace's MCP configuration as VS Code does: asked once (a password
 * box when the input says so), then kept in SecretStorage under the workspace folder and the id,
 * so another folder's configuration never receives it.
 */
export function mcpInputs(secrets: vscode.SecretStorage, workspace: string): McpInputResolver {
  return async (spec, server) => {
    const name = `geoweave.mcpInput:${workspace}:${spec.id}`;
    const kept = await secrets.get(name);
    if (kept) {
      known.add(kept);
      return kept;
    }
    const value = await vscode.window.showInputBox({
      title: vscode.l10n.t('GeoWeave: MCP server "{0}"', server),
      prompt: spec.description ?? vscode.l10n.t('Value of ${input:{0}} in the workspace\'s MCP configuration', spec.id),
      password: spec.password === true,
      value: spec.password ? undefined : spec.default,
      ignoreFocusOut: true,
    });
    if (value === undefined) return undefined;
    await secrets.store(name, value);
    if (value) known.add(value);
    return value;
  };
}

/** "http://host:8000/any/path" → "http://host:8000"; undefined for what is not an http(s) address or carries credentials. */
function originOf(text: string): string | undefined {
  try {
    const u = new URL(text.trim());
    return /^https?:$/.test(u.protocol) && !u.username && !u.password ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Asks for a service (the addresses of the catalog's services that take a key first) and its key,
 * and stores the key under that address only: a spec that names another address never gets it.
 */
export async function promptServiceKey(secrets: vscode.SecretStorage, origins: readonly string[]): Promise<boolean> {
  const other = vscode.l10n.t('Another address…');
  let origin: string | undefined = origins.length
    ? await vscode.window.showQuickPick([...origins, other], { title: vscode.l10n.t('GeoWeave: Set Service Key'), placeHolder: vscode.l10n.t('The service the key is for') })
    : other;
  if (!origin) return false;
  if (origin === other) {
    const typed = await vscode.window.showInputBox({
      title: vscode.l10n.t('GeoWeave: Set Service Key'), prompt: vscode.l10n.t('The service\'s address, e.g. http://localhost:8000'), ignoreFocusOut: true,
      validateInput: (v) => (originOf(v) ? undefined : vscode.l10n.t('an http(s) address without a user name or password')),
    });
    origin = typed ? originOf(typed) : undefined;
    if (!origin) return false;
  }
  const key = await vscode.window.showInputBox({
    title: vscode.l10n.t('GeoWeave: key for {0}', origin),
    prompt: vscode.l10n.t('Stored in VS Code SecretStorage and sent only to {0}. Leave empty to delete the stored key.', origin),
    password: true,
    ignoreFocusOut: true,
  });
  if (key === undefined) return false;
  if (key.trim() === '') await secrets.delete(serviceKeyName(origin));
  else {
    await secrets.store(serviceKeyName(origin), key.trim());
    known.add(key.trim());
  }
  return true;
}

export async function openaiKey(secrets: vscode.SecretStorage): Promise<string | undefined> {
  const key = (await secrets.get(KEY)) || process.env.OPENAI_API_KEY || undefined;
  if (key) known.add(key);
  return key;
}

export interface KeyDeps {
  secrets: vscode.SecretStorage;
  /** Global (not workspace) state, so a repository cannot pre-confirm its own endpoint. */
  globalState: vscode.Memento;
  log: { warn(msg: string): void; info(msg: string): void };
}

/**
 * The key for requests to the endpoint in `setting`, or '' (send none) when there is no key or the
 * endpoint was set by the workspace and the user does not confirm it.
 */
export async function keyForEndpoint(d: KeyDeps, setting: EndpointSetting): Promise<string> {
  const key = await openaiKey(d.secrets);
  if (!key) return '';
  const confirmed = d.globalState.get<string[]>(CONFIRMED, []);
  const { url, decision } = keyDecision(config.endpointLayers(setting), confirmed);
  if (decision === 'send') return key;
  if (decision === 'never') return '';
  const id = endpointKey(url);
  if (declined.has(id)) return '';
  const shown = redactUrl(url);
  const send = vscode.l10n.t('Send the key');
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t('This folder\'s settings point geoweave.{0} at {1}. Send your OpenAI API key there?', setting, shown),
    { modal: true, detail: vscode.l10n.t('The setting comes from the workspace (.vscode/settings.json), not from your user settings, so whoever wrote the folder chose this server. Without the key, GeoWeave still calls it, unauthenticated.') },
    send, vscode.l10n.t('Without the key'));
  if (choice === send) {
    await d.globalState.update(CONFIRMED, [...confirmed, id]);
    d.log.info(`the API key may now be sent to ${shown} (confirmed for geoweave.${setting})`);
    return key;
  }
  declined.add(id);
  d.log.warn(`the API key is not sent to ${shown}: this workspace's settings chose it for geoweave.${setting}; set it in your user settings or confirm it to send the key`);
  return '';
}

export async function promptOpenaiKey(secrets: vscode.SecretStorage): Promise<boolean> {
  const key = await vscode.window.showInputBox({
    title: vscode.l10n.t('GeoWeave: OpenAI API key'),
    prompt: vscode.l10n.t('Stored in VS Code SecretStorage. Leave empty to delete the stored key.'),
    password: true,
    ignoreFocusOut: true,
  });
  if (key === undefined) return false;
  if (key.trim() === '') await secrets.delete(KEY);
  else {
    await secrets.store(KEY, key.trim());
    known.add(key.trim());
  }
  return true;
}
