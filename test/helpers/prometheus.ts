/**
 * Prometheus in tests: promtool (Debian's `prometheus` package, installed by .ci/run) run on the shipped
 * deploy/prometheus.yml and deploy/alerts.yml, and a folder laid out as a deployment of them — the
 * configuration, its rules beside it and the fleet's targets and token in fleet/ — optionally with
 * short scrape and evaluation intervals for an end-to-end run.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../shared/paths';

export const deployDir = join(projectRoot, 'deploy');

/** Runs promtool and returns what it printed; throws with its output when it fails or is missing. */
export function promtool(args: string[], cwd = deployDir): string {
  const run = spawnSync('promtool', args, { cwd, encoding: 'utf8', timeout: 60_000 });
  if (run.error && 'code' in run.error && run.error.code === 'ENOENT') {
    throw new Error('promtool is not installed: apt-get install prometheus (Debian), as .ci/run does');
  }
  if (run.error) throw run.error;
  const output = `${run.stdout}${run.stderr}`;
  if (run.status !== 0) throw new Error(`promtool ${args.join(' ')} failed (exit ${run.status}):\n${output}`);
  return output;
}

/**
 * Lays out deploy/prometheus.yml and deploy/alerts.yml in `dir`, the configuration's scrape and
 * evaluation intervals (and scrape timeout) set to `intervalSeconds` when given. The fleet's files go in
 * `dir/fleet/` (scripts/fleet.ts, `prometheusDir`). Returns the configuration's path.
 */
export function layOutPrometheus(dir: string, intervalSeconds?: number): string {
  let config = readFileSync(join(deployDir, 'prometheus.yml'), 'utf8');
  if (intervalSeconds !== undefined) {
    const settings = [/^(\s+scrape_interval:) \S+$/m, /^(\s+evaluation_interval:) \S+$/m, /^(\s+scrape_timeout:) \S+$/m];
    for (const setting of settings) {
      // A setting renamed or moved in deploy/prometheus.yml must fail here, not leave the 15 s default in a test.
      if (!setting.test(config)) throw new Error(`deploy/prometheus.yml has no ${setting.source}`);
      config = config.replace(setting, `$1 ${intervalSeconds}s`);
    }
  }
  const configPath = join(dir, 'prometheus.yml');
  writeFileSync(configPath, config);
  copyFileSync(join(deployDir, 'alerts.yml'), join(dir, 'alerts.yml'));
  return configPath;
}
