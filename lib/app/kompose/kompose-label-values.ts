import { ComposeError } from '../../compose/errors';
import { ComposeLocation, ComposeService, ComposeVolume } from '../../compose/model';

/** Whole numbers as kompose reads them from a label: digits only. */
export const WHOLE_NUMBER = /^\d+$/;

/** The location of one label of a service or volume, `services.web.labels["kompose.service.type"]`. */
export function labelAt(owner: ComposeService | ComposeVolume, key: string): ComposeLocation {
  return { ...owner.at, path: `${owner.at.path}.labels["${key}"]` };
}

/** A port number from a label's text, or a `ComposeError` naming the label. */
export function labelPort(text: string, at: ComposeLocation, allowed = 'a port number 1-65535'): number {
  const n = WHOLE_NUMBER.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= 65535)) {
    throw new ComposeError('invalid port', { at, value: text, allowed });
  }
  return n;
}
