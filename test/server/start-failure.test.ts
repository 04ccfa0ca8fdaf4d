/**
 * startServer, called as a library: a start that fails after some listeners bound rejects with a
 * StartFailure (what, why, fix, exit code) and has closed what it opened, so the caller can retry
 * on the same ports and the same database at once.
 */
import net from 'node:net';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { startServer } from '../../src/server/start.js';
import { StartFailure } from '../../src/server/start-failure.js';
import { freePort } from '../support/private-services.js';

function listenOn(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

const close = (server: net.Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('startServer after a failure', () => {
  it('an HTTP port in use: rejects with a StartFailure naming it, and frees the gRPC port it had bound', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'agentport-start-failure-'));
    const [httpPort, grpcPort] = [await freePort(), await freePort()];
    const squatter = await listenOn(httpPort);
    const config = parseConfig(
      { auth: { mode: 'none' }, agents: [{ id: 'echo', builtin: 'echo' }], server: { host: '127.0.0.1', port: httpPort, logLevel: 'silent', dataDir, grpc: { port: grpcPort } } },
      { env: {}, cwd: dataDir },
    );
    try {
      const failure = await startServer(config).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(StartFailure);
      expect(failure).toMatchObject({ subject: `the HTTP port ${httpPort} on 127.0.0.1`, problem: 'is already in use by another process', kind: 'environment', exitCode: 1 });
      expect((failure as StartFailure).fix).toContain('--port');
      // The gRPC listener was up before HTTP failed; it is closed, not left behind.
      await close(await listenOn(grpcPort));
    } finally {
      await close(squatter);
    }
    // And the database was closed too: the same config starts now that the port is free.
    const server = await startServer(config);
    await server.close();
  });

  it('both the HTTP and the gRPC port in use: one StartFailure names both (not one per restart)', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'agentport-start-failure-'));
    const [httpPort, grpcPort] = [await freePort(), await freePort()];
    const squatters = [await listenOn(httpPort), await listenOn(grpcPort)];
    const config = parseConfig(
      { auth: { mode: 'none' }, agents: [{ id: 'echo', builtin: 'echo' }], server: { host: '127.0.0.1', port: httpPort, logLevel: 'silent', dataDir, grpc: { port: grpcPort } } },
      { env: {}, cwd: dataDir },
    );
    try {
      const failure = await startServer(config).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(StartFailure);
      expect(failure).toMatchObject({ subject: `the HTTP port ${httpPort} on 127.0.0.1 and the gRPC port ${grpcPort} on 127.0.0.1`, problem: 'are already in use by other processes', exitCode: 1 });
      expect((failure as StartFailure).fix).toContain('--port (server.port) and --grpc-port (server.grpc.port)');
    } finally {
      for (const s of squatters) await close(s);
    }
  });
});
