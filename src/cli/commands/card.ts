/**
 * `agentport card <url>`: an agent's card, readable: interfaces (the one this client would use
 * marked *), capabilities, security, skills; --jwks checks its signature; --json prints it.
 */
import type { Command } from 'commander';
import { A2AClient, type AgentInterface, CardResolver, verifyCardSignature } from '../../client/index.js';
import { clientOptions, CONNECTION_HELP, checkUrl, withConnectionOptions, type ConnectionFlags } from '../a2a/connection.js';
import { EXIT } from '../a2a/exit-codes.js';
import { cardSummary } from '../a2a/render.js';
import type { CliIO } from '../io.js';
import { failed } from './send.js';

interface CardFlags extends ConnectionFlags {
  jwks?: string;
  extended?: boolean;
}

const CARD_HELP = `
Examples:
  $ agentport card http://127.0.0.1:8080/a2a/echo
  $ agentport card http://127.0.0.1:8080/a2a/echo --jwks http://127.0.0.1:8080/.well-known/jwks.json
  $ agentport card https://agents.example.com --extended --api-key $KEY --json | jq .skills

Exit codes: 0 success, 4 card not found or unreachable, 6 not authenticated (--extended),
8 the signature does not verify with --jwks (docs/cli.md).
${CONNECTION_HELP}
`;

export function registerCard(program: Command, io: CliIO): void {
  withConnectionOptions(program.command('card').description("show an agent's card").argument('<url>', "the agent's URL or its card URL"))
    .option('--jwks <url>', 'require a valid signature by a key of this JWKS')
    .option('--extended', 'fetch the extended card (needs credentials)')
    .addHelpText('after', CARD_HELP)
    .action(async (url: string, f: CardFlags) => {
      let client: A2AClient | undefined;
      let code: number = EXIT.ok;
      try {
        checkUrl(url);
        const resolved = await new CardResolver().resolve(url);
        if (f.jwks) await verifyCardSignature(resolved.card, resolved.url, { jwks: f.jwks });
        let card = resolved.card;
        let chosen: AgentInterface | undefined;
        try {
          client = A2AClient.fromCard(card, clientOptions(f, io));
          chosen = client.currentInterface;
        } catch (err) {
          if (f.extended) throw err;
        }
        if (f.extended) card = await client!.getExtendedAgentCard();
        if (f.json) io.stdout(`${JSON.stringify(card, null, 2)}\n`);
        else {
          io.stdout(`card     ${resolved.url}${resolved.cardVersion === '0.3' ? '  (v0.3 card)' : ''}${f.extended ? '  (extended)' : ''}\n`);
          if (f.jwks) io.stdout(`verified signature by a key of ${f.jwks}\n`);
          io.stdout(`\n${cardSummary(card, chosen)}`);
        }
      } catch (err) {
        code = failed(io, err, 'card');
      } finally {
        client?.close();
      }
      if (code !== 0) io.exit(code);
    });
}
