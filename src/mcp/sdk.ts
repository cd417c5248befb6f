import type { ErrorCode } from '@modelcontextprotocol/sdk/types.js';

/**
 * The MCP SDK's client side, loaded at its first use: a tenant's server connected or listed, its
 * tools built, an OAuth consent or refresh. Importing it costs a few hundred ms of start-up
 * (docs/performance.md) that a deployment without MCP servers never needs, so nothing imports it
 * at the top of a module; types are imported with `import type` only. test/mcp/sdk-load.test.ts
 * holds this.
 */
async function load() {
  const [client, auth, sse, streamable, types, ajv, authErrors] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/auth.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/validation/ajv'),
    import('@modelcontextprotocol/sdk/server/auth/errors.js'),
  ]);
  return {
    Client: client.Client,
    SSEClientTransport: sse.SSEClientTransport,
    StreamableHTTPClientTransport: streamable.StreamableHTTPClientTransport,
    StreamableHTTPError: streamable.StreamableHTTPError,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    ErrorCode: types.ErrorCode,
    McpError: types.McpError,
    auth: auth.auth,
    refreshAuthorization: auth.refreshAuthorization,
    UnauthorizedError: auth.UnauthorizedError,
    OAuthError: authErrors.OAuthError,
    InvalidGrantError: authErrors.InvalidGrantError,
    InvalidClientError: authErrors.InvalidClientError,
    UnauthorizedClientError: authErrors.UnauthorizedClientError,
    /** One validator for every server's tool schemas (ajv compiles each schema once). */
    validator: new ajv.AjvJsonSchemaValidator(),
  };
}

export type McpSdk = Awaited<ReturnType<typeof load>>;

let loading: Promise<McpSdk> | undefined;
let loaded: McpSdk | undefined;

/** The SDK, imported the first time it is asked for (a failed import is tried again next time). */
export function mcpSdk(): Promise<McpSdk> {
  loading ??= load().then(
    (sdk) => (loaded = sdk),
    (err: unknown) => {
      loading = undefined;
      throw err;
    },
  );
  return loading;
}

type ErrorClassName = {
  [K in keyof McpSdk]: McpSdk[K] extends abstract new (...args: never[]) => Error ? K : never;
}[keyof McpSdk];

/**
 * Whether `err` is one of the SDK's errors. Synchronous: before the SDK is loaded nothing can
 * have thrown one, so the answer is no without loading it.
 */
export function isSdkError<K extends ErrorClassName>(err: unknown, name: K): err is InstanceType<McpSdk[K]> {
  return loaded !== undefined && err instanceof loaded[name];
}

/** Whether `err` is the SDK's `McpError` (a JSON-RPC error from the peer or the SDK) with one of `codes`. */
export function isMcpErrorCode(
  err: unknown,
  ...codes: (keyof typeof ErrorCode)[]
): err is InstanceType<McpSdk['McpError']> {
  const sdk = loaded;
  return (
    sdk !== undefined && err instanceof sdk.McpError && codes.some((c) => err.code === (sdk.ErrorCode[c] as number))
  );
}
