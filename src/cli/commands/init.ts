/** `agentport init [dir]`: a new TypeScript agent project that `npm install && npm start` serves. */
import path from 'node:path';
import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { isTemplate, PACKAGE_ROOT, scaffold, ScaffoldError, TEMPLATES } from '../init/scaffold.js';

interface InitOptions {
  template: string;
  agentport?: string;
}

const INIT_HELP = `
Templates:
${Object.entries(TEMPLATES)
  .map(([name, what]) => `  ${name.padEnd(16)}${what}`)
  .join('\n')}

The project depends on this copy of agentport (file:${PACKAGE_ROOT.replace(/[\\/]$/, '')}) unless
--agentport names another spec (a tarball from npm pack, a git URL; once published,
npm:agentport-server@^0.1.0). The name "agentport" on the npm registry belongs to an unrelated
package, so a bare version would install that one (docs/decisions/0040-publishable-package-name.md).

Examples:
  $ agentport init my-agent
  $ agentport init my-agent --template streaming
  $ agentport init my-assistant --template llm
  $ agentport init my-agent --agentport file:./agentport-0.1.0.tgz
`;

export function registerInit(program: Command, io: CliIO): void {
  program
    .command('init')
    .description('create a TypeScript agent project: an agent, agentport.yaml, a test, a README')
    .argument('[dir]', 'the folder to create (default: the current folder, when empty)', '.')
    .option('-t, --template <name>', `starting point: ${Object.keys(TEMPLATES).join(' | ')}`, 'echo')
    .option('--agentport <spec>', 'the agentport dependency in package.json (default: file: this copy; a relative file: path is taken from here)')
    .addHelpText('after', INIT_HELP)
    .action(async (dir: string, options: InitOptions) => {
      if (!isTemplate(options.template)) {
        io.stderr(`--template: one of ${Object.keys(TEMPLATES).join(', ')} (got ${JSON.stringify(options.template)})\n`);
        io.exit(2);
        return;
      }
      const target = path.resolve(io.cwd(), dir);
      // A relative file: spec is meant from here, not from the new project's folder.
      const given = options.agentport?.startsWith('file:') && !path.isAbsolute(options.agentport.slice(5)) ? `file:${path.resolve(io.cwd(), options.agentport.slice(5))}` : options.agentport;
      const agentport = given ?? `file:${PACKAGE_ROOT.replace(/[\\/]$/, '')}`;
      try {
        const made = await scaffold({ dir: target, template: options.template, agentport });
        const relative = path.relative(io.cwd(), target);
        const cd = relative.startsWith('..') ? target : relative;
        io.stdout(
          [
            `Created ${made.name} (${options.template}) in ${target}:`,
            ...made.files.map((f) => `  ${f}`),
            '',
            `agentport: ${agentport}`,
            '',
            'Next:',
            ...(cd ? [`  cd ${cd.includes(' ') ? JSON.stringify(cd) : cd}`] : []),
            '  npm install',
            `  npm start        # serves the agent '${made.agentId}' on http://127.0.0.1:8080`,
            '  npm run dev      # the same, reloading the agent on every save',
            '  npm test         # starts the server and talks to the agent',
            '',
          ].join('\n'),
        );
      } catch (error) {
        if (!(error instanceof ScaffoldError)) throw error;
        io.stderr(`agentport init: ${error.message}\n`);
        io.exit(2);
      }
    });
}
