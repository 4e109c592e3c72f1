// Where the generated parts of the site go (none of them committed), shared by the generator, the config and the tests.
import path from 'node:path';

export const DOCS_DIR = path.resolve(import.meta.dirname, '../..');
export const GENERATED_DIR = path.join(DOCS_DIR, '.vitepress', 'generated');
/** The CLI reference's sidebar entries: `[{ text: 'polar rollout', link: '/reference/cli/rollout', sections }]`. */
export const CLI_SIDEBAR_FILE = path.join(GENERATED_DIR, 'cli-sidebar.json');
/** The built site. */
export const SITE_DIR = path.join(DOCS_DIR, '.vitepress', 'dist');
