/**
 * The shipped Prometheus files pass promtool: deploy/alerts.yml (`check rules`), its unit tests
 * deploy/alerts.test.yml (`test rules`: each alert fires on the series that should fire it and stays
 * quiet otherwise), and deploy/prometheus.yml as a fleet leaves it (`check config`, with the targets
 * and token that `npm run fleet` writes). promtool missing is a failure, not a skip: .ci/run installs it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writePrometheusFiles } from '../../scripts/fleet';
import { projectRoot } from '../../shared/paths';
import { deployDir, layOutPrometheus, promtool } from '../helpers/prometheus';

const rules = readFileSync(join(deployDir, 'alerts.yml'), 'utf8');
const ruleTests = readFileSync(join(deployDir, 'alerts.test.yml'), 'utf8');
const alertNames = [...rules.matchAll(/^\s+- alert: (\w+)$/gm)].map((match) => match[1]);

it('promtool check rules accepts deploy/alerts.yml', () => {
  expect(promtool(['check', 'rules', 'alerts.yml'])).toMatch(new RegExp(`SUCCESS: ${alertNames.length} rules found`));
});

it('promtool test rules passes deploy/alerts.test.yml', () => {
  expect(promtool(['test', 'rules', 'alerts.test.yml'])).toMatch(/SUCCESS/);
});

it('promtool check config accepts deploy/prometheus.yml with the files a fleet writes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stagegraph-prometheus-'));
  try {
    const config = layOutPrometheus(dir);
    writePrometheusFiles(
      { targets: join(dir, 'fleet', 'targets.json'), token: join(dir, 'fleet', 'metrics-token') },
      [
        { name: 'app1', port: 4001 },
        { name: 'app2', port: 4002 },
      ],
      'a-metrics-token-of-the-fleet',
    );
    const output = promtool(['check', 'config', config], dir);
    expect(output).toMatch(/SUCCESS: .*prometheus\.yml is valid prometheus config file syntax/);
    expect(output).toMatch(new RegExp(`SUCCESS: ${alertNames.length} rules found`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('every alert has a summary, a runbook line into docs/operations.md, a test that fires it and one that finds it quiet', () => {
  expect(alertNames.length).toBeGreaterThanOrEqual(12);
  const blocks = rules.split(/^\s+- alert: /m).slice(1);
  for (const [index, name] of alertNames.entries()) {
    expect({ name, summary: /^\s+summary: \S/m.test(blocks[index]) }).toEqual({ name, summary: true });
    expect({ name, runbook: /^\s+runbook: "docs\/operations\.md, /m.test(blocks[index]) }).toEqual({ name, runbook: true });
    const fires = new RegExp(`alertname: ${name}\\n\\s+exp_alerts:\\n\\s+- exp_labels:`).test(ruleTests);
    const quiet = new RegExp(`alertname: ${name}, exp_alerts: \\[\\] \\}`).test(ruleTests);
    expect({ name, fires, quiet }).toEqual({ name, fires: true, quiet: true });
  }
});

it('the rules read only metric families stagegraph exports', () => {
  const metricsSource = ['metrics.ts', 'instanceMetrics.ts'].map((file) => readFileSync(join(projectRoot, 'shared', file), 'utf8')).join('\n');
  const families = new Set([...rules.matchAll(/\b(stagegraph_\w+)/g)].map((match) => match[1].replace(/_(bucket|count|sum)$/, '')));
  expect(families.size).toBeGreaterThanOrEqual(10);
  for (const family of families) expect({ family, exported: metricsSource.includes(`name: '${family}'`) }).toEqual({ family, exported: true });
});
