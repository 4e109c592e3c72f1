// `--control pause-keep,sleep,…`: the engine-control features a command needs, checked against the known names.
import { UsageError } from '../errors.js';
import { type ControlFeature, CONTROL_FEATURES } from '../upstream/engines/engine-control.js';

export function parseControlFeatures(value: string): ControlFeature[] {
  const names = value.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const unknown = names.filter((name) => !(CONTROL_FEATURES as readonly string[]).includes(name));
  if (unknown.length > 0) throw new UsageError(`--control: unknown feature ${unknown.join(', ')}`, `Known: ${CONTROL_FEATURES.join(', ')}.`);
  return names as ControlFeature[];
}
