/** The GeoWeave log channel and a function the core can log through. Every line is redacted. */
import * as vscode from 'vscode';
import { redactText } from '../core/net/redact';

/** What the extension logs through: levels, show, dispose. */
export interface Log extends vscode.Disposable {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
  show(): void;
}

/**
 * The log channel, with credentials in URLs, bearer tokens and key-shaped strings masked in every
 * line (an error text may quote a base URL such as https://user:pass@host/v1 or a server's echo of
 * the key). `secrets()` gives known keys to mask verbatim.
 */
export function createLog(secrets: () => (string | undefined)[] = () => []): Log {
  const channel = vscode.window.createOutputChannel('GeoWeave', { log: true });
  const clean = (msg: string) => redactText(msg, secrets());
  return {
    info: (msg) => channel.info(clean(msg)),
    warn: (msg) => channel.warn(clean(msg)),
    error: (msg) => channel.error(clean(msg)),
    show: () => channel.show(),
    dispose: () => channel.dispose(),
  };
}

/** Adapts the log channel to the core's `log(level, msg)` option. */
export function coreLogger(log: Log): (level: 'info' | 'warn' | 'error', msg: string) => void {
  return (level, msg) => (level === 'error' ? log.error(msg) : level === 'warn' ? log.warn(msg) : log.info(msg));
}
