/**
 * `npm run provider -- start` serves the provider in the background, as `pg_ctl start` serves PostgreSQL: the
 * server runs detached (nginx as its child), its log appended to `<state>/provider.log`, its pid kept in
 * `<state>/provider.pid`; the command returns once it serves (or fails with the log's end when it could not
 * start). `npm run provider -- stop` ends it as Ctrl-C would (it stops nginx) and returns once it is gone.
 * So one terminal can run a whole show: the provider, an encoder and the service's calls.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ProviderConfig } from './config';

/** What the detached server tells the command that started it, over their IPC channel, once it serves. */
export const SERVING_MESSAGE = 'reference provider serving';

const pidFile = (config: ProviderConfig) => join(config.stateDir, 'provider.pid');
const logFile = (config: ProviderConfig) => join(config.stateDir, 'provider.log');

/** The pid of a provider started in the background that still runs, or null. */
function runningPid(config: ProviderConfig): number | null {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile(config), 'utf8').trim());
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

const lastLines = (path: string, count: number) => readFileSync(path, 'utf8').trimEnd().split('\n').slice(-count).join('\n');

/** Starts the server detached and resolves with its pid once it serves; rejects with its log's end if it exits first. */
export async function startInBackground(config: ProviderConfig): Promise<{ pid: number; log: string }> {
  const already = runningPid(config);
  if (already !== null) throw new Error(`the provider already serves from ${config.stateDir} (pid ${already}); stop it with: npm run provider -- stop`);
  mkdirSync(config.stateDir, { recursive: true, mode: 0o700 });
  const log = openSync(logFile(config), 'a');
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1], 'serve'], {
    detached: true,
    stdio: ['ignore', log, log, 'ipc'],
    env: process.env,
  });
  closeSync(log);
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      reject(
        new Error(`the provider stopped before serving (${signal ?? `exit code ${code}`}); the end of ${logFile(config)}:\n${lastLines(logFile(config), 20)}`),
      ),
    );
    child.on('message', (message) => message === SERVING_MESSAGE && resolve());
  });
  child.removeAllListeners('exit');
  writeFileSync(pidFile(config), `${child.pid}\n`);
  child.disconnect();
  child.unref();
  const fromHere = relative(process.cwd(), logFile(config));
  return { pid: child.pid!, log: fromHere.startsWith('..') ? logFile(config) : fromHere };
}

/** Ends the provider `start` began (SIGTERM: it stops nginx first) and resolves once its process is gone. */
export async function stopBackground(config: ProviderConfig): Promise<{ stopped: boolean }> {
  const pid = runningPid(config);
  rmSync(pidFile(config), { force: true });
  if (pid === null) return { stopped: false };
  process.kill(pid, 'SIGTERM');
  // Gone when signal 0 can no longer reach it; the provider's own stop is bounded by nginx's quit.
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return { stopped: true };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
