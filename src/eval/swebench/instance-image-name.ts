// The official prebuilt instance image name for a record (v4 remote naming, x86_64).

export interface InstanceImageNameOptions {
  /** Registry namespace; default `swebench` (the v4 CLI default). */
  readonly namespace?: string;
  /** Image tag; default `latest`. */
  readonly tag?: string;
}

/**
 * `record.image` if the row names one; otherwise
 * `swebench/sweb.eval.x86_64.<instance_id lower-cased, "__" → "_1776_">:latest`
 * (Docker Hub rejects double underscores, so upstream replaces them with `_1776_`).
 */
export function instanceImageName(
  record: { readonly instance_id: string; readonly image?: string },
  options: InstanceImageNameOptions = {},
): string {
  if (record.image !== undefined) return record.image;
  const { namespace = 'swebench', tag = 'latest' } = options;
  return `${namespace}/sweb.eval.x86_64.${record.instance_id.toLowerCase()}:${tag}`.replaceAll('__', '_1776_');
}
