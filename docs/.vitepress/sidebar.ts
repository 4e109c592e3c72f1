// The site's navigation, one list per section. To add a page, add one `{ text, link }` line to its section
// (link: the page's path under docs/ without `.md`); the build fails if the page does not exist.
import type { DefaultTheme } from 'vitepress';

export type SidebarItem = DefaultTheme.SidebarItem;

export const gettingStarted: SidebarItem[] = [
  { text: 'Install and first run', link: '/getting-started' },
  { text: 'A five-minute tour', link: '/getting-started#a-five-minute-tour' },
];

export const guides: SidebarItem[] = [
  { text: 'Running rollouts', link: '/guide/rollouts' },
  { text: 'Admission', link: '/guide/admission' },
  { text: 'Task sets and datasets', link: '/guide/task-sets' },
  { text: 'Evaluation', link: '/guide/evaluation' },
  { text: 'Serving rollouts to a trainer', link: '/guide/serving' },
  { text: 'Engines and weight sync', link: '/guide/engines' },
  { text: 'Past one box: many Docker hosts', link: '/guide/multi-host' },
  { text: 'Sampling and logprobs', link: '/guide/sampling' },
  { text: 'The gateway on its own', link: '/guide/gateway' },
  { text: 'The viewer', link: '/guide/viewer' },
];

export const trainers: SidebarItem[] = [
  { text: 'How the adapters work', link: '/guide/trainers' },
  { text: 'slime', link: '/guide/slime' },
  { text: 'SkyRL', link: '/guide/skyrl' },
  { text: 'verl', link: '/guide/verl' },
  { text: 'TRL', link: '/guide/trl' },
];

export const python: SidebarItem[] = [
  { text: 'Client (polar-rollout)', link: '/python/' },
  { text: 'Trainer adapters (reference)', link: '/python/ADAPTERS' },
];

export const concepts: SidebarItem[] = [
  { text: 'Architecture', link: '/concepts/architecture' },
  { text: 'Capture and token-in', link: '/concepts/capture' },
  { text: 'Lineages, rows and drift', link: '/concepts/lineages' },
  { text: 'Policy versions', link: '/concepts/versions' },
  { text: 'Effective GPU utilisation', link: '/concepts/gpu-utilisation' },
  { text: 'The simulator and its GPU model', link: '/concepts/simulator' },
  { text: 'Threat model', link: '/concepts/threat-model' },
  { text: 'Kubernetes (design)', link: '/concepts/kubernetes' },
];

export const reference: SidebarItem[] = [
  { text: 'Overview', link: '/reference/' },
  { text: 'HTTP API (polar serve)', link: '/reference/http-api' },
  { text: 'Export formats', link: '/reference/export-formats' },
  { text: 'Stored data', link: '/reference/stored-data' },
  { text: 'Exit codes', link: '/reference/exit-codes' },
  { text: 'Numeric bounds', link: '/reference/numeric-bounds' },
  { text: 'Configuration', link: '/reference/configuration' },
  { text: 'The simulator', link: '/reference/simulator' },
  { text: 'Engine versions', link: '/reference/engine-versions' },
];

export const benchmarks: SidebarItem[] = [
  { text: 'Overview', link: '/benchmarks/' },
  { text: 'GPU loops and admission', link: '/benchmarks/gpu' },
  { text: 'Trainable-token yield', link: '/benchmarks/yield' },
];
