/** The GeoWeave log channel and a function the core can log through. */
import * as vscode from 'vscode';

export type Log = vscode.LogOutputChannel;

export function createLog(): Log {
  return vscode.window.createOutputChannel('GeoWeave', { log: true });
}

/** Adapts the log channel to the core's `log(level, msg)` option. */
export function coreLogger(log: Log): (level: 'info' | 'warn' | 'error', msg: string) => void {
  return (level, msg) => (level === 'error' ? log.error(msg) : level === 'warn' ? log.warn(msg) : log.info(msg));
}
