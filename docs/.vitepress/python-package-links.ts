// The Python package's own docs (python/README.md, python/ADAPTERS.md) are pages of the site too, included from
// where they live so they have one source. Their links are written for the repository (`../docs/guide/x.md`,
// which works on GitHub and in an editor); on the site the including pages sit in docs/python/, so those links
// lose their `../docs/` part here, before VitePress resolves (and dead-link-checks) them.
import type { MarkdownRenderer } from 'vitepress';

/** `../docs/guide/serving.md#x` → `../guide/serving.md#x`; other links unchanged. */
export function sitePathOfPackageLink(href: string): string {
  return href.startsWith('../docs/') ? `../${href.slice('../docs/'.length)}` : href;
}

export function rewritePythonPackageLinks(md: MarkdownRenderer): void {
  const original = md.renderer.rules.link_open;
  md.renderer.rules.link_open = (tokens, index, options, env: { relativePath?: string }, self) => {
    const token = tokens[index];
    const href = token?.attrGet('href');
    if (token !== undefined && href !== null && href !== undefined && (env.relativePath ?? '').startsWith('python/')) token.attrSet('href', sitePathOfPackageLink(href));
    return original !== undefined ? original(tokens, index, options, env, self) : self.renderToken(tokens, index, options);
  };
}
