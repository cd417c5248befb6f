import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { blobMarker, expandBlobs } from '../../src/net/inline-blobs.js';
import { createNodeRequester } from '../../src/net/node-request.js';

describe('inline blobs: base64 written into a request body in slices', () => {
  it('sends the body with each marker replaced by its bytes in base64, with the right Content-Length', async () => {
    const image = randomBytes(7 * 1024 * 1024 + 1); // more than two slices, not a multiple of 3
    const small = randomBytes(10);
    const body = JSON.stringify({
      a: `data:image/png;base64,${blobMarker(image)}`,
      b: [`x${blobMarker(small)}y`],
      c: 'é',
    });
    let received = '';
    let declared = '';
    const server = createServer((req, res) => {
      declared = req.headers['content-length'] ?? '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (received += c));
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const res = await createNodeRequester()(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`), {
      method: 'POST',
      body,
    });
    res.resume();
    await new Promise((r) => res.on('end', r));
    server.close();
    const expected = JSON.stringify({
      a: `data:image/png;base64,${image.toString('base64')}`,
      b: [`x${small.toString('base64')}y`],
      c: 'é',
    });
    expect(received === expected).toBe(true);
    expect(Number(declared)).toBe(Buffer.byteLength(expected));
  });

  it('leaves a body without markers (or with unknown ones) as it is', () => {
    expect(expandBlobs('{"a":"plain"}')).toBeUndefined();
    expect(expandBlobs('{"a":"sb-blob-00000000-0000-0000-0000-000000000000"}')).toBeUndefined();
  });
});
