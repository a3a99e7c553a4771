import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { VerifyReport, VerifyStatus, dataSummary, verifyManifests, verifySummary } from '../app/verify/verify';
import { CliIo, ExitCode, printWarnings } from './io';
import { VerifyOptions } from './options/options';
import { Rendered, renderProject } from './render';

/**
 * `cdk8s-compose verify`: converts as `convert` does (writing nothing) and checks the manifests with
 * `ComposeApp`'s own check (`verifyManifests`): a table per service and a summary line, or `--json`; exit 1 when an
 * expectation is broken.
 */
export function verify(options: VerifyOptions, io: CliIo): number {
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-compose-'));
  try {
    const rendered = renderProject(options, io, stage);
    printWarnings(rendered.project.warnings, io);
    const report = verifyRendered(rendered);
    io.stdout(options.json ? `${JSON.stringify(reportJson(report), undefined, 2)}\n` : verifyText(report));
    return verifyExitCode(report);
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

/** 1 when an expectation is broken, else 0. */
export function verifyExitCode(report: VerifyReport): ExitCode {
  return report.broken > 0 ? ExitCode.EXPECTATION_BROKEN : ExitCode.OK;
}

/** The check over what `renderProject` made: the manifests as they are written. */
export function verifyRendered(rendered: Rendered): VerifyReport {
  return verifyManifests(
    rendered.project.composeApp,
    rendered.waves.flatMap((w) => w.objects.map((o) => o.manifest)),
  );
}

/** One table per service (check, status, expectation, detail), then the summary line with the data class's counts. */
export function verifyText(report: VerifyReport): string {
  const lines: string[] = [];
  const services = [...new Set(report.expectations.map((e) => e.service))];
  for (const service of services) {
    const rows = report.expectations
      .filter((e) => e.service === service)
      .map((e) => [e.check, e.status, e.subject, e.detail]);
    const widths = [0, 1, 2].map((i) =>
      Math.max(...[['CHECK', 'STATUS', 'EXPECTATION'][i], ...rows.map((r) => r[i])].map((c) => c.length)),
    );
    const line = (cells: string[]) =>
      `  ${cells
        .slice(0, 3)
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')}  ${cells[3]}`.trimEnd();
    const broken = rows.filter((r) => r[1] === VerifyStatus.BROKEN).length;
    lines.push(
      `${service}${broken > 0 ? ` (${broken} broken)` : ''}`,
      line(['CHECK', 'STATUS', 'EXPECTATION', 'DETAIL']),
      ...rows.map(line),
      '',
    );
  }
  // The data class counted as convert counts it: what is durable, shared and seeded.
  const data = dataSummary(report);
  lines.push(`${verifySummary(report)}${data !== '' ? `; ${data}` : ''}`);
  return `${lines.join('\n')}\n`;
}

function reportJson(report: VerifyReport) {
  return {
    summary: {
      expectations: report.expectations.length,
      ok: report.ok,
      reported: report.reported,
      broken: report.broken,
    },
    expectations: report.expectations,
  };
}
