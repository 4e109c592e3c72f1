// `{name}` placeholders: finding them and replacing them with (optionally escaped) values.
import { TEMPLATE_VARIABLES, type TemplateVariable } from './harness-manifest.js';

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9_]*)\}/g;
const KNOWN = new Set<string>(TEMPLATE_VARIABLES);

export type TemplateValues = Record<TemplateVariable, string>;

/** Every `{identifier}` in `text`, known or not, in order of appearance. */
export function findPlaceholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((match) => match[1] ?? '');
}

/** The placeholder names in `text` that are not template variables. */
export function findUnknownPlaceholders(text: string): string[] {
  return findPlaceholders(text).filter((name) => !KNOWN.has(name));
}

/** Replaces every known `{variable}` in `text` by `escape(value)`; unknown names stay as they are. */
export function substituteTemplate(text: string, values: TemplateValues, escape: (value: string) => string = (value) => value): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => (KNOWN.has(name) ? escape(values[name as TemplateVariable]) : whole));
}
