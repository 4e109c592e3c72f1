// How far the simulator's sampled text departs from what the chat template re-renders: seeded knobs, like a real model.
import { createHash } from 'node:crypto';
import { ConfigError } from '../errors.js';
import { seededRandom } from './seeded-random.js';

/** Probabilities (0..1) per turn or per tool call, and the seed that makes them reproducible. */
export interface DriftKnobs {
  seed: number;
  /** Tool-call JSON written with `,` and `:` (no spaces). */
  compactJson: number;
  /** hermes: `{"arguments": ..., "name": ...}` (the parser accepts it, the template writes name first). */
  argumentsFirst: number;
  /** A short sentence before the tool calls of a turn that has no content. */
  textBeforeTool: number;
  /** An empty think block although the policy gave reasoning. */
  emptyThink: number;
  /** Non-ASCII characters in tool-call JSON written as `\uXXXX` escapes. */
  asciiEscapes: number;
}

export const NO_DRIFT: DriftKnobs = { seed: 0, compactJson: 0, argumentsFirst: 0, textBeforeTool: 0, emptyThink: 0, asciiEscapes: 0 };

/** What `--drift realistic` (the CLI default) means: drift shows up in a few turns of every session. */
export const REALISTIC_DRIFT: DriftKnobs = { seed: 0, compactJson: 0.15, argumentsFirst: 0.1, textBeforeTool: 0.25, emptyThink: 0.1, asciiEscapes: 0.5 };

const KNOB_NAMES = ['compactJson', 'argumentsFirst', 'textBeforeTool', 'emptyThink', 'asciiEscapes'] as const;

/**
 * Parses `--drift`: `none`, `realistic`, or comma-separated `name=value` overrides on top of realistic
 * (`realistic,seed=7,compactJson=1` or just `seed=7`).
 */
export function parseDriftSpec(spec: string): DriftKnobs {
  const knobs: DriftKnobs = { ...REALISTIC_DRIFT };
  for (const part of spec.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    if (part === 'none') Object.assign(knobs, NO_DRIFT, { seed: knobs.seed });
    else if (part === 'realistic') Object.assign(knobs, REALISTIC_DRIFT, { seed: knobs.seed });
    else {
      const [name = '', raw = ''] = part.split('=');
      const value = Number(raw);
      const known = name === 'seed' || (KNOB_NAMES as readonly string[]).includes(name);
      const valid = name === 'seed' ? Number.isInteger(value) : Number.isFinite(value) && value >= 0 && value <= 1;
      if (!known || raw === '' || !valid) {
        throw new ConfigError(
          `Invalid drift setting "${part}".`,
          `Use none, realistic, or name=value with name one of seed, ${KNOB_NAMES.join(', ')} (probabilities in 0..1, seed an integer).`,
        );
      }
      knobs[name as keyof DriftKnobs] = value;
    }
  }
  return knobs;
}

/** A seeded generator (mulberry32) keyed by the knobs' seed and a per-call key (the prompt text). */
export function driftRandom(seed: number, key: string): () => number {
  return seededRandom(createHash('sha256').update(`${seed}\0${key}`).digest().readUInt32LE(0));
}
