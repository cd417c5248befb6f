/**
 * Discord's OpenAPI 3.1 spec (test/fixtures/discord/openapi.json) as request and response
 * validators. OpenAPI 3.1 schemas are JSON Schema 2020-12, so Ajv2020 compiles them; the
 * spec's `#/components/schemas/…` references resolve inside the same document.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const SPEC_PATH = new URL('../../fixtures/discord/openapi.json', import.meta.url);
const SPEC_ID = 'https://discord.com/openapi.json';

interface MediaType {
  schema?: object;
}
interface Operation {
  operationId?: string;
  requestBody?: { content: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType>; $ref?: string }>;
}
interface Spec {
  paths: Record<string, Record<string, Operation>>;
  components: object;
}

export interface OperationMatch {
  template: string;
  operationId: string;
  operation: Operation;
}

export interface SpecValidator {
  /** The spec operation a request goes to, e.g. POST /channels/1/messages → create_message. */
  operation(method: string, path: string): OperationMatch | undefined;
  /** Problems with a request body ([] when valid); `multipart` bodies are payload_json plus `files[n]` fields. */
  checkRequest(method: string, path: string, body: unknown, kind: 'json' | 'multipart'): string[];
  /** Problems with a 2xx JSON response body ([] when valid or when the spec declares no body). */
  checkResponse(method: string, path: string, status: number, body: unknown): string[];
}

let shared: SpecValidator | undefined;

/** One compiled spec per process: compiling costs a few hundred milliseconds. */
export function specValidator(): SpecValidator {
  shared ??= createSpecValidator();
  return shared;
}

function createSpecValidator(): SpecValidator {
  const spec = JSON.parse(readFileSync(SPEC_PATH, 'utf8')) as Spec;
  // strict: false lets OpenAPI's own keywords (discriminator, x-discord-union) pass unread.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormatsModule.default(ajv);
  ajv.addFormat('snowflake', /^(0|[1-9][0-9]*)$/);
  ajv.addFormat('nonce', true);
  ajv.addSchema({ $id: SPEC_ID, components: spec.components });

  // Literal segments (`@original`, `@me`) must win over `{message_id}`: fewest parameters first.
  const templates = Object.keys(spec.paths)
    .map((template) => ({
      template,
      params: (template.match(/\{/g) ?? []).length,
      pattern: new RegExp(
        `^${template
          .split('/')
          .map((seg) => (/^\{.+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&')))
          .join('/')}$`,
      ),
    }))
    .sort((a, b) => a.params - b.params);

  const compiled = new Map<object, ValidateFunction>();
  const compile = (schema: object) => {
    let fn = compiled.get(schema);
    if (!fn) {
      fn = ajv.compile(rebase(schema));
      compiled.set(schema, fn);
    }
    return fn;
  };
  const problems = (fn: ValidateFunction, value: unknown) =>
    fn(value)
      ? []
      : (fn.errors ?? []).map(
          (e) =>
            `${e.instancePath || '(body)'} ${e.message ?? 'is invalid'}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
        );

  const operation = (method: string, path: string): OperationMatch | undefined => {
    const clean = path.split('?')[0]!;
    for (const t of templates) {
      const op = spec.paths[t.template]?.[method.toLowerCase()];
      if (op && t.pattern.test(clean))
        return { template: t.template, operationId: op.operationId ?? t.template, operation: op };
    }
    return undefined;
  };

  return {
    operation,
    checkRequest(method, path, body, kind) {
      const match = operation(method, path);
      if (!match) return [`no operation ${method} ${path} in the spec`];
      const content = match.operation.requestBody?.content;
      if (!content) return body === undefined || isEmpty(body) ? [] : [`${match.operationId} takes no body`];
      const schema = (kind === 'multipart' ? content['multipart/form-data'] : content['application/json'])?.schema;
      if (!schema) return [`${match.operationId} accepts no ${kind} body`];
      return problems(compile(schema), body);
    },
    checkResponse(method, path, status, body) {
      const match = operation(method, path);
      if (!match || status === 204) return [];
      const schema = match.operation.responses?.[String(status)]?.content?.['application/json']?.schema;
      return schema ? problems(compile(schema), body) : [];
    },
  };
}

const isEmpty = (body: unknown) => typeof body === 'object' && body !== null && Object.keys(body).length === 0;

/** `#/components/x` → `<spec id>#/components/x`, so a schema compiled on its own resolves into the spec. */
function rebase(schema: object): object {
  return JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/', `"$ref":"${SPEC_ID}#/`)) as object;
}
