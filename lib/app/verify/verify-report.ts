import { compare } from '../../util/sort';

/** What an expectation is about. */
export enum VerifyCheck {
  /** A name and port one service uses to reach another. */
  REACH = 'reach',
  /** Two services on a shared network reach each other's ports; services on no shared network do not. */
  NETWORK = 'network',
  ENV = 'env',
  FILE = 'file',
  VOLUME = 'volume',
  DEPENDS_ON = 'depends_on',
  /**
   * What compose keeps: every mount that keeps data is a claim (`durable`), every source several pods mount is one
   * claim they can mount at once (`shared`), every bound folder's files reach its claim (`seeded`).
   */
  DATA = 'data',
}

export enum VerifyStatus {
  /** The expectation holds in the manifests. */
  OK = 'ok',
  /** It does not hold, and a warning of the app says so and what to do. */
  REPORTED = 'reported',
  /** It does not hold, and nothing said so. */
  BROKEN = 'broken',
}

/** One expectation and its outcome. */
export interface VerifyExpectation {
  /** The compose service it belongs to (the client of a reference). */
  readonly service: string;
  readonly check: VerifyCheck;
  /** What is expected, e.g. `api:8000 (services.web.environment.API_URL)`, `env LOG_LEVEL`, `/etc/certs/a.pem`. */
  readonly subject: string;
  readonly status: VerifyStatus;
  /** Why it holds or not. */
  readonly detail: string;
}

/** The outcome of `verify`. */
export interface VerifyReport {
  /** Sorted by service, then check, then subject. */
  readonly expectations: readonly VerifyExpectation[];
  readonly ok: number;
  readonly reported: number;
  readonly broken: number;
}

/** One line: `verify: 120 expectations: 118 hold, 2 reported, 0 broken`. */
export function verifySummary(report: VerifyReport): string {
  return `verify: ${report.expectations.length} expectations: ${report.ok} hold, ${report.reported} reported, ${report.broken} broken`;
}

/** The report of these expectations: sorted by service, check and subject, and counted by status. */
export function verifyReport(expectations: VerifyExpectation[]): VerifyReport {
  const sorted = expectations.sort(
    (a, b) => compare(a.service, b.service) || compare(a.check, b.check) || compare(a.subject, b.subject),
  );
  return {
    expectations: sorted,
    ok: sorted.filter((e) => e.status === VerifyStatus.OK).length,
    reported: sorted.filter((e) => e.status === VerifyStatus.REPORTED).length,
    broken: sorted.filter((e) => e.status === VerifyStatus.BROKEN).length,
  };
}
