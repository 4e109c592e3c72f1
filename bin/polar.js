#!/usr/bin/env node
// The `polar` command: runs the TypeScript sources through tsx's loader (no build step).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/run.ts');
