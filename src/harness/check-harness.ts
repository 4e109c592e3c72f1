// Cross-field checks of a loaded harness that the zod schema cannot express.
import type { LoadedHarness } from './harness-manifest.js';
import { checkTomlTemplate } from './render-toml-template.js';
import { findPlaceholders, findUnknownPlaceholders } from './substitute-template.js';

/** Environment variables polar sets for every harness; a manifest may not set them itself. */
export const RESERVED_ENV = ['HOME', 'POLAR_BASE_URL', 'POLAR_API_KEY', 'POLAR_MODEL'] as const;

/** Every problem found, as sentences; empty when the harness is usable. */
export function checkHarness(harness: LoadedHarness): string[] {
  const problems: string[] = [];
  const expectedStart = harness.usesNode ? ['{node}', '{bin}'] : ['{bin}'];
  if (expectedStart.some((item, index) => harness.argv[index] !== item)) {
    problems.push(`argv must start with ${JSON.stringify(expectedStart)} (usesNode is ${harness.usesNode})`);
  }
  const instructionCount = harness.argv.filter((item) => item === '{instruction}').length;
  const instructionMentions = harness.argv.filter((item) => findPlaceholders(item).includes('instruction')).length;
  if (instructionCount !== 1 || instructionMentions !== 1) {
    problems.push('argv must contain "{instruction}" exactly once, as a whole element');
  }
  for (const name of RESERVED_ENV) {
    if (name in harness.env) problems.push(`env must not set ${name}: polar sets it for every harness`);
  }
  const templated: [string, string][] = [
    ...harness.argv.map((item): [string, string] => ['argv', item]),
    ...Object.entries(harness.env).map(([name, value]): [string, string] => [`env ${name}`, value]),
    ...harness.files.map((file): [string, string] => ['files path', file.path]),
  ];
  for (const [where, text] of templated) {
    for (const name of findUnknownPlaceholders(text)) problems.push(`unknown placeholder {${name}} in ${where}`);
  }
  for (const file of harness.files) {
    if (file.path.split('/').includes('..')) problems.push(`file path ${file.path} leaves {home}`);
    const text = harness.templates[file.template];
    if (text === undefined) {
      problems.push(`template ${file.template} is missing from ${harness.dir}`);
      continue;
    }
    for (const name of findUnknownPlaceholders(text)) problems.push(`unknown placeholder {${name}} in ${file.template}`);
    problems.push(...checkTemplateSyntax(file.template, text));
  }
  return problems;
}

function checkTemplateSyntax(template: string, text: string): string[] {
  if (template.endsWith('.json')) {
    try {
      JSON.parse(text);
      return [];
    } catch (error) {
      return [`${template} is not valid JSON: ${(error as Error).message}`];
    }
  }
  if (template.endsWith('.toml')) {
    try {
      return checkTomlTemplate(text, template);
    } catch (error) {
      return [(error as Error).message];
    }
  }
  return [`template ${template} must be a .json or .toml file`];
}
