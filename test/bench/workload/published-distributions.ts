// published-distributions.json: turn counts, output lengths, problem sizes, tool and repository mixes (cited).
import { readFileSync } from 'node:fs';
import type { ToolKind, ToolRepo } from './tool-times.js';
import { WORKLOAD_FIXTURES } from './workload-fixtures.js';

export interface Lognormal {
  kind: 'lognormal';
  median: number;
  sigma: number;
}

export interface PublishedDistributions {
  provenance: Record<string, string>;
  turns: Lognormal & { min: number; max: number };
  outputTokens: { answer: Lognormal; reasoning: Lognormal };
  problemTokens: { medianWords: number; sigma: number; tokensPerWord: number; min: number };
  toolMix: { weights: Record<ToolKind, number> };
  repoMix: { weights: Record<ToolRepo, number> };
  limits: { contextTokens: number; toolOutputCapChars: number };
}

export function loadPublishedDistributions(): PublishedDistributions {
  return JSON.parse(readFileSync(WORKLOAD_FIXTURES.published, 'utf8')) as PublishedDistributions;
}
