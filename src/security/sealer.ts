import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const FORMAT = 'v1';

export interface Sealer {
  /** Encrypts `plaintext`, bound to `aad` (the row's key): a sealed value copied onto another row does not open. */
  seal(plaintext: string, aad: string): string;
  /** Decrypts a sealed value; throws when the key, the row or the value is wrong. */
  open(sealed: string, aad: string): string;
}

/**
 * Secrets at rest (Slack installations' tokens, MCP servers' headers): AES-256-GCM with a fresh
 * 96-bit nonce per value; the row's key is the associated data, so a secret copied onto another
 * row does not decrypt. `v1:` + base64(nonce | tag | ciphertext).
 */
export function createSealer(hexKey: string, keyName = 'SLACK_TOKEN_ENCRYPTION_KEY'): Sealer {
  const key = Buffer.from(hexKey, 'hex');
  if (key.length !== 32) throw new Error(`${keyName} must be 32 bytes (64 hex characters)`);
  return {
    seal(plaintext, aad) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(aad));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `${FORMAT}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
    },
    open(sealed, aad) {
      const [format, data] = sealed.split(':', 2);
      if (format !== FORMAT || !data) throw new Error(`unknown secret format ${format ?? ''}`);
      const raw = Buffer.from(data, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(aad));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}
