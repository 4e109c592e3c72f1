// The command-line reference, generated from polar's commander program (src/cli/main.ts createProgram): one
// page per top-level command, one section per subcommand, every option with the text `--help` prints
// (commander's own Help methods, so the page and `polar <command> --help` say the same thing). Nothing is
// executed: registering a command only declares it; its action is imported when it runs.
import { type Argument, type Command, Help, type Option } from 'commander';
import { codeSpan, inlineText, table } from './markdown-text.js';

export interface CliPage {
  /** File name under docs/reference/cli/ without `.md` (the top-level command's name). */
  slug: string;
  /** `polar rollout` */
  title: string;
  markdown: string;
  /** Every command path the page documents, with its anchor: `['runs', '']`, `['runs show', 'show']`. */
  sections: { path: string; anchor: string }[];
}

export interface CliReference {
  index: string;
  pages: CliPage[];
}

/** The guide or concept page that explains a command, relative to docs/reference/cli/ (checked by the dead-link check). */
export type GuideLinks = Readonly<Record<string, { text: string; link: string }>>;

const GENERATED_NOTE = '<!-- Generated at build time from the commander definitions in src/cli by docs/.vitepress/generate/cli-reference.ts: edit the command, not this page. -->';

const help = new Help();

/** Subcommands a user can run (commander's implicit `help` command left out: every group has it). */
function subcommandsOf(command: Command): Command[] {
  return help.visibleCommands(command).filter((sub) => sub.name() !== 'help');
}

/** Options of a command, without `-h, --help` (every command has it; the index says so once). */
function optionsOf(command: Command): Option[] {
  return help.visibleOptions(command).filter((option) => option.long !== '--help');
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at !== null; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

function optionAnchor(prefix: string, option: Option): string {
  const name = (option.long ?? option.short ?? option.flags).replace(/^-+/, '');
  return `${prefix}${prefix ? '-' : ''}${name}`;
}

function optionsTable(command: Command, anchorPrefix: string): string {
  const rows = optionsOf(command).map((option) => [
    `<span id="${optionAnchor(anchorPrefix, option)}"></span>${codeSpan(help.optionTerm(option), { inTable: true })}`,
    inlineText(help.optionDescription(option), { inTable: true }),
  ]);
  return rows.length === 0 ? 'No options besides `-h, --help`.' : table(['Option', 'Description'], rows);
}

function argumentsTable(command: Command): string | undefined {
  const args: readonly Argument[] = help.visibleArguments(command);
  if (args.length === 0) return undefined;
  return table(
    ['Argument', 'Description'],
    args.map((argument) => [codeSpan(help.argumentTerm(argument), { inTable: true }), inlineText(help.argumentDescription(argument) || '', { inTable: true })]),
  );
}

/** One command's section: description, usage, arguments, options; subcommands as their own sections below. */
function commandSection(command: Command, level: number, anchor: string, sections: CliPage['sections']): string[] {
  const path = commandPath(command);
  sections.push({ path: path.replace(/^polar /, ''), anchor });
  const heading = '#'.repeat(level);
  const lines: string[] = [level === 1 ? `${heading} ${path}` : `${heading} ${path} {#${anchor}}`, '', inlineText(help.commandDescription(command)), ''];
  lines.push('```sh', help.commandUsage(command), '```', '');
  const subcommands = subcommandsOf(command);
  if (subcommands.length > 0) {
    lines.push(
      table(
        ['Subcommand', 'What it does'],
        subcommands.map((sub) => {
          const subAnchor = anchor ? `${anchor}-${sub.name()}` : sub.name();
          return [`[${codeSpan(help.subcommandTerm(sub), { inTable: true })}](#${subAnchor})`, inlineText(help.subcommandDescription(sub), { inTable: true })];
        }),
      ),
      '',
    );
  }
  const args = argumentsTable(command);
  if (args !== undefined) lines.push(args, '');
  if (optionsOf(command).length > 0 || subcommands.length === 0) lines.push(optionsTable(command, anchor), '');
  for (const sub of subcommands) {
    lines.push(...commandSection(sub, Math.min(level + 1, 3), anchor ? `${anchor}-${sub.name()}` : sub.name(), sections));
  }
  return lines;
}

export function renderCliReference(program: Command, guides: GuideLinks): CliReference {
  const pages = subcommandsOf(program).map((command): CliPage => {
    const sections: CliPage['sections'] = [];
    const body = commandSection(command, 1, '', sections);
    const guide = guides[command.name()];
    // The guide link goes right under the title and description.
    if (guide !== undefined) body.splice(4, 0, `Explained in: [${guide.text}](${guide.link})`, '');
    const markdown = ['---', `title: ${commandPath(command)}`, 'outline: [2, 3]', '---', '', GENERATED_NOTE, '', ...body].join('\n');
    return { slug: command.name(), title: commandPath(command), markdown: `${markdown.trimEnd()}\n`, sections };
  });
  return { index: renderIndex(program, pages), pages };
}

function renderIndex(program: Command, pages: CliPage[]): string {
  const rows: string[][] = [];
  for (const page of pages) {
    for (const section of page.sections) {
      const command = findCommand(program, section.path);
      rows.push([`[${codeSpan(`polar ${section.path}`, { inTable: true })}](./${page.slug}.md${section.anchor ? `#${section.anchor}` : ''})`, inlineText(help.subcommandDescription(command), { inTable: true })]);
    }
  }
  return [
    '---',
    'title: Command-line reference',
    '---',
    '',
    GENERATED_NOTE,
    '',
    '# Command-line reference',
    '',
    inlineText(help.commandDescription(program)) + '.',
    '',
    '```sh',
    help.commandUsage(program),
    '```',
    '',
    'Every page here is generated from the command definitions when the site is built, with the same text',
    '`polar <command> --help` prints. Every command also takes `-h, --help`; `polar --version` (`-V`) prints the version.',
    'From a checkout, run `npx polar <args>` or `npm run polar -- <args>`.',
    '',
    table(['Command', 'What it does'], rows),
    '',
  ].join('\n');
}

function findCommand(program: Command, path: string): Command {
  let at = program;
  for (const name of path.split(' ')) {
    const next = at.commands.find((command) => command.name() === name);
    if (next === undefined) throw new Error(`no command ${path}`);
    at = next;
  }
  return at;
}
