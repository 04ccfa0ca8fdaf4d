/**
 * The deployment files that describe something (deploy/): checked against their schemas and
 * against the server's own configuration parser, since no container engine, Kubernetes or Helm
 * runs on the test machines. docs/deploy.md, "What is verified", lists what this does not cover.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseConfig } from '../../src/config/index.js';
import { ROOT } from '../support/cluster.js';
import { blockProblems, definedNames, includedNames, parseSkeleton, valuesPaths } from './helm-skeleton.js';

const DEPLOY = path.join(ROOT, 'deploy');
const CHART = path.join(DEPLOY, 'helm/agentport');
const read = (file: string) => readFileSync(file, 'utf8');
const yamlFile = (file: string) => parseYaml(read(file), { merge: true }) as any;

/** JSON Schema draft-07 validation; strict off because both schemas use annotations ajv does not know (`deprecated`). */
function validator(schema: { $schema?: string }) {
  const ajv = new Ajv({ strict: false, allErrors: true });
  // compose-spec names draft-07 by its https address, which ajv registers under http://…#.
  const validate = ajv.compile({ ...schema, $schema: 'http://json-schema.org/draft-07/schema#' });
  return (data: unknown) => (validate(data) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`));
}

const composeSchema = JSON.parse(read(path.join(ROOT, 'test/deploy/fixtures/compose-spec.json')));

describe('deploy/compose.yaml', () => {
  const compose = yamlFile(path.join(DEPLOY, 'compose.yaml'));
  const validateCompose = validator(composeSchema);

  it('is valid against the compose-spec JSON schema', () => {
    expect(validateCompose(compose)).toEqual([]);
  });

  it('the schema check bites: a misspelt key is rejected', () => {
    const broken = structuredClone(compose);
    broken.services.agentport.deploy = { replica: 3 };
    expect(validateCompose(broken).join('\n')).toContain('additional properties');
  });

  it('runs three replicas on PostgreSQL and Redis behind nginx, after the migrations', () => {
    const s = compose.services;
    expect(Object.keys(s).sort()).toEqual(['agentport', 'migrate', 'nginx', 'postgres', 'redis']);
    expect(s.agentport.deploy.replicas).toBe(3);
    expect(s.agentport.depends_on).toEqual({
      migrate: { condition: 'service_completed_successfully' },
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
    expect(s.migrate.command).toEqual(['db', 'migrate']);
    expect(s.nginx.depends_on.agentport.condition).toBe('service_healthy');
    // No port of a replica is published: clients go through nginx.
    expect(s.agentport.ports).toBeUndefined();
    expect(s.nginx.configs).toEqual([{ source: 'nginx', target: '/etc/nginx/nginx.conf' }]);
    expect(read(path.join(DEPLOY, compose.configs.nginx.file))).toContain('proxy_buffering off;');
    expect(path.resolve(DEPLOY, s.migrate.build.context, s.migrate.build.dockerfile)).toBe(path.join(DEPLOY, 'Dockerfile'));
    // Redis holds nothing durable (docs/deploy.md).
    expect(s.redis.command).toEqual(['redis-server', '--save', '', '--appendonly', 'no']);
  });

  it('its agentport.yaml is a valid distributed configuration with the environment compose gives the replicas', () => {
    const env = compose.services.agentport.environment as Record<string, string>;
    // Every ${VAR} of the config comes from compose's environment, or is HOSTNAME, which Docker sets.
    const used = [...JSON.stringify(yamlFile(path.join(DEPLOY, 'agentport.yaml'))).matchAll(/\$\{([A-Z_]+)/g)].map((m) => m[1]!);
    expect(used.length).toBeGreaterThan(2);
    for (const name of used) expect(name === 'HOSTNAME' || name in env, `${name} is not in the replicas' environment`).toBe(true);
    expect(compose.configs.agentport.file).toBe('./agentport.yaml');

    const config = parseConfig(yamlFile(path.join(DEPLOY, 'agentport.yaml')), {
      env: { PGPASSWORD: 'pw', AGENTPORT_ADMIN_KEY: 'k'.repeat(24), HOSTNAME: '3f2a9c1b7d4e' },
      cwd: DEPLOY,
    });
    expect(config.storage).toMatchObject({ driver: 'postgres', url: 'postgres://agentport:pw@postgres:5432/agentport', migrate: false });
    expect(config.bus).toMatchObject({ driver: 'redis', url: 'redis://redis:6379' });
    expect(config.cluster.replicaId).toBe('3f2a9c1b7d4e');
    expect(config.server.port).toBe(8080);
    expect(read(path.join(DEPLOY, 'nginx/nginx.conf'))).toContain(`server agentport:${config.server.port};`);
  });
});

describe('deploy/Dockerfile', () => {
  const text = read(path.join(DEPLOY, 'Dockerfile'));
  const instructions = text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'));
  const lastFrom = instructions.map((l) => l.startsWith('FROM ')).lastIndexOf(true);
  const final = instructions.slice(lastFrom);

  it('is multi-stage; the final stage runs as the non-root `node` user with the production dependencies only', () => {
    // deps (npm ci), production-packages (pruned, SBOM), build (console, TypeScript), the runtime.
    expect(instructions.filter((l) => l.startsWith('FROM ')).map((l) => l.split(/\s+/).slice(1).join(' '))).toEqual(['${NODE_IMAGE} AS deps', 'deps AS production-packages', 'deps AS build', '${NODE_IMAGE} AS runtime']);
    expect(final.filter((l) => l.startsWith('USER '))).toEqual(['USER node']);
    // The packages shipped are the pruned tree of their own stage.
    const stage = (name: string) => {
      const from = instructions.findIndex((l) => l.startsWith('FROM ') && l.endsWith(` AS ${name}`));
      const next = instructions.findIndex((l, i) => i > from && l.startsWith('FROM '));
      return instructions.slice(from, next);
    };
    expect(stage('production-packages').join('\n')).toContain('npm prune --omit=dev');
    // The final stage gets built artefacts, never a build stage's whole tree (sources, dev tools).
    const copiesFrom = (name: string) => final.filter((l) => l.includes(`--from=${name} `)).map((l) => l.split(/\s+/)[2]);
    expect(copiesFrom('build').sort()).toEqual(['/src/bin', '/src/dist', '/src/proto']);
    expect(copiesFrom('production-packages').sort()).toEqual(['/src/node_modules', '/src/package.json', '/src/sbom.cdx.json']);
    expect(final.filter((l) => l.includes('--from=')).length).toBe(6);
  });

  it('declares the data dir as a volume, the same dir the entrypoint hands to serve, and a /readyz healthcheck', () => {
    expect(final).toContain('VOLUME ["/var/lib/agentport"]');
    expect(text).toContain('AGENTPORT_DATA_DIR=/var/lib/agentport');
    expect(final.find((l) => l.startsWith('HEALTHCHECK '))).toContain('CMD ["node", "/app/deploy/healthcheck.mjs"]');
    expect(read(path.join(DEPLOY, 'healthcheck.mjs'))).toContain('/readyz');
    expect(final).toContain('ENTRYPOINT ["/app/deploy/entrypoint.sh"]');
  });

  it('copies only files that exist and that its ignore file lets into the build context', () => {
    const ignore = read(path.join(DEPLOY, 'Dockerfile.dockerignore'))
      .split('\n')
      .filter((l) => l.startsWith('!'))
      .map((l) => l.slice(1).replace(/\/$/, ''));
    const sources = instructions.filter((l) => l.startsWith('COPY ') && !l.includes('--from=')).flatMap((l) => l.split(/\s+/).slice(1, -1));
    expect(sources.length).toBeGreaterThan(5);
    for (const src of sources) {
      expect(ignore, `${src} is excluded from the build context`).toContain(src);
      expect(() => readFileSync(path.join(ROOT, src)), `${src} does not exist`).not.toThrow(/ENOENT/);
    }
  });
});

describe('deploy/helm/agentport', () => {
  const values = yamlFile(path.join(CHART, 'values.yaml'));
  const validateValues = validator(JSON.parse(read(path.join(CHART, 'values.schema.json'))));
  const templateDir = path.join(CHART, 'templates');
  const templates = Object.fromEntries(readdirSync(templateDir).map((f) => [f, read(path.join(templateDir, f))]));
  const manifests = Object.keys(templates).filter((f) => f.endsWith('.yaml'));

  it('Chart.yaml is a v2 application chart', () => {
    expect(yamlFile(path.join(CHART, 'Chart.yaml'))).toMatchObject({ apiVersion: 'v2', name: 'agentport', type: 'application' });
  });

  it('values.yaml is valid against values.schema.json, and the schema rejects bad values', () => {
    expect(validateValues(values)).toEqual([]);
    const bad = structuredClone(values);
    bad.replicaCount = 'three';
    bad.config.storage.driver = 'sqlite';
    bad.autoscaling.maxReplica = 5;
    const errors = validateValues(bad).join('\n');
    expect(errors).toContain('/replicaCount must be integer');
    expect(errors).toContain('/config/storage/driver must be equal to constant');
    expect(errors).toContain('must NOT have additional properties');
  });

  it('values.config (the ConfigMap`s agentport.yaml) is a valid distributed configuration', () => {
    const config = parseConfig(values.config, { env: { PGPASSWORD: 'pw', AGENTPORT_ADMIN_KEY: 'k'.repeat(24), POD_NAME: 'agentport-7d9f-abcde' }, cwd: DEPLOY });
    expect(config.storage).toMatchObject({ driver: 'postgres', migrate: false });
    expect(config.bus).toMatchObject({ driver: 'redis' });
    expect(config.cluster.replicaId).toBe('agentport-7d9f-abcde');
    // The Secret provides every ${VAR} of the config except POD_NAME, which the pod spec sets.
    const used = [...JSON.stringify(values.config).matchAll(/\$\{([A-Z_]+)/g)].map((m) => m[1]!);
    for (const name of used) expect(name === 'POD_NAME' || name in values.secret.values, name).toBe(true);
  });

  it('every template has balanced blocks, reads only keys values.yaml defines, and includes only defined names', () => {
    const defined = Object.values(templates).flatMap(definedNames);
    for (const [file, text] of Object.entries(templates)) {
      expect(blockProblems(text), file).toEqual([]);
      for (const p of valuesPaths(text)) {
        const found = p.split('.').reduce<any>((v, k) => (v === undefined || v === null ? undefined : v[k]), values);
        expect(found, `${file}: .Values.${p} is not in values.yaml`).not.toBeUndefined();
      }
      for (const name of includedNames(text)) expect(defined, `${file}: include "${name}"`).toContain(name);
    }
  });

  it('each manifest template is YAML of the expected kind once template actions are replaced by placeholders', () => {
    const kinds: Record<string, string> = {};
    for (const file of manifests) {
      const { docs, errors } = parseSkeleton(templates[file]!);
      expect(errors, file).toEqual([]);
      expect(docs.length, file).toBe(1);
      kinds[file] = `${(docs[0] as any).apiVersion} ${(docs[0] as any).kind}`;
    }
    expect(kinds).toEqual({
      'configmap.yaml': 'v1 ConfigMap',
      'deployment.yaml': 'apps/v1 Deployment',
      'hpa.yaml': 'autoscaling/v2 HorizontalPodAutoscaler',
      'pdb.yaml': 'policy/v1 PodDisruptionBudget',
      'secret.yaml': 'v1 Secret',
      'service.yaml': 'v1 Service',
    });
  });

  it('the Deployment probes /readyz (readiness) and /healthz (liveness) on its http port, mounts the config where the entrypoint reads it, and runs non-root', () => {
    const deployment = parseSkeleton(templates['deployment.yaml']!).docs[0] as any;
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container.ports.map((p: any) => p.name)).toEqual(['http', 'grpc']);
    expect(container.volumeMounts).toContainEqual({ name: 'config', mountPath: '/etc/agentport', readOnly: true });
    expect(read(path.join(DEPLOY, 'entrypoint.sh'))).toContain('AGENTPORT_CONFIG=/etc/agentport/agentport.yaml');
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(pod.initContainers[0].args).toEqual(['db', 'migrate']);
    // The ConfigMap's key is the file name the mount produces.
    const configMap = parseSkeleton(templates['configmap.yaml']!).docs[0] as any;
    expect(Object.keys(configMap.data)).toEqual(['agentport.yaml']);
    // The Service sends traffic to the container ports by name.
    const service = parseSkeleton(templates['service.yaml']!).docs[0] as any;
    expect(service.spec.ports.map((p: any) => p.targetPort)).toEqual(['http', 'grpc']);
    const hpa = parseSkeleton(templates['hpa.yaml']!).docs[0] as any;
    expect(hpa.spec.scaleTargetRef).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment' });
  });
});

describe('deploy/systemd/agentport.service', () => {
  it('passes `systemd-analyze verify` with no warnings (node at this machine`s path)', async () => {
    const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
    if (analyze.error) throw new Error('systemd-analyze is missing: install systemd to check deploy/systemd/agentport.service');
    const unit = read(path.join(DEPLOY, 'systemd/agentport.service'));
    expect(unit).toContain('ExecStart=/usr/bin/node --max-semi-space-size=64 /opt/agentport/bin/agentport.js serve --data-dir /var/lib/agentport');
    const dir = await mkdtemp(path.join(tmpdir(), 'agentport-unit-'));
    try {
      const copy = path.join(dir, 'agentport.service');
      await writeFile(copy, unit.replace('/usr/bin/node', process.execPath));
      const r = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr.trim()).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
