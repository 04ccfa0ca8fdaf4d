/**
 * An agent that could not be loaded or registered at start, as a StartFailure that names the agent,
 * what it is (its module, its remote), what went wrong and where to fix it.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError, type AgentConfig } from '../config/index.js';
import { InvalidAgentModuleError } from '../agents/load-agent.js';
import { AgentCardSpecError } from '../protocol/a2a/card/build-card.js';
import { StartFailure, errnoCode, errorText, oneLine } from './start-failure.js';

function subjectOf(agent: AgentConfig): string {
  if (agent.module !== undefined) return `agent '${agent.id}': module ${agent.module}`;
  if (agent.builtin !== undefined) return `agent '${agent.id}' (built-in ${agent.builtin})`;
  if (agent.mcp !== undefined) return `agent '${agent.id}' (MCP server ${agent.mcp.url})`;
  return `agent '${agent.id}' (remote A2A agent ${agent.remote?.cardUrl ?? ''})`;
}

/** The first stack frame inside the agent's module: where its own code threw. */
function frameIn(modulePath: string, error: unknown): string | undefined {
  const stack = error instanceof Error ? (error.stack ?? '') : '';
  const url = pathToFileURL(modulePath).href;
  for (const line of stack.split('\n')) {
    const at = line.indexOf(url);
    if (at >= 0) {
      const location = /^(file:\/\/\S+?):(\d+):(\d+)/.exec(line.slice(at).replace(/\)$/, ''));
      if (location) return `${fileURLToPath(location[1]!)}:${location[2]}:${location[3]}`;
    }
  }
  return undefined;
}

export function agentLoadFailure(agent: AgentConfig, index: number, error: unknown): StartFailure {
  if (error instanceof StartFailure) return error;
  const subject = subjectOf(agent);
  const key = `agents[${index}]`;
  const text = oneLine(errorText(error));
  const code = errnoCode(error);

  if (error instanceof InvalidAgentModuleError) {
    return new StartFailure(subject, error.reason, `export defineAgent({ card: { name, description, skills }, execute }) as default or as 'agent' from the module, or correct ${key}.module`, 'configuration', {
      cause: error,
    });
  }
  if (error instanceof AgentCardSpecError) {
    return new StartFailure(
      subject,
      `has an invalid card: ${error.field} ${text.replace(/^agent card \S+: /, '')}`,
      `set card.${error.field} in the agent's definition, or under ${key}.card in the config`,
      'configuration',
      { cause: error },
    );
  }
  if (error instanceof ConfigError) {
    return new StartFailure(subject, `has invalid options:\n${error.message}`, `correct ${key} in the config`, 'configuration', { cause: error });
  }
  if (agent.module !== undefined) {
    if (error instanceof SyntaxError) {
      return new StartFailure(subject, `has a syntax error (${text})`, `correct it; \`node --check ${agent.module}\` shows the line`, 'configuration', { cause: error });
    }
    if (code === 'ERR_UNKNOWN_FILE_EXTENSION') {
      return new StartFailure(subject, `is not a file Node can import (${text})`, `point ${key}.module at the compiled .js or .mjs file`, 'configuration', { cause: error });
    }
    if (code === 'ERR_MODULE_NOT_FOUND') {
      if (text.includes(pathToFileURL(agent.module).href) || text.includes(`'${agent.module}'`)) {
        return new StartFailure(subject, 'was not found', `correct ${key}.module (relative paths start at the config file's folder)`, 'configuration', { cause: error });
      }
      const missing = /Cannot find (?:package|module) '([^']+)'/.exec(text)?.[1];
      return new StartFailure(
        subject,
        `imports ${missing ? `'${missing}'` : 'a module'}, which cannot be found (${text})`,
        missing && !missing.startsWith('/') ? `install it where the module can resolve it (npm install ${missing} in the module's project), or correct the import` : 'correct the import, or restore the missing file',
        'environment',
        { cause: error },
      );
    }
    const where = frameIn(agent.module, error);
    return new StartFailure(subject, `threw while it was loaded: ${text}${where ? ` (at ${where})` : ''}`, `correct the module's code; \`node ${agent.module}\` reproduces errors thrown at import`, 'environment', {
      cause: error,
    });
  }
  if (agent.mcp !== undefined || agent.remote !== undefined) {
    const urlKey = agent.mcp !== undefined ? `${key}.mcp.url` : `${key}.remote.cardUrl`;
    return new StartFailure(subject, `could not be reached or read (${text})`, `check that it is up and reachable from here, and ${urlKey}`, 'environment', { cause: error });
  }
  return new StartFailure(subject, `could not be started (${text})`, `check ${key} in the config`, 'environment', { cause: error });
}
