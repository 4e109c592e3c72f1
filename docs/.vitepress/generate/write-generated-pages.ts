// `npm run docs:generate` (the first step of `npm run docs:build`): writes the generated reference pages from the
// code, so they cannot drift from it: docs/reference/cli/*.md from the commander program, docs/reference/http-api.md
// from the OpenAPI document, and the CLI part of the sidebar. These files are not committed (.gitignore).
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createProgram } from '../../../src/cli/main.js';
import { OPENAPI_DOCUMENT } from '../../../src/serve/openapi-document.js';
import { renderCliReference, type GuideLinks } from './cli-reference.js';
import { renderHttpReference, type OpenApiDocument } from './http-reference.js';
import { CLI_SIDEBAR_FILE, DOCS_DIR, GENERATED_DIR } from './generated-paths.js';

const CLI_DIR = path.join(DOCS_DIR, 'reference', 'cli');

/** Where each command is explained (relative to docs/reference/cli/); a wrong link fails the build's dead-link check. */
const GUIDES: GuideLinks = {
  quickstart: { text: 'Getting started', link: '../../getting-started.md' },
  demo: { text: 'Getting started', link: '../../getting-started.md#the-capture-without-docker' },
  rollout: { text: 'Running rollouts', link: '../../guide/rollouts.md' },
  runs: { text: 'Running rollouts: what a run records', link: '../../guide/rollouts.md#what-a-run-records' },
  eval: { text: 'Evaluation', link: '../../guide/evaluation.md' },
  datasets: { text: 'Task sets and datasets', link: '../../guide/task-sets.md#checking-a-training-set-against-an-evaluation-set' },
  export: { text: 'Export formats', link: '../export-formats.md' },
  proxy: { text: 'The gateway on its own', link: '../../guide/gateway.md' },
  sim: { text: 'The simulator (reference)', link: '../simulator.md' },
  serve: { text: 'Serving rollouts to a trainer', link: '../../guide/serving.md' },
  doctor: { text: 'Engines: the preflight and polar doctor', link: '../../guide/engines.md#the-preflight-and-polar-doctor' },
  engine: { text: 'Engines and weight sync', link: '../../guide/engines.md' },
  sessions: { text: 'Stored data', link: '../stored-data.md' },
  harness: { text: 'Configuration: harnesses', link: '../configuration.md#harnesses' },
  gc: { text: 'Running rollouts: stopping and cleaning up', link: '../../guide/rollouts.md#retries-resume-and-clean-up' },
  view: { text: 'The viewer', link: '../../guide/viewer.md' },
};

export function writeGeneratedPages(): { cliPages: number; sections: number } {
  const reference = renderCliReference(createProgram(), GUIDES);
  mkdirSync(CLI_DIR, { recursive: true });
  for (const file of readdirSync(CLI_DIR)) if (file.endsWith('.md')) rmSync(path.join(CLI_DIR, file));
  writeFileSync(path.join(CLI_DIR, 'index.md'), reference.index);
  for (const page of reference.pages) writeFileSync(path.join(CLI_DIR, `${page.slug}.md`), page.markdown);
  writeFileSync(path.join(DOCS_DIR, 'reference', 'http-api.md'), renderHttpReference(OPENAPI_DOCUMENT as unknown as OpenApiDocument));
  mkdirSync(GENERATED_DIR, { recursive: true });
  const sidebar = reference.pages.map((page) => ({ text: page.title, link: `/reference/cli/${page.slug}`, sections: page.sections }));
  writeFileSync(CLI_SIDEBAR_FILE, `${JSON.stringify(sidebar, null, 2)}\n`);
  return { cliPages: reference.pages.length, sections: reference.pages.reduce((total, page) => total + page.sections.length, 0) };
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const started = Date.now();
  const written = writeGeneratedPages();
  process.stdout.write(`docs: generated the CLI reference (${written.cliPages} pages, ${written.sections} commands) and the HTTP API page in ${Date.now() - started} ms\n`);
}
