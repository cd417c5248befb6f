/**
 * A loopback OpenTelemetry collector: accepts OTLP/HTTP trace exports (`POST /v1/traces`) in
 * both encodings the SDK sends, `application/json` and `application/x-protobuf`, and keeps the
 * spans, decoded into one plain shape for assertions.
 *
 *   const collector = await startOtlpCollector();
 *   // OTEL_EXPORTER_OTLP_ENDPOINT = collector.url, run the code under test, flush the SDK …
 *   const [turn] = collector.spans.filter((s) => s.name === 'invoke_agent switchboard');
 *
 * Protobuf is decoded with the generated OTLP protobuf root that the official
 * `@opentelemetry/otlp-transformer` package shipped (0.57; installed as `otlp-protos`).
 */
import { createRequire } from 'node:module';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  links: { traceId: string; spanId: string; attributes: Record<string, unknown> }[];
  status: { code: number; message: string };
  startMs: number;
  endMs: number;
  resource: Record<string, unknown>;
  /** How it arrived. */
  encoding: 'json' | 'protobuf';
}

export interface OtlpCollector {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT wants it. */
  url: string;
  spans: CollectedSpan[];
  /** Content types of the requests received, in order. */
  contentTypes: string[];
  /** Every byte received, decoded as UTF-8 (to prove a text is absent from the wire). */
  raw(): string;
  close(): Promise<void>;
}

interface ProtoType {
  decode(buf: Uint8Array): unknown;
  toObject(message: unknown, options: { longs: StringConstructor; bytes: StringConstructor }): unknown;
}
const root = createRequire(import.meta.url)('otlp-protos/build/src/generated/root.js') as {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: ProtoType } } } } };
};
const ExportTraceServiceRequest = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

type AnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
};
type KeyValue = { key: string; value?: AnyValue };
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: KeyValue[];
  events?: { name: string; attributes?: KeyValue[] }[];
  links?: { traceId: string; spanId: string; attributes?: KeyValue[] }[];
  status?: { code?: number; message?: string };
}
interface OtlpRequest {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

function value(v: AnyValue | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(value);
  if (v.kvlistValue) return attrs(v.kvlistValue.values);
  return undefined;
}
const attrs = (list: KeyValue[] | undefined): Record<string, unknown> =>
  Object.fromEntries((list ?? []).map((kv) => [kv.key, value(kv.value)]));
/** Ids: hex in OTLP/JSON; base64 once protobuf bytes go through `toObject({ bytes: String })`. */
const hexId = (id: string | undefined, encoding: 'json' | 'protobuf') =>
  !id ? '' : encoding === 'json' ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');

function collect(request: OtlpRequest, encoding: 'json' | 'protobuf'): CollectedSpan[] {
  return (request.resourceSpans ?? []).flatMap((rs) =>
    (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s): CollectedSpan => ({
        traceId: hexId(s.traceId, encoding),
        spanId: hexId(s.spanId, encoding),
        parentSpanId: hexId(s.parentSpanId, encoding),
        name: s.name,
        kind: s.kind ?? 0,
        attributes: attrs(s.attributes),
        events: (s.events ?? []).map((e) => ({ name: e.name, attributes: attrs(e.attributes) })),
        links: (s.links ?? []).map((l) => ({
          traceId: hexId(l.traceId, encoding),
          spanId: hexId(l.spanId, encoding),
          attributes: attrs(l.attributes),
        })),
        status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
        startMs: Number(BigInt(s.startTimeUnixNano) / 1_000_000n),
        endMs: Number(BigInt(s.endTimeUnixNano) / 1_000_000n),
        resource: attrs(rs.resource?.attributes),
        encoding,
      })),
    ),
  );
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: CollectedSpan[] = [];
  const contentTypes: string[] = [];
  const received: Buffer[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const buf = await body(req);
      received.push(buf);
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
      contentTypes.push(type);
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      try {
        if (type === 'application/json') {
          spans.push(...collect(JSON.parse(buf.toString('utf8')) as OtlpRequest, 'json'));
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        } else if (type === 'application/x-protobuf') {
          const decoded = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(buf), {
            longs: String,
            bytes: String,
          }) as OtlpRequest;
          spans.push(...collect(decoded, 'protobuf'));
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        } else {
          res.writeHead(415).end();
        }
      } catch {
        res.writeHead(400).end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    raw: () => Buffer.concat(received).toString('utf8'),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
