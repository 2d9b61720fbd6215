/** The OpenAI API key lives in SecretStorage only, never in settings or logs. */
import * as vscode from 'vscode';

const KEY = 'geoweave.openai.apiKey';

export async function openaiKey(secrets: vscode.SecretStorage): Promise<string | undefined> {
  return (await secrets.get(KEY)) || process.env.OPENAI_API_KEY || undefined;
}

export async function promptOpenaiKey(secrets: vscode.SecretStorage): Promise<boolean> {
  const key = await vscode.window.showInputBox({
    title: 'GeoWeave: OpenAI API key',
    prompt: 'Stored in VS Code SecretStorage. Leave empty to delete the stored key.',
    password: true,
    ignoreFocusOut: true,
  });
  if (key === undefined) return false;
  if (key.trim() === '') await secrets.delete(KEY);
  else await secrets.store(KEY, key.trim());
  return true;
}
